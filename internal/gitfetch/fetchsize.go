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
// arrives, so the growth of that directory is what was downloaded; it is measured
// every fetchPoll and once more at the end. A fetch stopped there has updated no ref;
// its temporary pack files are removed (the cache is locked: no other run writes
// them).
// Errors: the limit passed (wrapping ErrTooLarge, naming the repository, the limit
// and --max-fetch-size); as run otherwise.
func (r *repo) fetchCapped(ctx context.Context, args []string) error {
	limit := r.f.maxFetchSize()
	packs := filepath.Join(r.dir, "objects", "pack")
	start := dirBytes(packs)
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
	err := cmd.Wait()
	close(finished)
	<-watched
	if n := over.Load(); n > 0 {
		removeTempPacks(packs)
		return fmt.Errorf("%s: the fetch downloaded over %d bytes and was stopped, nothing of it kept: the limit of one fetch is %d bytes "+
			"(--max-fetch-size): %w", r.url, n, limit, ErrTooLarge)
	}
	if err := r.f.gitError(ctx, tctx, args, stderr.String(), err); err != nil {
		removeTempPacks(packs)
		return err
	}
	if n := dirBytes(packs) - start; n > limit {
		return fmt.Errorf("%s: the fetch downloaded %d bytes: the limit of one fetch is %d bytes (--max-fetch-size): %w",
			r.url, n, limit, ErrTooLarge)
	}
	return nil
}

// dirBytes is the total size of the regular files in dir (not below it).
func dirBytes(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// removeTempPacks removes the temporary files a stopped fetch left in objects/pack.
func removeTempPacks(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "tmp_") || strings.HasPrefix(e.Name(), ".tmp-") {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
