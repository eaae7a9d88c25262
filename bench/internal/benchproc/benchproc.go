// Package benchproc holds what the benchmark commands (bench/cmd/...) share to measure
// a process and find their inputs: the peak resident set of a running process and the
// module's root directory. Benchmarks only; nothing of krm-merge's imports it.
package benchproc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
