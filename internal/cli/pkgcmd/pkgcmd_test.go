package pkgcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := New()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"update"}, "accepts 1 arg"},
		{[]string{"update", dir + "@"}, "no version after @"},
		{[]string{"update", dir + "@v1", "--to", "v2"}, "the version is given twice"},
		{[]string{"update", dir, "--on-conflict", "ours"}, `--on-conflict "ours": want updated, dest or error`},
		{[]string{"update", dir, "--output", "yaml"}, "want text or json"},
		{[]string{"update", dir, "--config", filepath.Join(dir, "missing.yaml")}, "--config"},
		{[]string{"update", filepath.Join(dir, "nope") + "@v1"}, "package directory"},
	} {
		_, stderr, err := run(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
		if err != nil && !strings.Contains(tc.want, "accepts") && !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: stderr %q does not say %q", tc.args, stderr, tc.want)
		}
	}
}

func TestBadConfigNamesTheField(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "merge.yaml")
	if err := os.WriteFile(cfg, []byte("apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nmetadata:\n  name: m\nspec:\n  onConflict: ours\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, "update", dir+"@v1", "--config", cfg)
	if err == nil || !strings.Contains(err.Error(), cfg) || !strings.Contains(err.Error(), "spec.onConflict") {
		t.Errorf("error %v, want one naming the file and spec.onConflict", err)
	}
	if err := os.WriteFile(cfg, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n  originalPath: a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "update", dir+"@v1", "--config", cfg); err == nil || !strings.Contains(err.Error(), "originalPath") {
		t.Errorf("role paths in the config: %v", err)
	}
}

// Without git (as in the function's container image) the command says so.
func TestWithoutGit(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	_, stderr, err := run(t, "update", dir+"@v1")
	if err == nil || !strings.Contains(stderr, "git is not installed") || !strings.Contains(stderr, "container image") {
		t.Errorf("error %v, stderr %q", err, stderr)
	}
	stdout, _, err := run(t, "update", dir+"@v1", "--output", "json")
	var doc struct{ Error string }
	if jerr := json.Unmarshal([]byte(stdout), &doc); jerr != nil || err == nil || !strings.Contains(doc.Error, "git is not installed") {
		t.Errorf("json: %v %v %q", jerr, err, stdout)
	}
}

func TestHelp(t *testing.T) {
	stdout, _, err := run(t, "update", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"update DIR[@VERSION]", "--plan", "--on-conflict", "--repo", "--allow-dirty", "upstreamLock", "container image has none"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}
