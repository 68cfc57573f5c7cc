//go:build !linux

package main

import "syscall"

// childProcAttr starts COMMAND in a process group of its own where there
// are process groups (see group_unix.go); COMMAND outlives a zkr that is
// killed.
func childProcAttr() *syscall.SysProcAttr { return groupProcAttr() }
