package pkgupdate

// Hostile files: in the package directory (which may sit on a shared machine) and in
// the upstream repository (every byte of which is hostile). Each must fail fast with an
// error naming the file, in bounded memory, leaving the package as it was; or, for a
// file that replaces a directory, be a conflict and never a silent deletion.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime/metrics"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/pkg/config"
)

// guardedUpdate runs Update in a goroutine. A hang (a FIFO opened for reading blocks
// until a writer comes) fails the test after a generous deadline; a heap past 512 MiB
// (a read of /dev/zero) panics, ending the test binary before the machine runs out of
// memory. Neither is a timing assertion: a correct update fails at once.
func guardedUpdate(t *testing.T, opts Options) (*Report, error) {
	t.Helper()
	type result struct {
		rep *Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := Update(context.Background(), opts)
		done <- result{rep, err}
	}()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	deadline := time.After(3 * time.Minute)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			return r.rep, r.err
		case <-deadline:
			t.Fatal("Update still running after 3 minutes (a FIFO read blocks)")
		case <-tick.C:
			metrics.Read(sample)
			if sample[0].Value.Uint64() > 512<<20 {
				panic("Update: the heap passed 512 MiB: a read is unbounded")
			}
		}
	}
}

// smallPackage makes an upstream repository with the releases (under p/), fetches v1
// into a git work tree as kpt would, applies local (a value "" removes a file),
// commits, and returns the package directory.
func smallPackage(t *testing.T, local map[string]string, releases ...release) string {
	t.Helper()
	repo := upstreamRepo(t, "p", releases...)
	work := filepath.Join(t.TempDir(), "work")
	git(t, t.TempDir(), "init", "-q", work)
	dir := filepath.Join(work, "pkg")
	kptGet(t, "file://"+repo, "/p", "v1", dir)
	writeFiles(t, dir, local)
	git(t, work, "add", "-A")
	git(t, work, "commit", "-qm", "get")
	return dir
}

var kptfileV1 = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n"

func sameSnapshot(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	if after := snapshot(t, dir); !reflect.DeepEqual(after, before) {
		t.Error("the failed update changed the package")
	}
}

// A Kptfile (the package's or a subpackage's) that is a symbolic link to /dev/zero or a
// FIFO: an error naming it, at once. Before, the link was followed and read until
// memory ran out, and the FIFO blocked forever.
func TestAttackSpecialKptfile(t *testing.T) {
	v1 := release{tag: "v1", files: map[string]string{"Kptfile": kptfileV1, "a.txt": "a\n"}}
	v2 := release{tag: "v2", files: map[string]string{"a.txt": "a2\n"}}
	for name, at := range map[string]string{"root": "Kptfile", "subpackage": "sub/Kptfile"} {
		t.Run(name+" symlink to dev zero", func(t *testing.T) {
			dir := smallPackage(t, map[string]string{"sub/s.txt": "s\n"}, v1, v2)
			kf := filepath.Join(dir, filepath.FromSlash(at))
			_ = os.Remove(kf)
			if err := os.Symlink("/dev/zero", kf); err != nil {
				t.Fatal(err)
			}
			git(t, filepath.Dir(dir), "add", "-A")
			git(t, filepath.Dir(dir), "commit", "-qm", "link")
			before := snapshot(t, dir)
			_, err := guardedUpdate(t, options(dir, t))
			if err == nil || !strings.Contains(err.Error(), at) || !strings.Contains(err.Error(), "symbolic links are not supported") {
				t.Errorf("error %v, want one naming %s as a symbolic link", err, at)
			}
			sameSnapshot(t, dir, before)
		})
		t.Run(name+" FIFO", func(t *testing.T) {
			dir := smallPackage(t, map[string]string{"sub/s.txt": "s\n"}, v1, v2)
			kf := filepath.Join(dir, filepath.FromSlash(at))
			_ = os.Remove(kf)
			if err := syscall.Mkfifo(kf, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			opts := options(dir, t)
			opts.AllowDirty = true // git cannot commit a FIFO
			_, err := guardedUpdate(t, opts)
			if err == nil || !strings.Contains(err.Error(), at) || !strings.Contains(err.Error(), "named pipe") {
				t.Errorf("error %v, want one naming %s as a FIFO", err, at)
			}
			if fi, err := os.Lstat(kf); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO changed: %v %v", fi, err)
			}
		})
	}
}

// A file over Options.MaxFileSize, in the package or in the upstream release: an error
// naming it (and the upstream), nothing written.
func TestAttackFileOverTheLimit(t *testing.T) {
	big := strings.Repeat("x", 5000) + "\n"
	v1 := release{tag: "v1", files: map[string]string{"Kptfile": kptfileV1, "a.txt": "a\n"}}
	v2 := release{tag: "v2", files: map[string]string{"a.txt": "a2\n", "huge.txt": big}}
	t.Run("local", func(t *testing.T) {
		dir := smallPackage(t, map[string]string{"local.bin": big}, v1, release{tag: "v2", files: map[string]string{"a.txt": "a2\n"}})
		before := snapshot(t, dir)
		opts := options(dir, t)
		opts.MaxFileSize = 4096
		_, err := guardedUpdate(t, opts)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "local.bin") || !strings.Contains(err.Error(), "4096") {
			t.Errorf("error %v, want ErrTooLarge naming local.bin and the limit", err)
		}
		sameSnapshot(t, dir, before)
	})
	t.Run("upstream", func(t *testing.T) {
		dir := smallPackage(t, nil, v1, v2)
		before := snapshot(t, dir)
		opts := options(dir, t)
		opts.MaxFileSize = 4096
		_, err := guardedUpdate(t, opts)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "huge.txt") || !strings.Contains(err.Error(), "upstream") {
			t.Errorf("error %v, want ErrTooLarge naming huge.txt in the upstream", err)
		}
		sameSnapshot(t, dir, before)
		opts.MaxFileSize = -1
		if _, err := Update(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "MaxFileSize") {
			t.Errorf("a negative limit: %v", err)
		}
	})
}

// fileList is the report's files as "action path".
func fileList(rep *Report) []string {
	var out []string
	for _, f := range rep.Files {
		out = append(out, f.Action+" "+f.Path)
	}
	sort.Strings(out)
	return out
}

// A file replacing a directory or a directory replacing a file, in either direction:
// a conflict under onConflict when both sides changed the path (never a silent
// deletion), upstream's change when the local copy is as the old release had it. Each
// case runs as a plan first (the decision), then for real (the write, which needs
// pkg/pkgupdate/internal/stage to turn a directory into a file and back in one update).
func TestAttackFileVersusDirectory(t *testing.T) {
	kf := map[string]string{"Kptfile": kptfileV1}
	with := func(base map[string]string, files map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range files {
			out[k] = v
		}
		return out
	}
	type want struct {
		conflict string   // "" for none; else words the conflict's message holds
		files    []string // the report's files, sorted, the Kptfile left out
		exists   []string // paths that are files afterwards
		gone     []string // paths that exist no more
	}
	for _, tc := range []struct {
		name     string
		v1, v2   map[string]string
		local    map[string]string
		policies map[config.ConflictPolicy]want
	}{{
		// the reported defect: upstream adds a file docs, the local copy has a directory
		// docs/ of its own files
		name:  "upstream adds a file where the local copy has a directory",
		v1:    with(kf, map[string]string{"a.txt": "a\n"}),
		v2:    map[string]string{"docs": "upstream's docs\n"},
		local: map[string]string{"docs/guide.md": "# guide\n", "docs/faq.md": "# faq\n"},
		policies: map[config.ConflictPolicy]want{
			config.UpdatedWins: {conflict: "a directory of 2 files", files: []string{"added docs", "deleted docs/faq.md", "deleted docs/guide.md"},
				exists: []string{"docs"}, gone: []string{"docs/guide.md"}},
			config.DestWins:       {conflict: "a directory of 2 files", exists: []string{"docs/guide.md", "docs/faq.md"}},
			config.FailOnConflict: {conflict: "a directory of 2 files", exists: []string{"docs/guide.md", "docs/faq.md"}},
		},
	}, {
		name:  "upstream adds a directory where the local copy has a file",
		v1:    with(kf, map[string]string{"a.txt": "a\n"}),
		v2:    map[string]string{"docs/new.md": "# new\n"},
		local: map[string]string{"docs": "our notes\n"},
		policies: map[config.ConflictPolicy]want{
			config.UpdatedWins: {conflict: "a directory of 1 file", files: []string{"added docs/new.md", "deleted docs"},
				exists: []string{"docs/new.md"}},
			config.DestWins:       {conflict: "a directory of 1 file", exists: []string{"docs"}},
			config.FailOnConflict: {conflict: "a directory of 1 file", exists: []string{"docs"}},
		},
	}, {
		name:  "upstream turns a file into a directory the local copy changed",
		v1:    with(kf, map[string]string{"x": "x1\n"}),
		v2:    map[string]string{"x": "", "x/readme.md": "# x\n"},
		local: map[string]string{"x": "x, ours\n"},
		policies: map[config.ConflictPolicy]want{
			config.UpdatedWins:    {conflict: "a file", files: []string{"added x/readme.md", "deleted x"}, exists: []string{"x/readme.md"}},
			config.DestWins:       {conflict: "a file", exists: []string{"x"}},
			config.FailOnConflict: {conflict: "a file", exists: []string{"x"}},
		},
	}, {
		name:  "upstream turns a directory into a file the local copy added to",
		v1:    with(kf, map[string]string{"docs/a.md": "a\n"}),
		v2:    map[string]string{"docs/a.md": "", "docs": "one file now\n"},
		local: map[string]string{"docs/ours.md": "ours\n"},
		policies: map[config.ConflictPolicy]want{
			config.UpdatedWins: {conflict: "a directory of 2 files", files: []string{"added docs", "deleted docs/a.md", "deleted docs/ours.md"},
				exists: []string{"docs"}},
			config.DestWins:       {conflict: "a directory of 2 files", exists: []string{"docs/a.md", "docs/ours.md"}},
			config.FailOnConflict: {conflict: "a directory of 2 files", exists: []string{"docs/a.md", "docs/ours.md"}},
		},
	}, {
		name:  "the local copy turned a file into a directory and upstream changed the file",
		v1:    with(kf, map[string]string{"x": "x1\n"}),
		v2:    map[string]string{"x": "x2\n"},
		local: map[string]string{"x": "", "x/ours.md": "ours\n"},
		policies: map[config.ConflictPolicy]want{
			config.UpdatedWins:    {conflict: "a directory of 1 file", files: []string{"added x", "deleted x/ours.md"}, exists: []string{"x"}},
			config.DestWins:       {conflict: "a directory of 1 file", exists: []string{"x/ours.md"}},
			config.FailOnConflict: {conflict: "a directory of 1 file", exists: []string{"x/ours.md"}},
		},
	}, {
		// no conflict: the local copy is as the old release had it
		name:  "upstream turns an unchanged file into a directory",
		v1:    with(kf, map[string]string{"x": "x1\n"}),
		v2:    map[string]string{"x": "", "x/readme.md": "# x\n"},
		local: nil,
		policies: map[config.ConflictPolicy]want{
			config.FailOnConflict: {files: []string{"added x/readme.md", "deleted x"}, exists: []string{"x/readme.md"}},
		},
	}, {
		name:  "upstream turns an unchanged directory into a file",
		v1:    with(kf, map[string]string{"docs/a.md": "a\n", "docs/b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"}),
		v2:    map[string]string{"docs/a.md": "", "docs/b.yaml": "", "docs": "one file now\n"},
		local: nil,
		policies: map[config.ConflictPolicy]want{
			config.FailOnConflict: {files: []string{"added docs", "deleted docs/a.md", "deleted docs/b.yaml"}, exists: []string{"docs"}},
		},
	}, {
		name:  "the local copy turned a file into a directory, upstream left it",
		v1:    with(kf, map[string]string{"x": "x1\n", "a.txt": "a\n"}),
		v2:    map[string]string{"a.txt": "a2\n"},
		local: map[string]string{"x": "", "x/ours.md": "ours\n"},
		policies: map[config.ConflictPolicy]want{
			config.FailOnConflict: {files: []string{"modified a.txt"}, exists: []string{"x/ours.md"}},
		},
	}} {
		for policy, w := range tc.policies {
			t.Run(tc.name+"/"+string(policy), func(t *testing.T) {
				dir := smallPackage(t, tc.local, release{tag: "v1", files: tc.v1}, release{tag: "v2", files: tc.v2})
				before := snapshot(t, dir)
				opts := options(dir, t)
				opts.Merge = defaultMerge()
				opts.Merge.OnConflict = policy
				opts.Plan = true
				rep, err := Update(context.Background(), opts)
				if rep == nil {
					t.Fatalf("plan: %v", err)
				}
				sameSnapshot(t, dir, before)
				var conflicts []string
				for _, c := range rep.Packages[0].Conflicts {
					conflicts = append(conflicts, c.String())
				}
				if w.conflict == "" {
					if len(conflicts) != 0 || err != nil {
						t.Errorf("conflicts %q, error %v; want none", conflicts, err)
					}
				} else if len(conflicts) != 1 || !strings.Contains(conflicts[0], w.conflict) {
					t.Errorf("conflicts %q, want one saying %q", conflicts, w.conflict)
				}
				if n := rep.Packages[0].Counts.Conflicts; n != len(conflicts) {
					t.Errorf("counts.conflicts %d, want the %d conflicts listed", n, len(conflicts))
				}
				var files []string
				for _, f := range fileList(rep) {
					if f != "modified Kptfile" {
						files = append(files, f)
					}
				}
				if policy == config.FailOnConflict && w.conflict != "" {
					var ce *ConflictError
					if !errors.As(err, &ce) {
						t.Errorf("error %v, want a ConflictError", err)
					}
				} else if !reflect.DeepEqual(files, w.files) {
					t.Errorf("files %q, want %q", files, w.files)
				}
				// the write
				opts.Plan = false
				rep, err = Update(context.Background(), opts)
				if policy == config.FailOnConflict && w.conflict != "" {
					var ce *ConflictError
					if !errors.As(err, &ce) {
						t.Errorf("error %v, want a ConflictError", err)
					}
					sameSnapshot(t, dir, before)
					return
				}
				if err != nil {
					t.Fatalf("update: %v", err)
				}
				for _, p := range w.exists {
					if fi, err := os.Lstat(filepath.Join(dir, p)); err != nil || !fi.Mode().IsRegular() {
						t.Errorf("%s: %v, want a file", p, err)
					}
				}
				for _, p := range w.gone {
					if _, err := os.Lstat(filepath.Join(dir, p)); err == nil { // (ENOTDIR when its directory is a file now)
						t.Errorf("%s is still there", p)
					}
				}
			})
		}
	}
}

// A file upstream adds where the package has a directory holding nothing the update
// reads (an empty directory; a nested repository): an error naming it, never a write
// that replaces the directory unseen.
func TestAttackFileOverAnUnreadDirectory(t *testing.T) {
	v1 := release{tag: "v1", files: map[string]string{"Kptfile": kptfileV1, "a.txt": "a\n"}}
	v2 := release{tag: "v2", files: map[string]string{"docs": "upstream's docs\n"}}
	for name, make := range map[string]func(t *testing.T, docs string){
		"empty": func(t *testing.T, docs string) {},
		"nested repository": func(t *testing.T, docs string) {
			git(t, t.TempDir(), "init", "-q", docs)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := smallPackage(t, nil, v1, v2)
			docs := filepath.Join(dir, "docs")
			if err := os.Mkdir(docs, 0o755); err != nil {
				t.Fatal(err)
			}
			make(t, docs)
			before := snapshot(t, dir)
			opts := options(dir, t)
			opts.AllowDirty = true
			for _, plan := range []bool{true, false} {
				opts.Plan = plan
				_, err := Update(context.Background(), opts)
				if err == nil || !strings.Contains(err.Error(), "docs: upstream adds a file here, where the package has a directory") {
					t.Errorf("plan %v: error %v, want one naming docs", plan, err)
				}
			}
			sameSnapshot(t, dir, before)
			if fi, err := os.Lstat(docs); err != nil || !fi.IsDir() {
				t.Errorf("docs: %v %v", fi, err)
			}
		})
	}
}

// A binary file (a NUL byte in its first 8000 bytes, as git decides) is never printed:
// the plan's diff says "Binary files differ" as git's does.
func TestAttackBinaryInThePlan(t *testing.T) {
	bin1 := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR one\n\x1b[2J"
	bin2 := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR two\n\x1b[2J"
	dir := smallPackage(t, nil,
		release{tag: "v1", files: map[string]string{"Kptfile": kptfileV1, "logo.png": bin1, "gone.bin": bin1}},
		release{tag: "v2", files: map[string]string{"logo.png": bin2, "new.bin": bin2, "gone.bin": ""}})
	opts := options(dir, t)
	opts.Plan = true
	rep, err := Update(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range rep.Files {
		if f.Path == "Kptfile" {
			continue
		}
		seen++
		if f.Diff != "Binary files differ\n" {
			t.Errorf("%s %s: diff %q, want Binary files differ", f.Action, f.Path, f.Diff)
		}
	}
	if seen != 3 {
		t.Errorf("files %q", fileList(rep))
	}
}

// The package given through a symbolic link (a checkout reached through a link) is
// updated; the report names it as given.
func TestAttackDirThroughSymlink(t *testing.T) {
	dir := smallPackage(t, nil,
		release{tag: "v1", files: map[string]string{"Kptfile": kptfileV1, "a.txt": "a\n"}},
		release{tag: "v2", files: map[string]string{"a.txt": "a2\n"}})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	opts := options(link, t)
	rep, err := Update(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Dir != link {
		t.Errorf("report's dir %q, want %q as given", rep.Dir, link)
	}
	if got := read(t, filepath.Join(dir, "a.txt")); got != "a2\n" {
		t.Errorf("a.txt %q", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
}

// An upstream release whose tree holds a .git component in another case (.GIT, which
// git itself never commits but a crafted tree can hold, and which a case-insensitive
// filesystem takes for .git): refused, nothing written.
func TestAttackUpstreamGitDirectory(t *testing.T) {
	dir := smallPackage(t, nil,
		release{tag: "v1", files: map[string]string{"Kptfile": kptfileV1, "a.txt": "a\n"}},
		release{tag: "v2", files: map[string]string{"a.txt": "a2\n"}})
	// v3: v2's tree with p/.GIT/config and p/sub/.Git/hooks/post-checkout, built by hand
	kf := read(t, filepath.Join(dir, "Kptfile"))
	i := strings.Index(kf, "repo: file://")
	repo := strings.TrimPrefix(strings.SplitN(kf[i:], "\n", 2)[0], "repo: file://")
	blob := gitIn(t, repo, "config\n", "hash-object", "-w", "--stdin")
	gitDir := gitIn(t, repo, "100644 blob "+blob+"\tconfig\n", "mktree")
	hooks := gitIn(t, repo, "100755 blob "+blob+"\tpost-checkout\n", "mktree")
	dotGit := gitIn(t, repo, "040000 tree "+hooks+"\thooks\n", "mktree")
	sub := gitIn(t, repo, "040000 tree "+dotGit+"\t.Git\n", "mktree")
	var entries []string
	for _, l := range strings.Split(git(t, repo, "ls-tree", "v2:p"), "\n") {
		entries = append(entries, l)
	}
	entries = append(entries, "040000 tree "+gitDir+"\t.GIT", "040000 tree "+sub+"\tsub")
	p := gitIn(t, repo, strings.Join(entries, "\n")+"\n", "mktree")
	root := gitIn(t, repo, "040000 tree "+p+"\tp\n", "mktree")
	commit := gitIn(t, repo, "", "commit-tree", root, "-p", "v2", "-m", "v3")
	git(t, repo, "tag", "v3", commit)
	before := snapshot(t, dir)
	opts := options(dir, t)
	opts.Version = "v3"
	_, err := Update(context.Background(), opts)
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), ".git") {
		t.Errorf("error %v, want a refusal of the .git path", err)
	}
	sameSnapshot(t, dir, before)
	for _, p := range []string{".GIT", "sub"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s was written: %v", p, err)
		}
	}
}

// gitIn runs git in dir with stdin and returns its trimmed output.
func gitIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := gitCommand(dir, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// Upstream adds a file where the package has a directory holding a subpackage with its
// own upstream: never replaced. Under updated the update fails naming it; under dest
// the subpackage stays.
func TestAttackFileOverASubpackage(t *testing.T) {
	dir := smallPackage(t, nil,
		release{tag: "v1", files: map[string]string{"Kptfile": kptfileV1, "a.txt": "a\n"}},
		release{tag: "v2", files: map[string]string{"vendor": "upstream's vendor file\n"}})
	subRepo := upstreamRepo(t, "db", release{tag: "v1", files: map[string]string{
		"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: db\n", "db.txt": "db\n"}})
	kptGet(t, "file://"+subRepo, "/db", "v1", filepath.Join(dir, "vendor", "db"))
	git(t, filepath.Dir(dir), "add", "-A")
	git(t, filepath.Dir(dir), "commit", "-qm", "add vendor/db")
	before := snapshot(t, dir)
	opts := options(dir, t)
	_, err := Update(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "vendor: a file on one side") || !strings.Contains(err.Error(), "subpackage") {
		t.Errorf("updated: error %v, want one naming vendor and the subpackage", err)
	}
	sameSnapshot(t, dir, before)
	opts.Merge = defaultMerge()
	opts.Merge.OnConflict = config.DestWins
	rep, err := Update(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Packages[0].Conflicts; len(c) != 1 || c[0].File != "vendor" || !strings.Contains(c[0].Message, "dest wins") {
		t.Errorf("conflicts %+v", c)
	}
	if got := read(t, filepath.Join(dir, "vendor", "db", "db.txt")); got != "db\n" {
		t.Errorf("the subpackage changed: %q", got)
	}
}
