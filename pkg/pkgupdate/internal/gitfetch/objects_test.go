package gitfetch

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Crafted git objects, written as loose objects straight into a repository's object
// store: trees git itself would never make (duplicate entries, symbolic links beside
// files of the same name, `.git` components, names with control characters), without a
// git process per object (the fuzz target builds thousands).

// object writes a loose object of type typ ("blob", "tree", "commit") holding data into
// gitDir (a bare repository or a work tree's .git) and returns its id.
func object(t testing.TB, gitDir, typ string, data []byte) string {
	t.Helper()
	return (&objectWriter{gitDir: gitDir}).write(t, typ, data)
}

// objectWriter writes loose objects into a repository, remembering the files it made
// so that they can be removed after the execution (the cache stays small).
type objectWriter struct {
	gitDir string
	made   []string
}

func (w *objectWriter) write(t testing.TB, typ string, data []byte) string {
	full := append([]byte(fmt.Sprintf("%s %d\x00", typ, len(data))), data...)
	sum := sha1.Sum(full)
	id := hex.EncodeToString(sum[:])
	p := filepath.Join(w.gitDir, "objects", id[:2], id[2:])
	if _, err := os.Stat(p); err == nil {
		return id
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(full)
	zw.Close()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, z.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
	w.made = append(w.made, p)
	return id
}

func (w *objectWriter) clean() {
	for _, p := range w.made {
		os.Remove(p)
	}
	w.made = nil
}

// entry is one entry of a crafted tree: mode as git writes it ("100644", "100755",
// "120000", "40000", "160000", or anything else), name as raw bytes, object id.
type entry struct{ mode, name, id string }

// tree writes a tree object with the entries in the order given (unsorted, duplicates
// kept) and returns its id.
func tree(t testing.TB, gitDir string, entries ...entry) string {
	t.Helper()
	var b bytes.Buffer
	for _, e := range entries {
		raw, err := hex.DecodeString(e.id)
		if err != nil || len(raw) != 20 {
			t.Fatalf("entry %q: bad id %q", e.name, e.id)
		}
		b.WriteString(e.mode + " " + e.name + "\x00")
		b.Write(raw)
	}
	return object(t, gitDir, "tree", b.Bytes())
}

// commitObject writes a commit of tree (with a fixed author and date) and returns its id.
func commitObject(t testing.TB, gitDir, tree string, parents ...string) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("tree " + tree + "\n")
	for _, p := range parents {
		b.WriteString("parent " + p + "\n")
	}
	b.WriteString("author t <t@example.com> 1700000000 +0000\ncommitter t <t@example.com> 1700000000 +0000\n\ncrafted\n")
	return object(t, gitDir, "commit", b.Bytes())
}

// setRef points ref (refs/tags/v1) of gitDir at id.
func setRef(t testing.TB, gitDir, ref, id string) {
	t.Helper()
	p := filepath.Join(gitDir, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(id+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func blob(t testing.TB, gitDir, content string) string {
	return object(t, gitDir, "blob", []byte(content))
}
