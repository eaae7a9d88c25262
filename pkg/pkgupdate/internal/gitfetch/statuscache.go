package gitfetch

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// StatusCache answers WorkTreeStatus for many directories of a few work trees (the
// packages of one repository, updated together) with one `git status` per work tree,
// run from its top the first time one of its directories is asked for, with the same
// checks and hardening. Each later answer is that status, filtered to the directory: the
// work tree as it was at the first question, which is what a run that changes only
// its own packages wants. Safe for concurrent use.
type StatusCache struct {
	// Timeout bounds each git command, as WorkTreeStatus's timeout.
	Timeout time.Duration

	mu   sync.Mutex
	tops map[string]*treeStatus // by the work tree's top
}

// treeStatus is one work tree's whole status: its WorkTree (Top, Skipped) and its
// entries, or the error of reading them.
type treeStatus struct {
	wt      WorkTree
	entries []statusEntry
	err     error
}

// statusEntry is one entry of `git status --porcelain -z`: the paths it names
// (relative to the top, slash-separated: one, or a rename's two) and its line as
// WorkTree.Changes shows it ("XY path", a rename "XY from -> to").
type statusEntry struct {
	paths []string
	line  string
}

// Status is WorkTreeStatus(ctx, dir, c.Timeout), dir absolute with links resolved,
// answered from its work tree's one status. Errors: WorkTreeStatus's, for the first
// directory of a work tree and every later one (but an error of a ctx that ended,
// which the next question asks again).
func (c *StatusCache) Status(ctx context.Context, dir string) (WorkTree, error) {
	top, _, found := findRepository(dir)
	if !found || top == "" {
		return WorkTree{}, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ts, ok := c.tops[top]
	if !ok {
		ts = c.read(ctx, top)
		if ts.err != nil && ctx.Err() != nil {
			return WorkTree{}, ts.err
		}
		if c.tops == nil {
			c.tops = map[string]*treeStatus{}
		}
		c.tops[top] = ts
	}
	if ts.err != nil || ts.wt.Skipped != "" || ts.wt.Top == "" {
		return ts.wt, ts.err
	}
	rel, err := filepath.Rel(top, dir)
	if err != nil {
		return WorkTree{}, err
	}
	rel = filepath.ToSlash(rel)
	wt := WorkTree{Top: top}
	for _, e := range ts.entries {
		for _, p := range e.paths {
			if rel == "." || p == rel || strings.HasPrefix(p, rel+"/") {
				wt.Changes = append(wt.Changes, e.line)
				break
			}
		}
	}
	return wt, nil
}

// read runs the status of the work tree at top.
func (c *StatusCache) read(ctx context.Context, top string) *treeStatus {
	wt, git, err := openWorkTree(ctx, top, c.Timeout)
	if git == nil {
		return &treeStatus{wt: wt, err: err}
	}
	out, err := git("status", "--porcelain", "-z", "--untracked-files=all")
	if err != nil {
		return &treeStatus{err: fmt.Errorf("git status in %s: %w", top, err)}
	}
	entries, err := parseStatusZ(out)
	if err != nil {
		return &treeStatus{err: fmt.Errorf("git status in %s: %w", top, err)}
	}
	return &treeStatus{wt: wt, entries: entries}
}

// parseStatusZ reads `git status --porcelain -z` output: entries "XY path\x00", a
// rename or copy (X or Y is R or C) followed by its source path "from\x00".
// Errors: an entry shorter than "XY p".
func parseStatusZ(out string) ([]statusEntry, error) {
	var entries []statusEntry
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if f == "" && len(fields) == 1 {
			break
		}
		if len(f) < 4 || f[2] != ' ' {
			return nil, fmt.Errorf("unexpected status entry %q", f)
		}
		xy, p := f[:2], f[3:]
		e := statusEntry{paths: []string{p}, line: xy + " " + p}
		if strings.ContainsAny(xy, "RC") && i+1 < len(fields) {
			i++
			e.paths = append(e.paths, fields[i])
			e.line = xy + " " + fields[i] + " -> " + p
		}
		entries = append(entries, e)
	}
	return entries, nil
}
