//go:build !unix

package main

import (
	"os"
	"syscall"
)

// procGroup is COMMAND alone: without process groups, only COMMAND is
// signalled.
type procGroup struct{ leader *os.Process }

// signal sends sig to COMMAND.
func (g procGroup) signal(sig os.Signal) { _ = g.leader.Signal(sig) }

// empty tells whether COMMAND is gone; the caller asks after Wait.
func (g procGroup) empty() bool { return true }

// groupProcAttr has nothing to set without process groups.
func groupProcAttr() *syscall.SysProcAttr { return nil }
