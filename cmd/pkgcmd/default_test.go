package pkgcmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

const (
	markLocal    = "# App\n\nInstall it with care.\n\nRun it.\n"
	markUpstream = "# App\n\nInstall it with kpt.\n\nRun it.\n"
)

// flagName finds the flag a line of FlagUsages is about.
var flagName = regexp.MustCompile(`^\s+(?:-\w, )?--([a-z-]+)`)

// Without --on-conflict a conflict stops the update: markers in the file, the report
// names the file and both ways on, no "Error:" line, ExitMarked.
func TestDefaultStopsAtConflicts(t *testing.T) {
	dir, flags := markSetup(t)
	stdout, stderr, err := run(t, append([]string{"update", dir}, flags...)...)
	if code := ExitCode(err); code != ExitMarked {
		t.Fatalf("exit %d (%v), want %d\n%s%s", code, err, ExitMarked, stdout, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "README.md")); !strings.Contains(string(b), "<<<<<<< local\n") {
		t.Errorf("README.md has no markers:\n%s", b)
	}
	for _, want := range []string{
		"Conflict markers:\n  README.md:3-9\n",
		"Stopped at the conflicts above, marked in README.md; everything else is updated, and the Kptfile still records the old release.\n",
		"  krm-merge pkg update " + dir + " --continue\n",
		"  krm-merge pkg update " + dir + " --abort\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	if stderr != "" {
		t.Errorf("a marked update wrote to stderr (an Error: line?):\n%s", stderr)
	}
	if stdout, _, err := run(t, "update", dir, "--abort"); err != nil {
		t.Fatalf("--abort: %v\n%s", err, stdout)
	}
	// --plan under the default says what would be marked and exits 0.
	stdout, _, err = run(t, append([]string{"update", dir, "--plan"}, flags...)...)
	if err != nil || !strings.Contains(stdout, "Plan: 1 files would change, 1 conflicts would be marked; nothing written.") {
		t.Errorf("--plan: %v\n%s", err, stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(b) != markLocal {
		t.Errorf("--plan wrote README.md:\n%s", b)
	}
}

// --on-conflict wins over --config's onConflict, which wins over the command's default
// (mark), even when it names the function's default (updated).
func TestConflictPolicyPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name, config, flag string
		readme             string // README.md after the run; "" for markers
		code               int
	}{
		{name: "default", readme: "", code: ExitMarked},
		{name: "flag", flag: "updated", readme: markUpstream},
		{name: "typed config", config: "spec:\n  onConflict: updated\n", readme: markUpstream},
		{name: "ConfigMap", config: "data:\n  onConflict: dest\n", readme: markLocal},
		{name: "config via an alias", config: "data: &d\n  onConflict: updated\nx: *d\n", readme: "", code: 1},
		{name: "config without onConflict", config: "spec:\n  schema: none\n", readme: "", code: ExitMarked},
		{name: "flag over config", config: "spec:\n  onConflict: updated\n", flag: "dest", readme: markLocal},
		{name: "error", flag: "error", readme: markLocal, code: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, flags := markSetup(t)
			args := append([]string{"update", dir}, flags...)
			if tc.config != "" {
				head := "apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\n"
				if strings.HasPrefix(tc.config, "data:") {
					head = "apiVersion: v1\nkind: ConfigMap\n"
				}
				p := filepath.Join(t.TempDir(), "merge.yaml")
				if err := os.WriteFile(p, []byte(head+"metadata:\n  name: m\n"+tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config", p)
			}
			if tc.flag != "" {
				args = append(args, "--on-conflict", tc.flag)
			}
			stdout, stderr, err := run(t, args...)
			if code := ExitCode(err); code != tc.code {
				t.Fatalf("exit %d (%v), want %d\n%s%s", code, err, tc.code, stdout, stderr)
			}
			if tc.code == 1 && tc.flag == "" { // the alias case: a refused config, nothing written
				return
			}
			b, _ := os.ReadFile(filepath.Join(dir, "README.md"))
			if tc.readme == "" && !strings.Contains(string(b), "<<<<<<< local") || tc.readme != "" && string(b) != tc.readme {
				t.Errorf("README.md:\n%s\nwant %q (\"\": markers)", b, tc.readme)
			}
		})
	}
}

// conflictPolicy and setsKey, without git: the flag, then the config's key, then mark;
// aliases and merge keys in the config are followed.
func TestConflictPolicy(t *testing.T) {
	for _, tc := range []struct {
		flag       string
		fromConfig config.ConflictPolicy
		sets       bool
		want       config.ConflictPolicy
	}{
		{"", config.UpdatedWins, false, config.MarkConflicts},
		{"", config.UpdatedWins, true, config.UpdatedWins},
		{"", config.DestWins, true, config.DestWins},
		{"updated", config.DestWins, true, config.UpdatedWins},
		{"error", config.UpdatedWins, false, config.FailOnConflict},
		{"mark", config.UpdatedWins, true, config.MarkConflicts},
	} {
		if got, err := conflictPolicy(tc.flag, tc.fromConfig, tc.sets); err != nil || got != tc.want {
			t.Errorf("conflictPolicy(%q, %q, %v) = %q, %v; want %q", tc.flag, tc.fromConfig, tc.sets, got, err, tc.want)
		}
	}
	if _, err := conflictPolicy("ours", config.UpdatedWins, false); err == nil {
		t.Error("--on-conflict ours accepted")
	}
	dir := t.TempDir()
	for i, tc := range []struct {
		text string
		sets bool
	}{
		{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n  onConflict: updated\n", true},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n  mode: 3way\n", false},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n", false},
		{"apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nmetadata:\n  name: m\n  annotations:\n    onConflict: x\nspec:\n  schema: none\n", false},
		{"apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nmetadata:\n  name: m\nspec:\n  onConflict: updated\n", true},
		{"apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nmetadata:\n  name: m\n  labels: &l\n    onConflict: updated\nspec:\n  <<: *l\n", true},
	} {
		p := filepath.Join(dir, fmt.Sprintf("c%d.yaml", i))
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, sets, err := loadConfig(p)
		if err != nil || sets != tc.sets {
			t.Errorf("%s: sets %v, %v; want %v", tc.text, sets, err, tc.sets)
		} else if sets && cfg.OnConflict != config.UpdatedWins {
			t.Errorf("%s: onConflict %q", tc.text, cfg.OnConflict)
		}
	}
}

// ExitCode: 0, ExitMarked for a marked update (wrapped too), 1 for everything else.
func TestExitCode(t *testing.T) {
	marked := &pkgupdate.MarkedError{Dir: "d", Files: []string{"f"}}
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{marked, ExitMarked},
		{fmt.Errorf("update: %w", marked), ExitMarked},
		{&pkgupdate.ConflictError{Conflicts: 2}, 1},
		{errors.New("boom"), 1},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
	if ExitMarked == 0 || ExitMarked == 1 {
		t.Errorf("ExitMarked %d is not distinct from success and errors", ExitMarked)
	}
}

// --help gives every flag's default: cobra's "(default ...)" for a value flag with a
// non-empty default, the usage text's own "(default ...)" for the others; a boolean
// flag is off unless given. It documents the exit status and the default policy.
func TestHelpShowsDefaults(t *testing.T) {
	cmd := updateCommand()
	lines := strings.Split(strings.TrimSuffix(cmd.Flags().FlagUsages(), "\n"), "\n")
	if len(lines) < 14 {
		t.Fatalf("%d flag lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		m := flagName.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("not a flag's line: %q", l)
			continue
		}
		if f := cmd.Flags().Lookup(m[1]); f != nil && f.Value.Type() != "bool" && !strings.Contains(l, "(default ") {
			t.Errorf("--%s: its help gives no default: %q", m[1], l)
		}
	}
	stdout, _, err := run(t, "update", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"(default the --config file's onConflict if it sets one, else mark)",
		`(default "text")`, `(default "64MiB")`,
		"stops the update by default (--on-conflict mark)",
		"2 when it stopped at\nconflict markers",
		"--on-conflict updated takes upstream's value at every conflict, as kpt pkg\nupdate does",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, stdout)
		}
	}
}
