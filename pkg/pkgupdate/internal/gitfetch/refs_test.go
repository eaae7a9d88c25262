package gitfetch

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// ListRefs lists every branch and tag, an annotated tag peeled to its commit, in one
// ls-remote that a later Resolve of the same remote reuses (OneQueryPerRemote).
func TestListRefs(t *testing.T) {
	up, c1, c2, c3 := upstream(t)
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir(), OneQueryPerRemote: true}
	refs, err := f.ListRefs(ctx, up, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"refs/heads/main": c3, "refs/tags/v1": c1, "refs/tags/catalog/app/v2": c2, "refs/tags/v2": c3}
	if len(refs) != len(want) {
		t.Errorf("refs %v, want %v", refs, want)
	}
	for k, v := range want {
		if refs[k] != v {
			t.Errorf("%s: %s, want %s", k, refs[k], v)
		}
	}
	if _, err := f.ListRefs(ctx, up, 0); err != nil {
		t.Fatal(err)
	}
	if r, err := f.Resolve(ctx, up, "/catalog/app", "v2"); err != nil || r.Commit != c2 {
		t.Errorf("Resolve after ListRefs: %+v, %v", r, err)
	}
	if f.Queries != 1 {
		t.Errorf("%d ls-remote runs, want 1", f.Queries)
	}
}

// A listing over the limit stops git and is an error wrapping ErrTooLarge naming the
// URL and the limit; a URL that git would read as an option is refused before git runs.
func TestListRefsBounded(t *testing.T) {
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir()}
	_, err := f.ListRefs(ctx, up, 100)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 100 bytes") || !strings.Contains(err.Error(), up) {
		t.Errorf("error %v, want ErrTooLarge naming %s and the limit", err, up)
	}
	g := &Fetcher{CacheDir: t.TempDir()}
	if _, err := g.ListRefs(ctx, "--upload-pack=touch /tmp/x", 0); err == nil || !strings.Contains(err.Error(), "must not start with '-'") || g.Queries != 0 {
		t.Errorf("an option as URL: %v (%d queries)", err, g.Queries)
	}
}
