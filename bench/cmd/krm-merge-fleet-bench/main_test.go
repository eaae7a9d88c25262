package main

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestQuick runs the benchmark at -quick size without the kpt loop (20 sites, about 20
// s on 2 cores) and checks that its tables have their rows; it asserts no timing.
func TestQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the quick run takes about 20 s")
	}
	for _, tool := range []string{"git", "kpt"} {
		if _, err := exec.LookPath(tool); err != nil {
			msg := tool + " is not on PATH: the fleet benchmark gets its packages with kpt pkg get"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg + "; CI=true, so this is a failure, not a skip")
			}
			t.Skip(msg)
		}
	}
	var out strings.Builder
	if err := runBench([]string{"-quick", "-kpt-loop=false", "-workdir", t.TempDir()}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, row := range []string{
		"| packages | krm-merge --all | ms a package | peak RSS |",
		"\n| 20 | ", "\n| 4 | ",
		"Statuses (every run checked): 18 updated, 2 marked",
		"leave the same tree",
		"\n| check | ", "\n| fetch | ", "\n| prepare | ", "\n| merge | ", "\n| write | ", "\n| all steps | ", "\n| wall (",
		"| krm-merge pkg outdated sites, 20 packages of one upstream |",
		"(-quick: no verdicts)",
	} {
		if !strings.Contains(got, row) {
			t.Errorf("no %q in the output:\n%s", row, got)
		}
	}
}
