package pkgio

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"time"
)

// guarded runs read in a goroutine. A hang (a FIFO opened for reading blocks until a
// writer comes) fails the test after a generous deadline; memory growing past 512 MiB
// (a read of /dev/zero) panics, ending the test binary before the machine runs out.
// Neither is a timing assertion: a correct read returns at once.
func guarded(t *testing.T, what string, read func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- read() }()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	deadline := time.After(2 * time.Minute)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-deadline:
			t.Fatalf("%s: still reading after 2 minutes (a FIFO read blocks)", what)
		case <-tick.C:
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > 512<<20 {
				panic(what + ": the heap passed 512 MiB: the read is unbounded")
			}
		}
	}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

func wantError(t *testing.T, err error, path string, says ...string) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) || pe.Path != path {
		t.Fatalf("error %v, want one naming %s", err, path)
	}
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
}

// A FIFO, a device or a socket in a package is an error naming it: reading a FIFO
// blocks forever, reading a device (/dev/zero) never ends.
func TestReadRefusesSpecialFiles(t *testing.T) {
	t.Run("fifo Kptfile", func(t *testing.T) {
		root := writeTree(t, map[string]string{"a.yaml": "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n"})
		mkfifo(t, filepath.Join(root, "Kptfile"))
		err := guarded(t, "Read", func() error { _, err := Read(root, Options{}); return err })
		wantError(t, err, "Kptfile", "named pipe", "not a regular file")
	})
	t.Run("fifo in a subdirectory", func(t *testing.T) {
		root := writeTree(t, map[string]string{"sub/a.txt": "a\n"})
		mkfifo(t, filepath.Join(root, "sub", "notes.txt"))
		err := guarded(t, "Read", func() error { _, err := Read(root, Options{}); return err })
		wantError(t, err, "sub/notes.txt", "named pipe")
	})
	t.Run("fifo .krmignore", func(t *testing.T) {
		root := writeTree(t, map[string]string{"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n"})
		mkfifo(t, filepath.Join(root, IgnoreFile))
		err := guarded(t, "Read", func() error { _, err := Read(root, Options{}); return err })
		wantError(t, err, IgnoreFile, "named pipe")
	})
	t.Run("device", func(t *testing.T) {
		root := writeTree(t, map[string]string{"a.txt": "a\n"})
		// /dev/zero's device number: 1, 5
		if err := syscall.Mknod(filepath.Join(root, "zero.yaml"), syscall.S_IFCHR|0o644, 1<<8|5); err != nil {
			t.Skipf("mknod (needs root): %v", err)
		}
		err := guarded(t, "Read", func() error { _, err := Read(root, Options{}); return err })
		wantError(t, err, "zero.yaml", "device")
	})
	t.Run("socket", func(t *testing.T) {
		root, err := os.MkdirTemp("", "s") // a short path: socket paths are limited to 108 bytes
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(root)
		l, err := net.Listen("unix", filepath.Join(root, "sock"))
		if err != nil {
			t.Skipf("unix socket: %v", err)
		}
		defer l.Close()
		err = guarded(t, "Read", func() error { _, err := Read(root, Options{}); return err })
		wantError(t, err, "sock", "socket")
	})
	t.Run("symlink to /dev/zero", func(t *testing.T) {
		root := writeTree(t, map[string]string{"a.txt": "a\n"})
		if err := os.Symlink("/dev/zero", filepath.Join(root, "Kptfile")); err != nil {
			t.Fatal(err)
		}
		err := guarded(t, "Read", func() error { _, err := Read(root, Options{}); return err })
		wantError(t, err, "Kptfile", "symbolic links are not supported")
	})
}

// ReadFile, the reader of single files (a package's Kptfile), refuses what Read refuses.
func TestReadFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	mkfifo(t, filepath.Join(dir, "fifo"))
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big"), make([]byte, 2000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok"), []byte("ok\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]error{"fifo": ErrNotRegular, "zero": ErrSymlink, "big": ErrTooLarge, "/dev/zero": ErrNotRegular} {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, name)
		}
		err := guarded(t, name, func() error { _, _, err := ReadFile(p, 1000); return err })
		if !errors.Is(err, want) {
			t.Errorf("%s: error %v, want %v", name, err, want)
		}
	}
	data, mode, err := ReadFile(filepath.Join(dir, "ok"), 3)
	if err != nil || string(data) != "ok\n" || mode != 0o755 {
		t.Errorf("ok: %q %v %v", data, mode, err)
	}
	if _, _, err := ReadFile(filepath.Join(dir, "missing"), 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v, want ErrNotExist", err)
	}
}

// A file over Options.MaxFileSize is an error naming it and the limit; 0 is
// DefaultMaxFileSize.
func TestReadSizeLimit(t *testing.T) {
	root := writeTree(t, map[string]string{"small.txt": "a\n", "big.bin": strings.Repeat("x", 2000)})
	_, err := Read(root, Options{MaxFileSize: 1000})
	wantError(t, err, "big.bin", "2000 bytes", "limit of 1000 bytes")
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("%v is not ErrTooLarge", err)
	}
	if _, err := Read(root, Options{MaxFileSize: 2000}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if _, err := Read(root, Options{}); err != nil {
		t.Errorf("default limit: %v", err)
	}
	if DefaultMaxFileSize != 64<<20 {
		t.Errorf("DefaultMaxFileSize %d", DefaultMaxFileSize)
	}
}

// A tree from upstream (RefuseGitPaths) holding a .git component in any spelling git
// itself treats as .git is an error; DIR's own .git is skipped.
func TestReadGitPaths(t *testing.T) {
	for _, p := range []string{".git/config", ".GIT/config", "sub/.Git/hooks/post-checkout", "a/.git./x", "git~1/config", ".g\u200cit/x"} {
		root := writeTree(t, map[string]string{"a.txt": "a\n", p: "x\n"})
		if _, err := Read(root, Options{RefuseGitPaths: true}); err == nil || !strings.Contains(err.Error(), ".git") {
			t.Errorf("%s: error %v, want a refusal", p, err)
		}
		tree, err := Read(root, Options{})
		if err != nil {
			t.Errorf("%s in DIR: %v", p, err)
			continue
		}
		if len(tree.Files) != 1 {
			t.Errorf("%s in DIR was read: %v", p, tree.Files)
		}
	}
	for _, p := range []string{"a/.gitignore", ".github/x", "git/x", ".gitx/y", "x.git/y"} {
		if GitPath(p) {
			t.Errorf("GitPath(%q) is true", p)
		}
	}
}

// The root given through a symbolic link is read (the caller chose it); a symbolic
// link below it is not.
func TestReadRootThroughSymlink(t *testing.T) {
	root := writeTree(t, map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	tree, err := Read(link, Options{})
	if err != nil || len(tree.Files) != 2 {
		t.Fatalf("%v %v", tree, err)
	}
	if err := os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "dirlink")); err != nil {
		t.Fatal(err)
	}
	_, err = Read(root, Options{})
	wantError(t, err, "dirlink", "symbolic links are not supported")
}

// A tree nested deeper than MaxDepth (Read holds a directory open per level) is an
// error naming the directory.
func TestReadDepthLimit(t *testing.T) {
	deep := strings.Repeat("d/", MaxDepth+1) + "x.txt"
	root := writeTree(t, map[string]string{deep: "x\n"})
	_, err := Read(root, Options{})
	wantError(t, err, strings.Repeat("d/", MaxDepth)+"d", "nested deeper than")
	if _, err := Read(writeTree(t, map[string]string{strings.Repeat("d/", MaxDepth) + "x.txt": "x\n"}), Options{}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}
