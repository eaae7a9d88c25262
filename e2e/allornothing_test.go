package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// All-or-nothing: on any error the function exits 1 with an error result and
// writes no items, so kpt leaves the package as it was. Each case below breaks the
// conflict package (under git) one way, runs the real `kpt fn eval`, and checks the exit
// code, that `git status --porcelain` is empty (no file written), and that an error result says what is
// wrong (and names the resource where there is one). The onConflict=error case is
// TestOnConflictErrorFailsAndChangesNothing; a bad functionConfig value is also the
// eval-bad-config case package. (An item kpt cannot read, or without a name, never
// reaches the function: kpt refuses it first, also writing nothing.)
func TestAllOrNothingThroughKpt(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	liveAnnotated := func(lastApplied string) string {
		return strings.Replace(readFile(t, filepath.Join(repoRoot, "e2e", "testdata", "conflict", "dest", "app.yaml")),
			"  namespace: shop\n", "  namespace: shop\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '"+lastApplied+"'\n", 1)
	}
	for _, c := range []struct {
		name    string
		files   map[string]string // extra or replaced files
		args    []string
		message string // in an error result
		ref     string // the resource's name the result must name ("" for none)
	}{{
		name: "malformed directive in an item",
		files: map[string]string{"updated/app.yaml": strings.Replace(readFile(t, filepath.Join(repoRoot, "e2e", "testdata", "conflict", "updated", "app.yaml")),
			"spec:\n", "spec:\n  $patch: sideways\n", 1)},
		args:    []string{"mode=2way", "srcPath=updated", "destPath=dest"},
		message: "sideways",
		ref:     "app",
	}, {
		name:    "bad role",
		files:   map[string]string{"extra.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: odd\n  annotations:\n    config.kubernetes.io/merge-source: upstream\ndata: {k: v}\n"},
		args:    nil, // annotation roles
		message: "upstream",
		ref:     "odd",
	}, {
		name: "duplicate identity in one file",
		files: map[string]string{"dest/app.yaml": readFile(t, filepath.Join(repoRoot, "e2e", "testdata", "conflict", "dest", "app.yaml")) +
			"---\n" + readFile(t, filepath.Join(repoRoot, "e2e", "testdata", "conflict", "dest", "app.yaml"))},
		args:    strings.Fields(conflictFnArgs),
		message: "duplicate dest resource",
		ref:     "app",
	}, {
		name: "a map with a repeated key",
		files: map[string]string{"dest/app.yaml": strings.Replace(readFile(t, filepath.Join(repoRoot, "e2e", "testdata", "conflict", "dest", "app.yaml")),
			"  namespace: shop\n", "  namespace: shop\n  namespace: shop\n", 1)},
		args:    strings.Fields(conflictFnArgs),
		message: "is given twice in one map",
		ref:     "app",
	}, {
		name:    "bad last-applied JSON",
		files:   map[string]string{"dest/app.yaml": liveAnnotated("{not json")},
		args:    []string{"mode=apply", "updatedPath=updated", "destPath=dest"},
		message: "not a JSON object",
		ref:     "app",
	}, {
		name:    "conflict under onConflict=error",
		args:    append(strings.Fields(conflictFnArgs), "onConflict=error"),
		message: "conflict",
		ref:     "app",
	}, {
		name:    "bad functionConfig value",
		args:    append(strings.Fields(conflictFnArgs), "onConflict=maybe"),
		message: "onConflict",
	}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pkg := filepath.Join(t.TempDir(), "pkg")
			copyTree(t, filepath.Join(repoRoot, "e2e", "testdata", "conflict"), pkg)
			for p, text := range c.files {
				writeFile(t, filepath.Join(pkg, p), []byte(text))
			}
			gitInitCommit(t, pkg)
			run := runKpt(t, pkg, "", c.args...)
			if run.ExitCode == 0 {
				t.Fatalf("kpt exited 0:\n%s", run.Output)
			}
			if status := gitStatus(t, pkg); status != "" {
				t.Errorf("the failed run changed the package:\n%s\n%s", status, git(t, pkg, "diff"))
			}
			found := false
			for _, r := range run.Results {
				if r.Severity == "error" && strings.Contains(r.Message, c.message) && (c.ref == "" || r.Ref.Name == c.ref) {
					found = true
				}
			}
			if !found {
				t.Errorf("no error result with %q (resource %q) in %v\n%s", c.message, c.ref, run.Results, run.Output)
			}
		})
	}
}
