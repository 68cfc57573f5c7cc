//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"
)

// procGroup is COMMAND's process group: COMMAND leads it, and whatever it
// starts joins it unless it makes a group of its own.
type procGroup struct{ leader *os.Process }

// signal sends sig to every process of the group, and then SIGCONT, as a
// shell's kill does for a stopped job: a process stopped (by SIGTSTP, or
// by SIGTTIN when it read the terminal from its background group) would
// otherwise keep the signal pending until SIGKILL.
func (g procGroup) signal(sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		_ = g.leader.Signal(sig)
		return
	}
	_ = syscall.Kill(-g.leader.Pid, s)
	if s != syscall.SIGKILL && s != syscall.SIGCONT {
		_ = syscall.Kill(-g.leader.Pid, syscall.SIGCONT)
	}
}

// empty tells whether no process of the group is left. The group's id
// cannot be reused while one is.
func (g procGroup) empty() bool {
	return errors.Is(syscall.Kill(-g.leader.Pid, 0), syscall.ESRCH)
}

// groupProcAttr starts COMMAND as the leader of a new process group.
func groupProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
