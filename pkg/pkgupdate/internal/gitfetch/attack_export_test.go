package gitfetch

// The attacks on Export and the fetch's object checks: crafted trees (symbolic links,
// names twice, .git in any spelling, odd names, huge blobs) built as real git objects.

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// crafted makes a commit of the given root tree entries in gitDir, tags it, and returns
// the commit.
func crafted(t *testing.T, gitDir, tag string, entries ...entry) string {
	t.Helper()
	c := commitObject(t, gitDir, tree(t, gitDir, entries...))
	if tag != "" {
		setRef(t, gitDir, "refs/tags/"+tag, c)
	}
	return c
}

// Objects are checked as they are fetched (fetch.fsckObjects): duplicate entries, `.git`
// and the like are refused even when the user's configuration ignores them; the legacy
// zero-padded file modes of old repositories are accepted.
func TestFetchChecksObjects(t *testing.T) {
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	g := filepath.Join(up, ".git")
	b := blob(t, g, "x\n")
	sub := tree(t, g, entry{"100644", "f", b})
	crafted(t, g, "dup", entry{"100644", "f", b}, entry{"100644", "f", b})
	crafted(t, g, "dupdir", entry{"40000", "f", sub}, entry{"100644", "f", b})
	crafted(t, g, "dotgit", entry{"40000", "pkg", tree(t, g, entry{"100644", ".GIT", b})})
	crafted(t, g, "zeropadded", entry{"040000", "pkg", sub})
	global := filepath.Join(t.TempDir(), "gitconfig")
	write(t, global, "[fetch \"fsck\"]\n\tduplicateEntries = ignore\n\thasDotgit = ignore\n", 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	f := &Fetcher{CacheDir: t.TempDir()}
	for tag, msg := range map[string]string{"dup": "duplicateEntries", "dupdir": "duplicateEntries", "dotgit": "hasDotgit"} {
		if _, err := f.Resolve(ctx, "file://"+up, "/", tag); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Resolve(%s): %v, want git's %s", tag, err, msg)
		}
	}
	r, err := f.Resolve(ctx, "file://"+up, "/", "zeropadded")
	if err != nil {
		t.Fatalf("zero-padded file modes: %v", err)
	}
	dst := filepath.Join(t.TempDir(), "out")
	if err := f.Export(ctx, "file://"+up, r.Commit, "/pkg", dst); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dst, "f")); err != nil || string(got) != "x\n" {
		t.Errorf("export of a zero-padded tree: %q, %v", got, err)
	}
}

// exportCrafted puts a commit of the given root entries into the cache repository of a
// real upstream (bypassing the checks of a fetch: objects a fetch let in before, or a
// user's configuration turned off), and exports it into a new dst next to a file
// outside it. It returns the export's error, dst and the outside file.
func exportCrafted(t *testing.T, directory string, build func(g string) []entry) (err error, dst, outside string) {
	t.Helper()
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir()}
	if _, err := f.Resolve(ctx, "file://"+up, "/", "v1"); err != nil {
		t.Fatal(err)
	}
	g := cacheRepo(t, f)
	c := commitObject(t, g, tree(t, g, build(g)...))
	base := t.TempDir()
	outside = filepath.Join(base, "outside")
	write(t, filepath.Join(outside, "keep"), "keep\n", 0o644)
	dst = filepath.Join(base, "dst")
	return f.Export(ctx, "file://"+up, c, directory, dst), dst, outside
}

// checkContained fails when anything under outside changed or a symbolic link is in dst.
func checkContained(t *testing.T, dst, outside string) {
	t.Helper()
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 || entries[0].Name() != "keep" {
		t.Errorf("written outside dst: %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "keep")); string(b) != "keep\n" {
		t.Errorf("outside/keep overwritten: %q", b)
	}
	filepath.Walk(dst, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("symbolic link created: %s", p)
		}
		return nil
	})
}

// A symbolic link and a file (or directory) of the same name: the file was written
// through the link, outside dst.
func TestExportNeverFollowsALink(t *testing.T) {
	cases := map[string]func(g, outside string) []entry{
		"link then file": func(g, outside string) []entry {
			return []entry{{"40000", "pkg", tree(t, g,
				entry{"120000", "f", blob(t, g, filepath.Join(outside, "keep"))},
				entry{"100644", "f", blob(t, g, "pwned\n")})}}
		},
		"link then directory": func(g, outside string) []entry {
			return []entry{{"40000", "pkg", tree(t, g,
				entry{"120000", "d", blob(t, g, outside)},
				entry{"40000", "d", tree(t, g, entry{"100644", "planted", blob(t, g, "pwned\n")})})}}
		},
		"file then directory": func(g, outside string) []entry {
			return []entry{{"40000", "pkg", tree(t, g,
				entry{"100644", "d", blob(t, g, "x\n")},
				entry{"40000", "d", tree(t, g, entry{"100644", "y", blob(t, g, "y\n")})})}}
		},
		"a link alone": func(g, outside string) []entry {
			return []entry{{"40000", "pkg", tree(t, g, entry{"120000", "f", blob(t, g, outside)})}}
		},
		"a link to a relative path": func(g, outside string) []entry {
			return []entry{{"40000", "pkg", tree(t, g, entry{"120000", "f", blob(t, g, "../../outside/keep")})}}
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			err, dst, out := exportCraftedWith(t, build)
			if err == nil {
				t.Error("exported")
			} else if strings.Contains(name, "link") && !strings.Contains(err.Error(), "symbolic links are not supported") {
				t.Errorf("error %v, want the symbolic link named", err)
			} else if !strings.Contains(err.Error(), "pkg/") {
				t.Errorf("error %v, want the path named", err)
			}
			checkContained(t, dst, out)
		})
	}
}

// exportCraftedWith is exportCrafted with the outside path known to build.
func exportCraftedWith(t *testing.T, build func(g, outside string) []entry) (err error, dst, outside string) {
	t.Helper()
	base := t.TempDir()
	outside = filepath.Join(base, "outside")
	write(t, filepath.Join(outside, "keep"), "keep\n", 0o644)
	err, dst, _ = exportCrafted(t, "/", func(g string) []entry { return build(g, outside) })
	return err, dst, outside
}

// Names git's verify_path refuses, and names with control characters or a backslash,
// at any depth; names that only look alike pass.
func TestExportRefusesDotGitAndOddNames(t *testing.T) {
	bad := []string{".git", ".GIT", ".Git", ".git.", ".git ", ".git. . ", "git~1", "GIT~1", ".git::$INDEX_ALLOCATION",
		".g\u200cit", ".GI\u200dT", ".git\ufeff", "a\x01b", "a\nb", "a\tb", "a\\b", "a\x7fb", "..", ".", "", "a/b", "../x"}
	for _, name := range bad {
		for _, depth := range []int{0, 2} {
			err, dst, out := exportCrafted(t, "/", func(g string) []entry {
				var inner entry
				if name == ".git" && depth == 2 { // a planted repository: .git a file pointing at a directory beside it
					inner = entry{"40000", "sub", tree(t, g,
						entry{"100644", ".git", blob(t, g, "gitdir: evil\n")},
						entry{"40000", "evil", tree(t, g, entry{"100644", "config", blob(t, g, "[core]\n\tfsmonitor = touch /tmp/x\n")}, entry{"100644", "HEAD", blob(t, g, "ref: refs/heads/main\n")})})}
				} else {
					inner = entry{"100644", name, blob(t, g, "x\n")}
				}
				for i := 0; i < depth; i++ {
					inner = entry{"40000", "d" + strconv.Itoa(i), tree(t, g, inner)}
				}
				return []entry{inner}
			})
			if err == nil {
				t.Errorf("%q at depth %d: exported", name, depth)
			}
			checkContained(t, dst, out)
		}
	}
	good := []string{".gitignore", ".github", ".gitkeep", "git", "x.git", ".git-foo", "git~10", "a:b", "..a", "a..", "ü.yaml"}
	err, dst, _ := exportCrafted(t, "/", func(g string) []entry {
		var es []entry
		for _, n := range good {
			es = append(es, entry{"100644", n, blob(t, g, n)})
		}
		return es
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range good {
		if b, err := os.ReadFile(filepath.Join(dst, n)); err != nil || string(b) != n {
			t.Errorf("%q: %q, %v", n, b, err)
		}
	}
	// the directory exported is checked too
	if err, _, _ := exportCrafted(t, "/.GIT", func(g string) []entry {
		return []entry{{"40000", ".GIT", tree(t, g, entry{"100644", "f", blob(t, g, "x\n")})}}
	}); err == nil {
		t.Error("exported the directory /.GIT")
	}
}

// Blobs are streamed to their files, each under MaxFileSize, checked before reading.
func TestExportLimitsFileSize(t *testing.T) {
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	write(t, filepath.Join(up, "catalog/app/big.bin"), strings.Repeat("\x00", 2<<20), 0o644)
	git(t, up, "add", "-A")
	git(t, up, "commit", "-qm", "big")
	git(t, up, "tag", "big")
	f := &Fetcher{CacheDir: t.TempDir(), MaxFileSize: 1 << 20}
	r, err := f.Resolve(ctx, "file://"+up, "/", "big")
	if err != nil {
		t.Fatal(err)
	}
	err = f.Export(ctx, "file://"+up, r.Commit, "/catalog/app", filepath.Join(t.TempDir(), "out"))
	if err == nil || !strings.Contains(err.Error(), "big.bin") || !strings.Contains(err.Error(), "2097152") ||
		!strings.Contains(err.Error(), "1048576") {
		t.Errorf("error %v, want the file, its size and the limit", err)
	}
	f.MaxFileSize = 2 << 20
	dst := filepath.Join(t.TempDir(), "out")
	if err := f.Export(ctx, "file://"+up, r.Commit, "/catalog/app", dst); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dst, "big.bin")); err != nil || fi.Size() != 2<<20 {
		t.Errorf("big.bin at the limit: %v, %v", fi, err)
	}
	if DefaultMaxFileSize != 64<<20 {
		t.Errorf("DefaultMaxFileSize %d", DefaultMaxFileSize)
	}
}
