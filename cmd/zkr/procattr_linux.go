package main

import "syscall"

// childProcAttr starts COMMAND in a process group of its own, so that zkr
// can stop everything COMMAND started when the hold ends, and makes the
// kernel send COMMAND SIGTERM when zkr dies without stopping it (SIGKILL, a
// crash): zkr's session, and so its hold, ends with it, and COMMAND must not
// go on believing it holds. The kernel tells COMMAND only, not the
// processes it started; passing the signal on is COMMAND's part.
func childProcAttr() *syscall.SysProcAttr {
	a := groupProcAttr()
	a.Pdeathsig = syscall.SIGTERM
	return a
}
