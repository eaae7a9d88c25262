// Package benchproc holds what the benchmark commands (bench/cmd/...) share to measure
// a process and find their inputs: a command's wall time and peak resident set, and the
// module's root directory. Benchmarks only; nothing of krm-merge's imports it.
package benchproc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// VmHWM reads the VmHWM line (peak resident set, in kB) of a /proc/PID/status file;
// 0 when it cannot (the process ended, or no /proc).
func VmHWM(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb
		}
	}
	return 0
}

// ModuleRoot is the directory of the krm-merge module's go.mod, as `go env GOMOD`
// finds it from the working directory. Errors: go's, or a working directory outside
// any module.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run inside the krm-merge module")
	}
	return filepath.Dir(gomod), nil
}

// Run is one run of a command measured by Start: its wall time from start to exit,
// its peak resident set and what cmd.Wait returned.
type Run struct {
	// Wall is the time from the start to the exit.
	Wall time.Duration
	// PeakKB is the child's peak resident set in kB: its VmHWM from /proc, read every
	// poll while it runs (a child of a Go process shares the parent's memory until
	// exec, so rusage's Maxrss can count the parent's resident set); rusage's Maxrss
	// where /proc gives nothing.
	PeakKB int64
	// WaitErr is cmd.Wait's error (an *exec.ExitError for a non-zero exit).
	WaitErr error
}

// Start starts cmd and returns a wait that waits for it to exit and returns the Run,
// reading the child's VmHWM every poll meanwhile. Errors: cmd.Start's.
func Start(cmd *exec.Cmd, poll time.Duration) (wait func() Run, err error) {
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	peak := make(chan int64)
	stop := make(chan struct{})
	go func() {
		var kb int64
		for {
			kb = max(kb, VmHWM(status))
			select {
			case <-stop:
				peak <- kb
				return
			case <-time.After(poll):
			}
		}
	}()
	return func() Run {
		r := Run{WaitErr: cmd.Wait()}
		r.Wall = time.Since(start)
		close(stop)
		r.PeakKB = <-peak
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && r.PeakKB == 0 {
			r.PeakKB = ru.Maxrss
		}
		return r
	}, nil
}
