package pkgupdate

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitfetch"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/kptfile"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
)

// defaultMerge returns a fresh copy of the function's merge settings, for a test to
// change.
func defaultMerge() *config.MergeSettings {
	m := config.DefaultMergeSettings()
	return &m
}

func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
}

// gitCommand is git with args in dir, as a test user without the global config.
func gitCommand(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	return cmd
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitCommand(dir, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeFiles writes files under dir; a value "" removes the file (and the directories
// it leaves empty), before any file is written; a key ending in "*" is written
// executable (the "*" dropped).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		if c != "" {
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(p, "*")))
		if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for d := filepath.Dir(full); d != dir && os.Remove(d) == nil; d = filepath.Dir(d) {
		}
	}
	for p, c := range files {
		if c == "" {
			continue
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "*") {
			p, mode = strings.TrimSuffix(p, "*"), 0o755
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
}

// upstreamRepo makes a git repository whose directory pkgDir holds each release in
// turn, committed and tagged; it returns the repository's path.
func upstreamRepo(t *testing.T, pkgDir string, releases ...release) string {
	t.Helper()
	requireGit(t)
	repo := filepath.Join(t.TempDir(), "upstream")
	git(t, t.TempDir(), "init", "-q", "-b", "main", repo)
	for _, r := range releases {
		writeFiles(t, filepath.Join(repo, pkgDir), r.files)
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-q", "--allow-empty", "-m", r.tag)
		git(t, repo, "tag", r.tag)
	}
	return repo
}

type release struct {
	tag   string
	files map[string]string
}

// kptGet fetches directory at ref of repo into dest as `kpt pkg get` does (the
// bookkeeping of package kptprep and kptfile, which the e2e tests compare with kpt).
func kptGet(t *testing.T, repo, directory, ref, dest string) {
	t.Helper()
	ctx := context.Background()
	f := &gitfetch.Fetcher{CacheDir: filepath.Join(t.TempDir(), "cache")}
	r, err := f.Resolve(ctx, repo, directory, ref)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(t.TempDir(), "export")
	if err := f.Export(ctx, repo, r.Commit, directory, tmp); err != nil {
		t.Fatal(err)
	}
	tree, err := pkgio.Read(tmp, pkgio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	up, err := yaml.Parse("type: git\ngit:\n  repo: " + repo + "\n  directory: " + directory + "\n  ref: " + ref + "\nupdateStrategy: resource-merge\n")
	if err != nil {
		t.Fatal(err)
	}
	lock := kptfile.Git{Repo: repo, Directory: directory, Ref: ref, Commit: r.Commit}
	if err := prepareTree(tree, "", filepath.Base(dest), up, ref, lock); err != nil {
		t.Fatal(err)
	}
	for p, file := range tree.Files {
		data := file.Data
		if file.KRM() {
			if data, err = pkgio.Encode(file.Header, file.Docs); err != nil {
				t.Fatal(err)
			}
		}
		full := filepath.Join(dest, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, data, file.Mode); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot maps each file under dir (but .git) to its content and mode (a link to its
// target, another file to its type).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if !fi.Mode().IsRegular() { // a link (never followed: it may lead to /dev/zero), a FIFO
			target, _ := os.Readlink(p)
			out[rel] = fi.Mode().String() + "\n" + target
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = fi.Mode().Perm().String() + "\n" + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// resource finds kind/name among the documents of a file and returns it.
func resource(t *testing.T, file, kind, name string) *yaml.RNode {
	t.Helper()
	docs, err := pkgio.Parse([]byte(read(t, file)), "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Node.GetKind() == kind && d.Node.GetName() == name {
			return d.Node
		}
	}
	t.Fatalf("%s: no %s %s", file, kind, name)
	return nil
}

func field(t *testing.T, n *yaml.RNode, path ...string) string {
	t.Helper()
	v, err := n.Pipe(yaml.Lookup(path...))
	if err != nil || v == nil {
		t.Fatalf("%s: no field %v", n.GetName(), path)
	}
	return strings.TrimSpace(v.MustString())
}
