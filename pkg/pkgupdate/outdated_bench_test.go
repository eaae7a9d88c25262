package pkgupdate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkOutdated500 checks 500 packages of 5 upstreams (100 each, in 50 teams'
// directories; each upstream with 300 release tags, package-scoped ones too, and a
// branch), warm: the cache repositories made by a first run. Target: under 2 s a run
// (docs/pkg-update.md, "What is behind").
func BenchmarkOutdated500(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not on PATH")
	}
	work := b.TempDir()
	var ups []string
	var commit string
	for u := 0; u < 5; u++ {
		up := filepath.Join(work, fmt.Sprintf("up%d", u))
		git(b, work, "init", "-q", "-b", "main", up)
		git(b, up, "commit", "-q", "--allow-empty", "-m", "r")
		commit = git(b, up, "rev-parse", "HEAD")
		var refs strings.Builder
		for i := 0; i < 300; i++ {
			fmt.Fprintf(&refs, "%s refs/tags/v1.%d.%d\n", commit, i/10, i%10)
			fmt.Fprintf(&refs, "%s refs/tags/catalog/app/v0.%d.0\n", commit, i)
		}
		if err := os.WriteFile(filepath.Join(up, ".git", "packed-refs"), []byte(refs.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		ups = append(ups, up)
	}
	tree := filepath.Join(work, "tree")
	for i := 0; i < 500; i++ {
		up := ups[i%5]
		dir, ref := "/", "v1.0.0"
		switch i % 3 {
		case 1:
			dir, ref = "/catalog/app", "v0.1.0"
		case 2:
			ref = "main"
		}
		p := filepath.Join(tree, fmt.Sprintf("team%02d", i/10), fmt.Sprintf("app%03d", i))
		if err := os.MkdirAll(filepath.Join(p, "manifests"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "Kptfile"), []byte(kptfileText(up, dir, ref, ref, commit)), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "manifests", "deploy.yaml"), []byte("kind: Deployment\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	opts := OutdatedOptions{Dirs: []string{tree}, CacheDir: filepath.Join(work, "cache")}
	if _, err := Outdated(context.Background(), opts); err != nil { // warm the cache
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Outdated(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Packages) != 500 || rep.Queries != 5 || len(rep.Failed()) > 0 {
			b.Fatalf("%d packages, %d queries, %d failed", len(rep.Packages), rep.Queries, len(rep.Failed()))
		}
	}
}
