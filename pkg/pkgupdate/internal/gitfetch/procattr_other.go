//go:build !linux

package gitfetch

import "syscall"

// procAttr is how git runs: in a session of its own (see Fetcher.command). Without
// Linux's parent-death signal, a git left running by an interrupted run ends on its
// own.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
