package pkgcmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

// markSetup makes an upstream whose v2 changes a README line that the local copy (a
// directory without a Kptfile, updated with --repo) changed too, and returns the
// package directory and the flags naming the upstream.
func markSetup(t *testing.T) (dir string, flags []string) {
	t.Helper()
	git, write := gitTools(t)
	repo := t.TempDir()
	git(repo, "init", "-q", "-b", "main")
	write(repo, "README.md", "# App\n\nInstall it.\n\nRun it.\n")
	git(repo, "add", "-A")
	git(repo, "commit", "-qm", "v1")
	git(repo, "tag", "v1")
	write(repo, "README.md", "# App\n\nInstall it with kpt.\n\nRun it.\n")
	git(repo, "commit", "-qam", "v2")
	git(repo, "tag", "v2")
	dir = filepath.Join(t.TempDir(), "pkg")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(dir, "README.md", "# App\n\nInstall it with care.\n\nRun it.\n")
	return dir, []string{"--repo", "file://" + repo, "--from", "v1", "--to", "v2", "--cache-dir", t.TempDir()}
}

// gitTools skips t without git, sets a test identity and no global config for git, and
// returns a git runner and a file writer that fail t.
func gitTools(t *testing.T) (git func(dir string, args ...string), write func(dir, name, content string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	for k, v := range map[string]string{"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"} {
		t.Setenv(k, v)
	}
	git = func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write = func(dir, name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return git, write
}

// --on-conflict mark: exit 1, markers in the file, the report lists each with its file
// and lines (text and JSON) and says how to go on; --continue is refused while a
// marker is left, naming the file and line, and concludes once it is resolved.
func TestMarkContinueCommand(t *testing.T) {
	dir, flags := markSetup(t)
	stdout, stderr, err := run(t, append([]string{"update", dir, "--on-conflict", "mark", "--output", "json"}, flags...)...)
	if err == nil {
		t.Fatal("want exit 1")
	}
	var doc struct {
		pkgupdate.Report
		Error string
	}
	if jerr := json.Unmarshal([]byte(stdout), &doc); jerr != nil {
		t.Fatalf("%v\n%s%s", jerr, stdout, stderr)
	}
	if len(doc.Marks) != 1 || doc.Marks[0] != (pkgupdate.Mark{File: "README.md", Start: 3, End: 9}) || !strings.Contains(doc.Error, "--continue") {
		t.Errorf("marks %+v, error %q", doc.Marks, doc.Error)
	}
	want := "# App\n\n<<<<<<< local\nInstall it with care.\n||||||| v1\nInstall it.\n=======\nInstall it with kpt.\n>>>>>>> v2\n\nRun it.\n"
	b, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if string(b) != want {
		t.Errorf("README.md:\n%s\nwant:\n%s", b, want)
	}
	_, stderr, err = run(t, "update", dir, "--continue")
	if err == nil || !strings.Contains(stderr, "README.md:3: a conflict marker is left: <<<<<<< local") {
		t.Errorf("--continue with markers: %v\n%s", err, stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# App\n\nInstall it with care and kpt.\n\nRun it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = run(t, "update", dir, "--continue")
	if err != nil || !strings.Contains(stdout, "concluded") {
		t.Errorf("--continue: %v\n%s%s", err, stdout, stderr)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".krm-merge-in-progress")); !os.IsNotExist(err) {
		t.Errorf("state left: %v", err)
	}
}

// The text report of a marked update lists the markers and both ways on; --abort
// puts the file back.
func TestMarkAbortCommand(t *testing.T) {
	dir, flags := markSetup(t)
	stdout, _, err := run(t, append([]string{"update", dir, "--on-conflict", "mark"}, flags...)...)
	if err == nil {
		t.Fatal("want exit 1")
	}
	for _, want := range []string{"Conflict markers:\n  README.md:3-9\n", "--continue", "--abort", "README.md:3-9: changed on both sides (local lines 3, upstream lines 3); marked in the file"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	_, stderr, err := run(t, append([]string{"update", dir}, flags...)...)
	if err == nil || !strings.Contains(stderr, "--continue") {
		t.Errorf("another update while one is in progress: %v\n%s", err, stderr)
	}
	if stdout, _, err = run(t, "update", dir, "--abort"); err != nil || !strings.Contains(stdout, "aborted") {
		t.Errorf("--abort: %v\n%s", err, stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(b) != "# App\n\nInstall it with care.\n\nRun it.\n" {
		t.Errorf("README.md after --abort:\n%s", b)
	}
}

// --continue and --abort take DIR alone; onConflict mark may come from --config.
func TestMarkFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"update", dir, "--continue", "--abort"}, "--continue and --abort: give one"},
		{[]string{"update", dir, "--continue", "--plan"}, "--continue takes no --plan"},
		{[]string{"update", dir, "--abort", "--on-conflict", "dest"}, "--abort takes no --on-conflict"},
		{[]string{"update", dir + "@v2", "--continue"}, "--continue takes DIR without a version"},
		{[]string{"update", dir, "--continue"}, "no update is in progress"},
	} {
		_, _, err := run(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	cfg := filepath.Join(dir, "merge.yaml")
	if err := os.WriteFile(cfg, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n  onConflict: mark\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, sets, err := loadConfig(cfg)
	if err != nil || c.OnConflict != "mark" || !sets {
		t.Errorf("--config with onConflict mark: %v, %v, %v", c, sets, err)
	}
	stdout, _, err := run(t, "update", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--continue", "--abort", "mark", "<<<<<<< local"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}
