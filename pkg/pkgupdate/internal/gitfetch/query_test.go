package gitfetch

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// One update asks each remote once (OneQueryPerRemote): the refs of both releases and
// of every subpackage from one `git ls-remote`, and a remote that does not answer
// costs one timeout, not one per ref.
func TestOneQueryPerRemote(t *testing.T) {
	up, c1, c2, c3 := upstream(t)
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir(), OneQueryPerRemote: true}
	for _, c := range []struct{ dir, ref, want string }{
		{"/", "v1", c1}, {"/catalog/app", "v2", c2}, {"/", "v2", c3}, {"/", "main", c3}, {"/catalog/app", "v1", c1},
	} {
		r, err := f.Resolve(ctx, "file://"+up, c.dir, c.ref)
		if err != nil || r.Commit != c.want {
			t.Errorf("%s in %s: %+v, %v; want %s", c.ref, c.dir, r, err, c.want)
		}
	}
	if f.Queries != 1 {
		t.Errorf("%d ls-remote runs, want 1", f.Queries)
	}
	hung := testsupport.HungGitRemote(t)
	g := &Fetcher{CacheDir: t.TempDir(), Timeout: time.Second, OneQueryPerRemote: true}
	start := time.Now()
	for _, ref := range []string{"v1", "v2", "main"} {
		if _, err := g.Resolve(ctx, hung, "/", ref); err == nil {
			t.Errorf("%s of a hung remote resolved", ref)
		}
	}
	if d := time.Since(start); d > 2500*time.Millisecond || g.Queries != 1 {
		t.Errorf("three refs of a hung remote: %v, %d queries; want one timeout", d, g.Queries)
	}
}

// A fetch of a remote that did not answer in time is not tried again in the same
// update: a commit id of a hung remote costs one timeout, not one per fetch.
func TestHungRemoteIsAskedOnce(t *testing.T) {
	requireGit(t)
	hung := testsupport.HungGitRemote(t)
	f := &Fetcher{CacheDir: t.TempDir(), Timeout: time.Second, OneQueryPerRemote: true}
	start := time.Now()
	for i := 0; i < 2; i++ {
		if _, err := f.Resolve(context.Background(), hung, "/", strings.Repeat("a", 40)); err == nil {
			t.Fatal("a commit of a hung remote resolved")
		}
	}
	if d := time.Since(start); d > 1800*time.Millisecond || f.Fetches != 1 {
		t.Errorf("a hung remote: %v, %d fetches; want one timeout", d, f.Fetches)
	}
}
