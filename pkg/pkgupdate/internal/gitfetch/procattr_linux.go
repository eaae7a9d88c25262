package gitfetch

import "syscall"

// procAttr is how git runs: in a session of its own (see Fetcher.command), and killed
// when the krm-merge process dies (SIGKILL as the parent-death signal), so that a git
// left running by an interrupted run does not go on writing into a cache repository
// whose lock another run then takes.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
