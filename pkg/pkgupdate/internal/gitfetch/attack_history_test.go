package gitfetch

import (
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// historyUpstream builds a repository whose old history holds a large random file,
// committed and deleted, outside the package catalog/app, then the package at two tags
// v1 and v2. It returns the repository, the commit that added the large file and its
// blob id, and the two tags' commits.
func historyUpstream(t *testing.T, size int) (dir, old, blob, c1, c2 string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "up")
	git(t, t.TempDir(), "init", "-q", "-b", "main", dir)
	big := make([]byte, size)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "assets/big.bin"), string(big), 0o644)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "large file")
	old = git(t, dir, "rev-parse", "HEAD")
	blob = git(t, dir, "rev-parse", "HEAD:assets/big.bin")
	git(t, dir, "rm", "-q", "assets/big.bin")
	git(t, dir, "commit", "-qm", "remove it")
	write(t, filepath.Join(dir, "catalog/app/deploy.yaml"), "replicas: 1\n", 0o644)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "v1")
	git(t, dir, "tag", "v1")
	c1 = git(t, dir, "rev-parse", "HEAD")
	write(t, filepath.Join(dir, "catalog/app/deploy.yaml"), "replicas: 2\n", 0o644)
	git(t, dir, "commit", "-qam", "v2")
	git(t, dir, "tag", "v2")
	c2 = git(t, dir, "rev-parse", "HEAD")
	return dir, old, blob, c1, c2
}

// objectBytes is the size of the files under the cache's object stores.
func objectBytes(t *testing.T, cache string) int64 {
	t.Helper()
	var n int64
	_ = filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, string(filepath.Separator)+"objects"+string(filepath.Separator)) {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// update does what pkg update does: resolves the recorded commit c1 and the tag v2,
// and exports both.
func update(t *testing.T, f *Fetcher, url, c1 string) error {
	t.Helper()
	ctx := context.Background()
	if _, err := f.Resolve(ctx, url, "/catalog/app", c1); err != nil {
		return err
	}
	if _, err := f.Resolve(ctx, url, "/catalog/app", "v2"); err != nil {
		return err
	}
	for _, c := range []string{c1} {
		if err := f.Export(ctx, url, c, "/catalog/app", filepath.Join(t.TempDir(), "out")); err != nil {
			return err
		}
	}
	return nil
}

// A large file in old history outside the package is not downloaded: the cache holds
// what the two releases need (shallow fetches), for plain paths and file:// URLs.
func TestAttackLargeOldHistoryIsNotFetched(t *testing.T) {
	up, _, _, c1, _ := historyUpstream(t, 8<<20)
	for _, url := range []string{up, "file://" + up} {
		f := &Fetcher{CacheDir: t.TempDir()}
		if err := update(t, f, url, c1); err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		if n := objectBytes(t, f.CacheDir); n > 1<<20 {
			t.Errorf("%s: the cache holds %d bytes of objects for a 12-byte package: the whole history was fetched", url, n)
		}
	}
}

// An upstream whose old history lacks an object (an incomplete or corrupted history)
// still updates between two intact recent commits.
func TestAttackMissingObjectInOldHistory(t *testing.T) {
	up, _, blob, c1, c2 := historyUpstream(t, 1000)
	loose := filepath.Join(up, ".git", "objects", blob[:2], blob[2:])
	if err := os.Remove(loose); err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{up, "file://" + up} {
		f := &Fetcher{CacheDir: t.TempDir()}
		if err := update(t, f, url, c1); err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		if err := f.Export(context.Background(), url, c2, "/catalog/app", filepath.Join(t.TempDir(), "out")); err != nil {
			t.Fatalf("%s: export v2: %v", url, err)
		}
	}
}

// A fetch past MaxFetchSize is stopped: an error naming the limit (ErrTooLarge), and
// nothing of it in the cache (no ref, no pack).
func TestAttackFetchOverTheLimit(t *testing.T) {
	up, _, _, c1, _ := historyUpstream(t, 100)
	write(t, filepath.Join(up, "catalog/app/blob.bin"), string(make([]byte, 0)), 0o644)
	big := make([]byte, 6<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(up, "catalog/app/blob.bin"), string(big), 0o644)
	git(t, up, "add", "-A")
	git(t, up, "commit", "-qm", "v3")
	git(t, up, "tag", "v3")
	f := &Fetcher{CacheDir: t.TempDir(), MaxFetchSize: 1 << 20}
	if err := update(t, f, "file://"+up, c1); err != nil {
		t.Fatalf("releases under the limit: %v", err)
	}
	before := objectBytes(t, f.CacheDir)
	_, err := f.Resolve(context.Background(), "file://"+up, "/catalog/app", "v3")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "--max-fetch-size") {
		t.Fatalf("a fetch of 6 MiB with a limit of 1 MiB: %v", err)
	}
	if after := objectBytes(t, f.CacheDir); after != before {
		t.Errorf("the refused fetch left %d bytes of objects in the cache", after-before)
	}
	entries, _ := filepath.Glob(filepath.Join(f.CacheDir, "*.git"))
	if len(entries) != 1 {
		t.Fatalf("cache holds %v", entries)
	}
	if out := git(t, entries[0], "--git-dir", entries[0], "for-each-ref", "refs/tags/v3"); out != "" {
		t.Errorf("the refused fetch wrote a ref: %s", out)
	}
}

// A server that gives no history-less fetch (a dumb http server, which serves the
// repository's files) is fetched from with the whole history.
func TestDumbHTTPServerWithoutShallowFetches(t *testing.T) {
	up, _, _, c1, c2 := historyUpstream(t, 100)
	bare := filepath.Join(t.TempDir(), "up.git")
	git(t, t.TempDir(), "clone", "-q", "--bare", up, bare)
	git(t, bare, "update-server-info")
	srv := httptest.NewServer(http.FileServer(http.Dir(bare)))
	defer srv.Close()
	t.Setenv("NO_PROXY", "*")
	t.Setenv("no_proxy", "*")
	f := &Fetcher{CacheDir: t.TempDir()}
	if r, err := f.Resolve(context.Background(), srv.URL+"/", "/catalog/app", "v2"); err != nil || r.Commit != c2 {
		t.Fatalf("a tag of a dumb http server: %+v, %v", r, err)
	}
	if err := update(t, f, srv.URL+"/", c1); err != nil {
		t.Fatalf("a dumb http server: %v", err)
	}
	if err := f.Export(context.Background(), srv.URL+"/", c2, "/catalog/app", filepath.Join(t.TempDir(), "out")); err != nil {
		t.Fatal(err)
	}
}
