package main

import "syscall"

// childProcAttr makes the kernel send COMMAND SIGTERM when zkr dies without
// stopping it (SIGKILL, a crash): zkr's session, and so its hold, ends with
// it, and COMMAND must not go on believing it holds.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
