package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/krm-merge/krm-merge/bench/internal/benchproc"
)

// run is one measured process: its wall time, peak resident set, exit status and
// standard output.
type run struct {
	wall   time.Duration
	peakKB int64
	exit   int
	stdout []byte
}

// measure runs args in dir with env added to the bench's environment and returns its
// wall time, peak RSS and output. An exit status outside ok is an error with the
// output's last lines.
//
// The peak is the child's VmHWM from /proc, read every 5 ms while it runs (a child of
// a Go process is started with the parent's memory shared until exec, so rusage's
// Maxrss can count the parent's resident set); rusage's Maxrss without /proc.
func measure(dir string, env []string, ok []int, args ...string) (run, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return run{}, err
	}
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	done := make(chan int64)
	stop := make(chan struct{})
	go func() {
		var peak int64
		for {
			if kb := benchproc.VmHWM(status); kb > peak {
				peak = kb
			}
			select {
			case <-stop:
				done <- peak
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	werr := cmd.Wait()
	wall := time.Since(start)
	close(stop)
	r := run{wall: wall, peakKB: <-done, stdout: out.Bytes()}
	if ru, isRusage := cmd.ProcessState.SysUsage().(*syscall.Rusage); isRusage && r.peakKB == 0 {
		r.peakKB = ru.Maxrss
	}
	if _, isExit := werr.(*exec.ExitError); werr != nil && !isExit {
		return r, werr
	}
	r.exit = cmd.ProcessState.ExitCode()
	for _, code := range ok {
		if r.exit == code {
			return r, nil
		}
	}
	return r, fmt.Errorf("%s: exit status %d:\n%s%s", strings.Join(args, " "), r.exit, lastLines(out.String()), lastLines(errOut.String()))
}

// lastLines is the last five lines of s, each ending in "\n" ("" for none).
func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	return strings.Join(lines[max(0, len(lines)-5):], "\n") + "\n"
}
