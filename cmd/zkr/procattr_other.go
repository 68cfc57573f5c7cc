//go:build !linux

package main

import "syscall"

// childProcAttr has nothing to add outside Linux: COMMAND outlives a zkr
// that is killed.
func childProcAttr() *syscall.SysProcAttr { return nil }
