package zktesting

import "syscall"

// sysProcAttr makes the kernel kill the server when the thread that started
// it dies, so a crashed or timed-out test binary leaves no JVM behind. Go
// only ends an OS thread when a goroutine locked to it exits, which the
// callers of this package do not do around Start.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
