package pkgcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
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
		{[]string{"update"}, "give a package directory"},
		{[]string{"update", dir + "@"}, "no version after @"},
		{[]string{"update", dir + "@v1", "--to", "v2"}, "the version is given twice"},
		{[]string{"update", dir, "--on-conflict", "ours"}, `--on-conflict "ours": want mark, updated, dest or error`},
		{[]string{"update", dir, "--output", "yaml"}, "want text or json"},
		{[]string{"update", dir, "--config", filepath.Join(dir, "missing.yaml")}, "--config"},
		{[]string{"update", filepath.Join(dir, "nope") + "@v1"}, "package directory"},
	} {
		_, stderr, err := run(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
		if err != nil && !strings.Contains(tc.want, "give a package") && !strings.Contains(stderr, tc.want) {
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
	for _, want := range []string{"update DIR[@VERSION]", "--plan", "--on-conflict", "--repo", "--allow-dirty", "upstreamLock", "container image has none", "--max-file-size"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// DIR@VERSION splits at an @ after the last / only: a@2/pkg is a directory.
func TestSplitArg(t *testing.T) {
	for _, tc := range []struct{ arg, dir, version, err string }{
		{"pkg", "pkg", "", ""},
		{"pkg@v1", "pkg", "v1", ""},
		{"a@2/pkg", "a@2/pkg", "", ""},
		{"a@2/pkg@v3", "a@2/pkg", "v3", ""},
		{"/abs/x@y/pkg@main", "/abs/x@y/pkg", "main", ""},
		{"./pkg@sha-1@2", "./pkg@sha-1", "2", ""},
		{"pkg@", "", "", "no version after @"},
		{"a@2/pkg@", "", "", "no version after @"},
	} {
		dir, version, err := splitArgWith(tc.arg, func(string) bool { return false })
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.arg, err, tc.err)
			}
			continue
		}
		if err != nil || dir != tc.dir || version != tc.version {
			t.Errorf("%s: %q %q %v, want %q %q", tc.arg, dir, version, err, tc.dir, tc.version)
		}
	}
	// existing directories decide: a branch with a slash, a directory with an @
	dirs := map[string]bool{"pkg": true, "a@2/pkg": true, "x@y": true}
	for _, tc := range []struct{ arg, dir, version string }{
		{"pkg@release/1.2", "pkg", "release/1.2"},
		{"a@2/pkg", "a@2/pkg", ""},
		{"a@2/pkg@release/1.2", "a@2/pkg", "release/1.2"},
		{"x@y", "x@y", ""},
		{"x@y@z", "x@y", "z"},
	} {
		dir, version, err := splitArgWith(tc.arg, func(p string) bool { return dirs[p] })
		if err != nil || dir != tc.dir || version != tc.version {
			t.Errorf("%s with directories %v: %q %q %v, want %q %q", tc.arg, dirs, dir, version, err, tc.dir, tc.version)
		}
	}
	// through the command: a@2/pkg is the directory looked for
	root := t.TempDir()
	_, stderr, err := run(t, "update", filepath.Join(root, "a@2", "pkg"))
	if err == nil || !strings.Contains(stderr, filepath.Join(root, "a@2", "pkg")) {
		t.Errorf("error %v, stderr %q", err, stderr)
	}
}

func TestMaxFileSizeFlag(t *testing.T) {
	for in, want := range map[string]int64{"1000": 1000, "64MiB": 64 << 20, "2Ki": 2048, "1GiB": 1 << 30, "3M": 3 << 20, "10KiB": 10240, "5B": 5} {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "0", "abc", "1.5MiB", "1TB", "99999999999999999999"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	dir := t.TempDir()
	if _, _, err := run(t, "update", dir+"@v1", "--max-file-size", "lots"); err == nil || !strings.Contains(err.Error(), "--max-file-size") {
		t.Errorf("bad --max-file-size: %v", err)
	}
}

// unsafe reports the first byte sequence of s a terminal would act on: a C0 control
// other than newline (and tab where allowed), DEL, a C1 control, a bidi control.
func unsafe(s string, tabs bool) string {
	for _, r := range s {
		switch {
		case r == '\n', r == '\t' && tabs:
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0xfffd:
			return fmt.Sprintf("%q", r)
		}
	}
	return ""
}

const evil = "\x1b[2J\x1b]0;owned\x07\r\u009b31m\u202e\x7f"

func evilReport() *pkgupdate.Report {
	return &pkgupdate.Report{Dir: "pkg" + evil, Plan: true, Packages: []*pkgupdate.PackageReport{{
		Path: ".", Repo: "file:///r" + evil, Directory: "/d" + evil,
		From:      pkgupdate.Version{Ref: "v1" + evil, Commit: "c1"},
		To:        pkgupdate.Version{Ref: "v2" + evil, Commit: "c2"},
		Resources: []pkgupdate.ResourceChange{{Action: "added", Resource: "v1 ConfigMap cm" + evil, File: "f" + evil + ".yaml"}},
		Conflicts: []pkgupdate.Conflict{{File: "f" + evil, Resource: "v1 ConfigMap cm" + evil, Field: "data.k" + evil, Message: "changed on both sides (original a" + evil + ")"}},
		Warnings:  []pkgupdate.Note{{File: "w" + evil, Message: "m" + evil}},
		Changes:   []pkgupdate.Note{{File: "c" + evil, Field: "data.k" + evil, Message: "would add v" + evil}},
	}}, Files: []pkgupdate.FileChange{{Path: "docs/x" + evil + ".md", Action: "modified", Diff: "@@ -1 +1 @@\n-old\tline" + evil + "\n+new\n"}}}
}

// Escape bytes in file names, resource names, field paths, values and diff lines reach
// the terminal escaped (\x1b), never raw: they could clear the screen and fake the plan.
func TestTextReportEscapes(t *testing.T) {
	var b bytes.Buffer
	printReport(&b, evilReport(), nil)
	out := b.String()
	for i, line := range strings.Split(out, "\n") {
		if u := unsafe(line, strings.HasPrefix(line, "    -")); u != "" {
			t.Errorf("line %d holds %s raw: %q", i, u, line)
		}
	}
	for _, want := range []string{`\x1b[2J`, `\x07`, `\r`, `\u009b`, `\u202e`, `\x7f`, "-old\tline"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// the error line too
	var e bytes.Buffer
	printError(&e, errors.New("x"+evil+": symbolic links are not supported"))
	if u := unsafe(e.String(), false); u != "" {
		t.Errorf("error line holds %s raw: %q", u, e.String())
	}
}

// The JSON report escapes the same characters (encoding/json leaves DEL, C1 and bidi
// controls raw) and still decodes to the exact values.
func TestJSONReportEscapes(t *testing.T) {
	var b bytes.Buffer
	if err := writeJSON(&b, evilReport(), "pkg", errors.New("bad"+evil)); err != nil {
		t.Fatal(err)
	}
	if u := unsafe(b.String(), false); u != "" {
		t.Errorf("JSON holds %s raw:\n%s", u, b.String())
	}
	var doc struct {
		pkgupdate.Report
		Error string
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Error != "bad"+evil || doc.Files[0].Path != "docs/x"+evil+".md" || doc.Packages[0].Conflicts[0].Field != "data.k"+evil {
		t.Errorf("decoded %+v", doc)
	}
}

// End to end: upstream adds a file whose content holds escape bytes (the plan shows
// them escaped), then one whose name does (the fetch refuses it, naming it escaped);
// nothing printed for a person holds one raw.
func TestPlanOfAHostileFileName(t *testing.T) {
	git, write := gitTools(t)
	repo := t.TempDir()
	git(repo, "init", "-q", "-b", "main")
	write(repo, "a.txt", "a\n")
	git(repo, "add", "-A")
	git(repo, "commit", "-qm", "v1")
	git(repo, "tag", "v1")
	write(repo, "notes.txt", "one\x1b]0;owned\x07\n")
	git(repo, "add", "-A")
	git(repo, "commit", "-qm", "v2")
	git(repo, "tag", "v2")
	write(repo, "evil\x1b[2J\x1b[Hname.txt", "x\n")
	git(repo, "add", "-A")
	git(repo, "commit", "-qm", "v3")
	git(repo, "tag", "v3")
	dir := filepath.Join(t.TempDir(), "pkg")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(dir, "a.txt", "a\n")
	// a line with escape bytes: shown escaped in the plan
	stdout, stderr, err := run(t, "update", dir, "--repo", "file://"+repo, "--from", "v1", "--to", "v2", "--plan",
		"--cache-dir", t.TempDir())
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if u := unsafe(stdout, true); u != "" {
		t.Errorf("the plan holds %s raw:\n%q", u, stdout)
	}
	if !strings.Contains(stdout, `added    notes.txt`) || !strings.Contains(stdout, `+one\x1b]0;owned\x07`) {
		t.Errorf("the plan does not show the escaped line:\n%s", stdout)
	}
	// a file name with escape bytes: refused by the fetch, and named escaped
	stdout, stderr, err = run(t, "update", dir, "--repo", "file://"+repo, "--from", "v1", "--to", "v3", "--plan",
		"--cache-dir", t.TempDir())
	if err == nil {
		t.Fatalf("a file name with control characters was accepted:\n%s", stdout)
	}
	if u := unsafe(stdout+stderr, true); u != "" {
		t.Errorf("the output holds %s raw:\n%q", u, stdout+stderr)
	}
	if !strings.Contains(stderr, `evil\x1b[2J\x1b[Hname.txt`) {
		t.Errorf("the error does not name the file escaped:\n%s", stderr)
	}
}
