package pkgcmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fleetSetup makes an upstream whose v2 changes a README line and a ConfigMap value,
// and a tree of packages fetched at v1 (sites/<name>, each with a Kptfile upstream):
// each name in conflicted changed the README line v2 changes too. It returns the tree
// and the cache flags.
func fleetSetup(t *testing.T, names []string, conflicted ...string) (tree string, cache []string) {
	t.Helper()
	git, write := gitTools(t)
	up := filepath.Join(t.TempDir(), "up")
	git(t.TempDir(), "init", "-q", "-b", "main", up)
	readme := func(how string) string { return "# App\n\nInstall it" + how + ".\n\nRun it.\n" }
	cm := func(v string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  level: " + v + "\n"
	}
	write(up, "README.md", readme(""))
	write(up, "cm.yaml", cm("one"))
	git(up, "add", "-A")
	git(up, "commit", "-qm", "v1")
	git(up, "tag", "v1")
	out, err := exec.Command("git", "-C", up, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	v1 := strings.TrimSpace(string(out))
	write(up, "README.md", readme(" with kpt"))
	write(up, "cm.yaml", cm("two"))
	git(up, "commit", "-qam", "v2")
	git(up, "tag", "v2")
	tree = t.TempDir()
	for _, n := range names {
		dir := filepath.Join(tree, "sites", n)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write(dir, "Kptfile", fmt.Sprintf("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\nupstream:\n  type: git\n  git:\n"+
			"    repo: %s\n    directory: /\n    ref: v1\nupstreamLock:\n  type: git\n  git:\n    repo: %s\n    directory: /\n    ref: v1\n    commit: %s\n", up, up, v1))
		write(dir, "cm.yaml", cm("one"))
		write(dir, "README.md", readme(""))
		for _, c := range conflicted {
			if c == n {
				write(dir, "README.md", readme(" with care"))
			}
		}
	}
	return tree, []string{"--cache-dir", t.TempDir()}
}

// TestFleetCommand: `pkg update --all ROOT --to v2` prints a line per package and a
// summary, names the command that concludes the packages left at markers and exits
// 2; --continue --all then concludes them once resolved, and a second run finds every
// package up to date (exit 0).
func TestFleetCommand(t *testing.T) {
	tree, cache := fleetSetup(t, []string{"a", "b", "c"}, "b")
	readmeB := filepath.Join(tree, "sites", "b", "README.md")
	before, _ := os.ReadFile(readmeB)
	stdout, _, err := run(t, append([]string{"update", "--all", tree, "--to", "v2", "--plan"}, cache...)...)
	if err != nil || !strings.Contains(stdout, "== "+tree+"/sites/b\n") || !strings.Contains(stdout, "+Install it with kpt.") ||
		!strings.Contains(stdout, "planned     "+tree+"/sites/b  v1 -> v2: 2 files would change\n") || !strings.Contains(stdout, "Summary: 3 packages: 3 would change.") {
		t.Fatalf("plan: %v\n%s", err, stdout)
	}
	if after, _ := os.ReadFile(readmeB); string(after) != string(before) {
		t.Fatal("the plan wrote")
	}
	stdout, stderr, err := run(t, append([]string{"update", "--all", tree, "--to", "v2", "--jobs", "2"}, cache...)...)
	if ExitCode(err) != ExitMarked || stderr != "" {
		t.Fatalf("exit %d (%v), stderr %q, want %d and nothing:\n%s", ExitCode(err), err, stderr, ExitMarked, stdout)
	}
	for _, want := range []string{
		"updated     " + tree + "/sites/a  v1 -> v2: 3 files changed\n",
		"marked      " + tree + "/sites/b  v1 -> v2: 2 files changed, 1 conflict marked in README.md\n",
		"updated     " + tree + "/sites/c  v1 -> v2",
		"Summary: 3 packages: 2 updated, 1 stopped at conflict markers.\n",
		"krm-merge pkg update " + tree + "/sites/b --continue\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}
	b := filepath.Join(tree, "sites", "b", "README.md")
	if err := os.WriteFile(b, []byte("# App\n\nInstall it with kpt, and care.\n\nRun it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, err = run(t, "update", "--all", tree, "--continue")
	if err != nil || !strings.Contains(stdout, "continued   "+tree+"/sites/b") || !strings.Contains(stdout, "Summary: 1 package: 1 concluded.") {
		t.Fatalf("continue: %v\n%s", err, stdout)
	}
	stdout, _, err = run(t, append([]string{"update", "--all", tree, "--output", "json"}, cache...)...)
	if err != nil {
		t.Fatalf("second run: %v\n%s", err, stdout)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a JSON line per package:\n%s", stdout)
	}
	for _, l := range lines {
		var row struct{ Dir, Status string }
		if err := json.Unmarshal([]byte(l), &row); err != nil || row.Status != "up-to-date" {
			t.Errorf("%v: %q", err, l)
		}
	}
}

// TestFleetShardsCommand: --shard K/N over the same root, for every K, takes each
// package once.
func TestFleetShardsCommand(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f"}
	tree, cache := fleetSetup(t, names)
	var got []string
	for k := 0; k < 3; k++ {
		stdout, _, err := run(t, append([]string{"update", "--all", tree, "--to", "v2", "--shard", fmt.Sprintf("%d/3", k), "--output", "json"}, cache...)...)
		if err != nil {
			t.Fatalf("shard %d: %v", k, err)
		}
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var row struct{ Dir, Status string }
			if l == "" {
				continue
			}
			if err := json.Unmarshal([]byte(l), &row); err != nil || row.Status != "updated" {
				t.Fatalf("%v: %q", err, l)
			}
			got = append(got, filepath.Base(row.Dir))
		}
	}
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("the shards took %v, want %v", got, names)
	}
}

// TestFleetMarkdown: --output markdown writes a pull request's body: the summary, a
// row per package, the conflicts with their file, and the commands to finish; a
// package name that is Markdown or HTML is escaped.
func TestFleetMarkdown(t *testing.T) {
	tree, cache := fleetSetup(t, []string{"plain", "x|<b>y</b>"}, "x|<b>y</b>")
	stdout, _, err := run(t, append([]string{"update", "--all", tree, "--to", "v2", "--output", "markdown"}, cache...)...)
	if ExitCode(err) != ExitMarked {
		t.Fatalf("exit %d: %v\n%s", ExitCode(err), err, stdout)
	}
	for _, want := range []string{
		"## krm-merge pkg update\n\n2 packages: 1 updated, 1 stopped at conflict markers.\n",
		"| Package | Version | Result | Files | Conflicts |\n|---|---|---|---:|---:|\n",
		"/sites/plain | v1 → v2 | updated | 3 | 0 |",
		"/sites/x\\|\\<b\\>y\\</b\\> | v1 → v2 | marked | 2 | 1 |",
		"### Conflicts to resolve",
		"| README.md:3",
		"```sh\nkrm-merge pkg update '" + tree + "/sites/x|<b>y</b>' --continue\n```",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}
	if strings.Contains(strings.ReplaceAll(stdout, "'"+tree+"/sites/x|<b>y</b>'", ""), "<b>") { // but in the shell command
		t.Errorf("unescaped HTML from a package name:\n%s", stdout)
	}
}

// TestFleetUsageErrors: the fleet's flags refuse what they cannot take, before any
// package is touched.
func TestFleetUsageErrors(t *testing.T) {
	tree, cache := fleetSetup(t, []string{"a"})
	a := filepath.Join(tree, "sites", "a")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--all", a + "@v2"}, "--all takes directories"},
		{[]string{a, tree + "/sites/a@v2", "--to", "v2"}, "given twice"},
		{[]string{"--all", tree, "--shard", "3/3"}, "--shard"},
		{[]string{"--all", tree, "--jobs", "-1"}, "--jobs"},
		{[]string{"--all", tree, "--repo", "x"}, "--repo"},
		{[]string{"--all", tree, "--output", "yaml"}, "--output"},
		{[]string{"--all", tree, "--continue", "--to", "v2"}, "--to"},
		{[]string{a, tree}, "give one of them"},
	} {
		_, _, err := run(t, append(append([]string{"update"}, tc.args...), cache...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}
