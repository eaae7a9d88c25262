package gitfetch

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// fuzzNames are the names a fuzzed tree draws from: `.git` and its aliases, the dot
// names, separators, control characters, long names, and ordinary ones (index 0 and
// up); a name byte past the table takes raw bytes from the input instead.
var fuzzNames = []string{"a", "b", "A", "x.yaml", "Kptfile", ".gitignore", "git~10", "a:b", "ü",
	".git", ".GIT", ".Git", "git~1", ".git.", ".git ", ".g\u200cit", ".git::$DATA",
	"..", ".", "", "a/b", "a\\b", "a\x01", "a\nb", "\x00",
	strings.Repeat("d", 200), strings.Repeat("e", 300)}

// fuzzModes are the modes a fuzzed entry draws from, with what Export makes of them:
// "file", "exec", "dir", "link", "gitlink", or "bad".
var fuzzModes = []struct{ mode, kind string }{
	{"100644", "file"}, {"100755", "exec"}, {"100664", "file"}, {"100000", "file"}, {"0100644", "file"},
	{"120000", "link"}, {"40000", "dir"}, {"040000", "dir"}, {"160000", "gitlink"},
	{"777", "bad"}, {"1234567", "bad"}, {"12345678", "bad"}, {"", "bad"}, {"10a644", "bad"}}

// fuzzTree is a tree decoded from the input.
type fuzzTree struct {
	entries []fuzzEntry
}

type fuzzEntry struct {
	mode, kind, name string
	content          string    // a file's or a link's
	sub              *fuzzTree // a directory's
}

// decodeTree reads a tree from in: each entry takes a mode byte, a name byte (raw
// bytes follow when the name byte is past fuzzNames: their count, then the bytes) and,
// for a file or link, a content byte (an index into the link targets, or a length);
// a directory's entries follow until a 0xff byte. At most 80 entries, 12 levels.
func decodeTree(in []byte, targets []string) *fuzzTree {
	pos, n := 0, 0
	next := func() (byte, bool) {
		if pos >= len(in) {
			return 0, false
		}
		pos++
		return in[pos-1], true
	}
	var read func(depth int) *fuzzTree
	read = func(depth int) *fuzzTree {
		t := &fuzzTree{}
		for n < 80 {
			mb, ok := next()
			if !ok || mb == 0xff {
				return t
			}
			m := fuzzModes[int(mb)%len(fuzzModes)]
			nb, ok := next()
			if !ok {
				return t
			}
			e := fuzzEntry{mode: m.mode, kind: m.kind}
			if int(nb) < len(fuzzNames) {
				e.name = fuzzNames[nb]
			} else {
				l, _ := next()
				for i := 0; i < int(l%16); i++ {
					if c, _ := next(); c != 0 { // git cannot store a NUL in a name
						e.name += string([]byte{c})
					}
				}
			}
			n++
			switch m.kind {
			case "dir":
				if depth < 12 {
					e.sub = read(depth + 1)
				} else {
					e.sub = &fuzzTree{}
				}
			case "link":
				c, _ := next()
				e.content = targets[int(c)%len(targets)]
			case "file", "exec", "bad", "gitlink":
				c, _ := next()
				if c == 0xfe {
					e.content = strings.Repeat("z", 5000) // over MaxFileSize
				} else {
					e.content = strings.Repeat(string(rune('a'+c%26)), int(c%64))
				}
			}
			t.entries = append(t.entries, e)
		}
		return t
	}
	return read(0)
}

// build writes t as git objects and returns its id and the size of its object.
func (w *objectWriter) build(tb testing.TB, t *fuzzTree) (string, int) {
	var b bytes.Buffer
	for _, e := range t.entries {
		var id string
		switch e.kind {
		case "dir":
			id, _ = w.build(tb, e.sub)
		case "gitlink":
			sum := sha1.Sum([]byte(e.content))
			id = hex.EncodeToString(sum[:]) // a commit that is nowhere
		default:
			id = w.write(tb, "blob", []byte(e.content))
		}
		raw, _ := hex.DecodeString(id)
		b.WriteString(e.mode + " " + e.name + "\x00")
		b.Write(raw)
	}
	return w.write(tb, "tree", b.Bytes()), b.Len()
}

// The limits FuzzExport runs Export with.
const (
	fuzzMaxFile  = 4096
	fuzzMaxTotal = 16 << 10
	fuzzMaxFiles = 60
)

// expect says whether Export of t must succeed, and what it must write then: each
// file's path with its mode and content, and each directory's (mode "dir").
func expect(t *fuzzTree) (ok bool, files map[string]string) {
	files = map[string]string{}
	ok = true
	count, total := 0, 0
	var walk func(t *fuzzTree, dir string, size int)
	walk = func(t *fuzzTree, dir string, size int) {
		var b bytes.Buffer
		seen := map[string]bool{}
		for _, e := range t.entries {
			b.WriteString(e.mode + " " + e.name + "\x00" + strings.Repeat("x", 20))
			p := path.Join(dir, e.name)
			count++
			if checkName(e.name) != nil || seen[e.name] || len(p) > maxPath {
				ok = false
			}
			if len(e.name) > 255 && e.kind != "gitlink" { // the file system's NAME_MAX
				ok = false
			}
			seen[e.name] = true
			switch e.kind {
			case "dir":
				files[p] = "dir"
				walk(e.sub, p, 0)
			case "file", "exec":
				files[p] = e.kind + "\n" + e.content
				total += len(e.content)
				if len(e.content) > fuzzMaxFile {
					ok = false
				}
			case "link", "bad":
				ok = false
			}
		}
		if b.Len() > fuzzMaxFile {
			ok = false
		}
	}
	walk(t, "", 0)
	if count > fuzzMaxFiles || total > fuzzMaxTotal {
		ok = false
	}
	return ok, files
}

// listing maps every path under root (but skip, a path relative to root) to its kind
// and content: what must not change outside the export.
func listing(t testing.TB, root string, skip ...string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		for _, s := range skip {
			if rel == s {
				return filepath.SkipDir
			}
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case d.IsDir():
			out[rel] = "dir"
		default:
			b, _ := os.ReadFile(p)
			out[rel] = "file " + string(b)
		}
		return nil
	})
	return out
}

// FuzzExport: a tree decoded from the input (decodeTree: names from fuzzNames or raw
// bytes, every mode kind, symbolic links to files and directories outside the export,
// duplicate names, nesting, files over the size limit) is written as git objects into
// the cache repository and exported into a new directory of a sandbox. Properties:
// nothing in the sandbox outside the export and the cache (the link targets among
// it) changes; Export succeeds exactly when every entry is acceptable (expect, with
// checkName as the rule of names) and then writes exactly the tree's files and
// directories, with their content and executable bit, and no link; when it fails the
// export directory is gone.
func FuzzExport(f *testing.F) {
	testsupport.SetupFuzz(f)
	requireGitF(f)
	sandbox := f.TempDir()
	outside := filepath.Join(sandbox, "outside")
	if err := os.MkdirAll(filepath.Join(outside, "dir"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "keep"), []byte("keep\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	targets := []string{filepath.Join(outside, "keep"), filepath.Join(outside, "dir"), "../../outside/keep", "/", "..", "a", "../../../../../../../../tmp"}
	fetcher := &Fetcher{CacheDir: filepath.Join(sandbox, "cache"), MaxFileSize: fuzzMaxFile, MaxTotalSize: fuzzMaxTotal, MaxFiles: fuzzMaxFiles}
	const url = "file:///nonexistent/fuzz-upstream"
	ctx := context.Background()
	// make the cache repository (Export of a commit it does not hold fails)
	if err := fetcher.Export(ctx, url, strings.Repeat("0", 40), "/", filepath.Join(sandbox, "first")); err == nil {
		f.Fatal("export of a missing commit passed")
	}
	entries, _ := filepath.Glob(filepath.Join(fetcher.CacheDir, "*.git"))
	if len(entries) != 1 {
		f.Fatalf("cache holds %v", entries)
	}
	w := &objectWriter{gitDir: entries[0]}
	before := listing(f, sandbox, "cache", "dst")

	// seeds: ordinary trees, each attack of the attack tests, raw names
	f.Add([]byte{6, 0, 0, 3, 10, 1, 4, 5, 0xff, 0, 1, 7})    // a/x.yaml, a/Kptfile (executable), b
	f.Add([]byte{5, 0, 0, 0, 0, 3})                          // link a -> keep, file a
	f.Add([]byte{6, 0, 0, 0, 0, 0xff, 5, 0, 1})              // dir a, link a -> dir
	f.Add([]byte{5, 0, 1, 6, 0, 0, 3, 0xff})                 // link a -> dir, dir a with a file
	f.Add([]byte{6, 1, 0, 9, 0, 0xff, 6, 9, 0, 17, 0, 0xff}) // b/.git, .git/b
	f.Add([]byte{0, 13, 3, 0, 15, 3, 0, 16, 3, 0, 24, 3})
	f.Add([]byte{0, 200, 3, 'a', '/', 'b', 0, 200, 2, 0, 'x', 1})
	f.Add([]byte{6, 25, 6, 25, 6, 25, 6, 25, 6, 25, 6, 25, 6, 25, 6, 25, 6, 25, 6, 25, 6, 25, 6, 25, 0, 0, 1})
	f.Add([]byte{0, 0, 0xfe, 8, 1, 3, 9, 2, 3, 13, 3, 3, 4, 4, 10})
	f.Add(bytes.Repeat([]byte{0, 0, 1}, 70))
	n := 0
	f.Fuzz(func(t *testing.T, in []byte) {
		// Each execution runs git a few times (20-70 ms on a quiet machine).
		defer testsupport.GuardFor(t, 6*time.Second, in)()
		if len(in) > 4096 {
			return
		}
		defer w.clean()
		tree := decodeTree(in, targets)
		root, _ := w.build(t, tree)
		commit := w.write(t, "commit", []byte("tree "+root+"\nauthor t <t@example.com> 1700000000 +0000\ncommitter t <t@example.com> 1700000000 +0000\n\nfuzz\n"))
		n++
		dst := filepath.Join(sandbox, "dst", strconv.Itoa(n))
		defer os.RemoveAll(filepath.Join(sandbox, "dst"))
		err := fetcher.Export(ctx, url, commit, "/", dst)
		if after := listing(t, sandbox, "cache", "dst"); !maps.Equal(before, after) {
			t.Fatalf("the sandbox outside the export changed (error %v):\nbefore %q\nafter  %q", err, before, after)
		}
		ok, want := expect(tree)
		if ok != (err == nil) {
			t.Fatalf("Export: %v; want success %v", err, ok)
		}
		if err != nil {
			if _, serr := os.Lstat(dst); serr == nil {
				t.Fatalf("a failed export left %s", dst)
			}
			return
		}
		got := map[string]string{}
		for p, v := range listing(t, dst) {
			if p == "." {
				continue
			}
			p = filepath.ToSlash(p)
			if strings.HasPrefix(v, "file ") {
				fi, _ := os.Stat(filepath.Join(dst, p))
				kind := "file"
				if fi.Mode()&0o100 != 0 {
					kind = "exec"
				}
				v = kind + "\n" + strings.TrimPrefix(v, "file ")
			}
			got[p] = v
		}
		if !maps.Equal(got, want) {
			t.Fatalf("exported\n%s\nwant\n%s", describeListing(got), describeListing(want))
		}
	})
}

// describeListing prints a listing, one path a line, sorted.
func describeListing(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "  %q: %q\n", k, m[k])
	}
	return b.String()
}

func requireGitF(f *testing.F) {
	if err := CheckGit(); err != nil {
		f.Skip("git is not on PATH")
	}
}
