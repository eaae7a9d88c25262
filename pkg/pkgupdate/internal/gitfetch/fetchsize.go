package gitfetch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// fetchPoll is how often fetchCapped measures what a fetch has written.
const fetchPoll = 20 * time.Millisecond

// maxFetchSize is MaxFetchSize, or DefaultMaxFetchSize for 0.
func (f *Fetcher) maxFetchSize() int64 {
	if f.MaxFetchSize > 0 {
		return f.MaxFetchSize
	}
	return DefaultMaxFetchSize
}

// fetchCapped runs `git fetch` (args) in the cache repository and stops it when the
// packs it writes grow past MaxFetchSize. The fetch keeps every download as a pack
// (fetch.unpackLimit=1: no loose objects), written under objects/pack while it
// arrives, so the growth of its packs is what was downloaded; it is measured every
// fetchPoll and once more at the end. When git was stopped before it wrote a ref (the
// refs and shallow commits are as before), the packs it wrote are removed: no ref
// names their objects, and the cache is locked (no other run writes there). A failed
// fetch's temporary files are removed too.
// Errors: the limit passed (wrapping ErrTooLarge, naming the repository, the limit
// and --max-fetch-size); as run otherwise.
func (r *repo) fetchCapped(ctx context.Context, args []string) error {
	limit := r.f.maxFetchSize()
	packs := filepath.Join(r.dir, "objects", "pack")
	start := dirBytes(packs)
	had := packNames(packs)
	refs, err := r.refState(ctx)
	if err != nil {
		return err
	}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	cmd, tctx, done := r.f.command(cctx, runOpts{gitDir: r.dir, config: []string{"fetch.unpackLimit=1"}}, args...)
	defer done()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var over atomic.Int64
	if err := cmd.Start(); err != nil {
		return r.f.gitError(ctx, tctx, args, "", err)
	}
	watched := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(watched)
		tick := time.NewTicker(fetchPoll)
		defer tick.Stop()
		for {
			select {
			case <-finished:
				return
			case <-tick.C:
				if n := dirBytes(packs) - start; n > limit {
					over.Store(n)
					stop()
					return
				}
			}
		}
	}()
	err = cmd.Wait()
	close(finished)
	<-watched
	if n := over.Load(); n > 0 {
		kept := "kept (git had finished)"
		if now, err := r.refState(ctx); err == nil && now == refs { // git was stopped before it wrote a ref
			removeNewPacks(packs, had)
			kept = "nothing of it kept"
		}
		return fmt.Errorf("%s: the fetch downloaded over %d bytes and was stopped, %s: the limit of one fetch is %d bytes "+
			"(--max-fetch-size): %w", r.url, n, kept, limit, ErrTooLarge)
	}
	if err := r.f.gitError(ctx, tctx, args, stderr.String(), err); err != nil {
		removeNewPacks(packs, nil)
		return err
	}
	if n := dirBytes(packs) - start; n > limit {
		return fmt.Errorf("%s: the fetch downloaded %d bytes: the limit of one fetch is %d bytes (--max-fetch-size): %w",
			r.url, n, limit, ErrTooLarge)
	}
	return nil
}

// dirBytes is the total size of the packs in dir, objects/pack: the packs git keeps
// (pack-*.pack) and the ones it is receiving (tmp_pack_*); their indexes, made
// locally, are not counted.
func dirBytes(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".pack") && !strings.HasPrefix(e.Name(), "tmp_pack_") {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// packNames are the names of the files in dir.
func packNames(dir string) map[string]bool {
	names := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names
}

// refState is what a fetch changes when it completes: the cache's refs and its
// shallow commits.
func (r *repo) refState(ctx context.Context) (string, error) {
	out, err := r.git(ctx, "for-each-ref", "--format=%(objectname) %(refname)")
	if err != nil {
		return "", err
	}
	shallow, _ := os.ReadFile(filepath.Join(r.dir, "shallow"))
	return out + "\n" + string(shallow), nil
}

// removeNewPacks removes the files of dir, objects/pack, that a stopped fetch left: the
// temporary ones (tmp_*) and, when had is not nil, every file not in had (a pack git
// finished before it was stopped, which no ref names).
func removeNewPacks(dir string, had map[string]bool) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "tmp_") || had != nil && !had[e.Name()] {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
