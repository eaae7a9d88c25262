package testsupport

import (
	"os"
	"path/filepath"
	"testing"
)

// CopyWork copies the directory work (a git work tree, its .git too) to a new
// directory under t's temporary directory and returns it: the same packages and
// history, to run a second update on and compare the trees. Fails t on an error
// (os.CopyFS's: a symbolic link in work, an unreadable file).
func CopyWork(t testing.TB, work string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "work")
	if err := os.CopyFS(to, os.DirFS(work)); err != nil {
		t.Fatal(err)
	}
	return to
}
