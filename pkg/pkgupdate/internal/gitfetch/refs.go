package gitfetch

import (
	"context"
	"fmt"
	"strings"
)

// DefaultMaxRefsSize is the most bytes of `git ls-remote` output ListRefs reads when
// its limit is 0 (32 MiB): about 450,000 branches and tags, far past the largest
// repositories' (tens of thousands), and a bound on what a hostile remote can make
// krm-merge hold in memory.
const DefaultMaxRefsSize int64 = 32 << 20

// ListRefs returns every branch and tag of the repository at url, each full ref name
// (refs/heads/<branch>, refs/tags/<tag>) mapped to its commit id (an annotated tag's
// peeled commit), from one `git ls-remote --heads --tags` run in the cache repository
// of url (open: the cache's ownership checks, its lock, --end-of-options before the
// URL, the fetcher's timeout). Its output is read up to maxBytes (0:
// DefaultMaxRefsSize); past it git is stopped. Under OneQueryPerRemote the answer (or
// its error) is the one Resolve reads too: the remote is asked once for the Fetcher's
// life. Queries counts the run.
//
// Errors: url refused by NormalizeURL (before git runs); git missing (ErrNoGit) or too
// old; the cache not the user's; the remote's refs over maxBytes (wrapping ErrTooLarge,
// naming the URL and the limit); a *GitError (wrapping ErrTimeout at the timeout).
func (f *Fetcher) ListRefs(ctx context.Context, url string, maxBytes int64) (map[string]string, error) {
	r, err := f.open(ctx, url)
	if err != nil {
		return nil, err
	}
	defer r.unlock()
	if a, ok := f.remotes[r.url]; ok && f.OneQueryPerRemote {
		return a.refs, a.err
	}
	refs, err := r.listRefs(ctx, maxBytes)
	if f.OneQueryPerRemote {
		f.remember(ctx, r.url, refs, err)
	}
	return refs, err
}

// listRefs runs `git ls-remote --heads --tags` with its output capped at maxBytes (0:
// DefaultMaxRefsSize) and parses it as queryRemote does (parseRefs).
func (r *repo) listRefs(ctx context.Context, maxBytes int64) (map[string]string, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxRefsSize
	}
	r.f.Queries++
	args := []string{"ls-remote", "--heads", "--tags", "--end-of-options", r.url}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	cmd, tctx, done := r.f.command(cctx, runOpts{gitDir: r.dir}, args...)
	defer done()
	out := &cappedBuffer{limit: maxBytes, over: stop}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = out, &cappedBuffer{limit: 64 << 10, sb: &stderr}
	err := cmd.Run()
	if out.exceeded {
		return nil, fmt.Errorf("%s: its branches and tags are more than %d bytes of `git ls-remote` output: %w", r.url, maxBytes, ErrTooLarge)
	}
	if err := r.f.gitError(ctx, tctx, args, stderr.String(), err); err != nil {
		return nil, err
	}
	return parseRefs(out.sb.String()), nil
}

// cappedBuffer keeps what is written up to limit bytes; past it, it keeps no more,
// records that it was exceeded and calls over (which stops the command).
type cappedBuffer struct {
	limit    int64
	n        int64
	exceeded bool
	over     func()
	sb       *strings.Builder
}

// Write keeps p while under the limit; it never fails, so that the command is
// stopped by over rather than by a broken pipe.
func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.sb == nil {
		b.sb = &strings.Builder{}
	}
	if b.exceeded {
		return len(p), nil
	}
	if b.n+int64(len(p)) > b.limit {
		b.exceeded = true
		if b.over != nil {
			b.over()
		}
		return len(p), nil
	}
	b.n += int64(len(p))
	b.sb.Write(p)
	return len(p), nil
}
