package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
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
// The peak is benchproc.Start's, /proc read every 5 ms.
func measure(dir string, env []string, ok []int, args ...string) (run, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	wait, err := benchproc.Start(cmd, 5*time.Millisecond)
	if err != nil {
		return run{}, err
	}
	m := wait()
	werr := m.WaitErr
	r := run{wall: m.Wall, peakKB: m.PeakKB, stdout: out.Bytes()}
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
