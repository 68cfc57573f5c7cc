//go:build !linux

package zktesting

import "syscall"

// sysProcAttr has nothing to add outside Linux: a server outlives a process
// that dies without calling Stop.
func sysProcAttr() *syscall.SysProcAttr { return nil }
