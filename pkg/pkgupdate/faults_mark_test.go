package pkgupdate

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
)

// TestFaultContinueAndAbortKilled kills `krm-merge pkg update DIR --continue` and
// `--abort` (SIGKILL to its process group) after a random delay, or once the journal of
// its write is committed: the package is then as before the command (the update still
// in progress), as after it (concluded, no state left), or in a roll forward whose
// journal is committed and whose every file is one of the two versions; the same
// command run again ends with the package as after it. Each command is one
// stage.Apply of its files and the state's removal together, so a kill leaves the
// state exactly when it leaves the files unconcluded (package stage kills every single
// step of such a write, TestKillAtEveryStepRecovers).
//
// KRM_MERGE_FAULT_KILLS sets the number of kills per command (default 8).
func TestFaultContinueAndAbortKilled(t *testing.T) {
	bin := buildBinary(t)
	dirs, cache := markPackages(t, 1, markLocal)
	dir := dirs[0]
	work := filepath.Dir(dir)
	kills := 8
	if s := os.Getenv("KRM_MERGE_FAULT_KILLS"); s != "" {
		kills, _ = strconv.Atoi(s)
	}
	rng := rand.New(rand.NewSource(faultSeed(t)))
	command := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"pkg", "update"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}
	// begin resets the package to its committed state and runs the update under mark;
	// for --continue it then resolves every file (local's side; old.yaml upstream's:
	// nothing).
	begin := func(action string) map[string]string {
		t.Helper()
		git(t, work, "checkout", "-q", "-f", "HEAD", "--", ".")
		git(t, work, "clean", "-qfdx")
		if out, err := command(dir+"@v2", "--on-conflict", "mark", "--cache-dir", cache).CombinedOutput(); err == nil || !strings.Contains(string(out), "--continue") {
			t.Fatalf("the update under mark: %v\n%s", err, out)
		}
		if action == "--continue" {
			snap := snapshot(t, dir)
			for _, f := range []string{"deploy.yaml", "config.yaml", "README.md", "old.yaml"} {
				which := byte('l')
				if f == "old.yaml" {
					which = 'u'
				}
				if err := os.WriteFile(filepath.Join(dir, f), []byte(side(t, mustContent(t, snap, f), which)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		return snapshot(t, dir)
	}
	staging, err := stage.StagingDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, action := range []string{"--continue", "--abort"} {
		before := begin(action)
		start := time.Now()
		if out, err := command(dir, action).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", action, err, out)
		}
		duration := time.Since(start)
		after := snapshot(t, dir)
		if reflect.DeepEqual(after, before) {
			t.Fatalf("%s changed nothing", action)
		}
		states := map[string]int{}
		for k := 0; k < kills; k++ {
			if now := begin(action); !reflect.DeepEqual(now, before) {
				t.Fatalf("%s: the update under mark is not the same each time", action)
			}
			cmd := command(dir, action)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var what string
			if k%2 == 0 {
				delay := time.Duration(rng.Int63n(int64(duration)*11/10 + 1))
				time.Sleep(delay)
				what = fmt.Sprintf("%s killed after %v", action, delay.Round(time.Microsecond))
			} else { // at the journal's commit
				deadline := time.Now().Add(30 * time.Second) // a hang guard, not a timing assertion
				what = action + " killed at the end"
			watch:
				for time.Now().Before(deadline) {
					select {
					case err := <-done:
						done <- err
						break watch
					default:
					}
					if _, err := os.Lstat(filepath.Join(staging, "journal.json")); err == nil {
						what = action + " killed at the journal's commit"
						break
					}
					time.Sleep(20 * time.Microsecond)
				}
			}
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
			now := snapshot(t, dir)
			_, jerr := os.Lstat(filepath.Join(staging, "journal.json"))
			state := "rolling forward"
			switch {
			case reflect.DeepEqual(now, before):
				state = "as before"
			case reflect.DeepEqual(now, after):
				state = "as after"
			default:
				var mixed []string
				for _, m := range []map[string]string{now, before, after} {
					for f := range m {
						if v, ok := now[f]; (ok && v != before[f] && v != after[f]) || (!ok && before[f] != "" && after[f] != "") {
							mixed = append(mixed, f)
						}
					}
				}
				sort.Strings(mixed)
				if jerr != nil || len(mixed) > 0 {
					t.Fatalf("%s: the package is half concluded (journal committed: %v; files in neither version: %v)", what, jerr == nil, mixed)
				}
			}
			states[state]++
			if out, err := command(dir, action).CombinedOutput(); err != nil && state != "as after" {
				t.Fatalf("%s (%s): the next run failed: %v\n%s", what, state, err, out)
			}
			if now := snapshot(t, dir); !reflect.DeepEqual(now, after) {
				t.Fatalf("%s (%s): after the next run the package is not as %s leaves it", what, state, action)
			}
			if _, err := os.Lstat(staging); err == nil {
				t.Fatalf("%s (%s): staging left", what, state)
			}
		}
		t.Logf("%s: %d kills: %v", action, kills, states)
	}
}
