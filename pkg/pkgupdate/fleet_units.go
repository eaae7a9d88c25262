package pkgupdate

import (
	"fmt"
	"hash/fnv"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/krm-merge/krm-merge/internal/scrub"
)

// Shard is one of Count disjoint parts of a fleet's packages, Index from 0 to Count-1
// (a Kubernetes Indexed Job's JOB_COMPLETION_INDEX, a CI matrix's index). The zero
// value is the whole fleet.
type Shard struct {
	Index, Count int
}

// ParseShard reads "K/N" (K from 0 to N-1, N at least 1), as --shard takes it.
// Errors: another form, naming it.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	var sh Shard
	var err1, err2 error
	sh.Index, err1 = strconv.Atoi(k)
	sh.Count, err2 = strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want K/N, K the shard's index from 0 to N-1 and N the number of shards", scrub.Escape(s))
	}
	return sh, sh.check()
}

// check refuses a shard other than the zero value whose Index is not in [0, Count).
func (s Shard) check() error {
	if s == (Shard{}) || (s.Count > 0 && s.Index >= 0 && s.Index < s.Count) {
		return nil
	}
	return fmt.Errorf("shard %d/%d: want K/N with 0 <= K < N", s.Index, s.Count)
}

// ShardOf returns the shard (of count) that the package with key goes to: FNV-1a
// (64 bits) of key, modulo count. A package's key is its path under the root it was
// found under (FleetOptions.Roots), or its directory as given (Targets), slash-separated
// and cleaned; it depends on nothing else, so adding, removing or moving another
// package never moves it to another shard, and every worker given the same root and
// count computes the same parts. count <= 1 is shard 0.
func ShardOf(key string, count int) int {
	if count <= 1 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64() % uint64(count))
}

// unit is one package of a fleet run: where it is and what it is updated to.
type unit struct {
	dir     string // as given, or the root joined with the path under it
	version string // "" for the Kptfile's upstream.git.ref
	key     string // ShardOf's key
	real    string // absolute, links resolved: for duplicates and nesting
	found   bool   // found under a root (not a Target)
}

// fleetUnits lists opts' packages (Targets, then those under Roots), each outermost
// package once, and keeps those of opts.Shard.
// Errors: a Target missing or no directory; a Target given twice or inside another
// package of the run (its update is part of that one's); the walk's.
func fleetUnits(opts FleetOptions) ([]unit, error) {
	var all []unit
	for _, t := range opts.Targets {
		real, err := resolveDir(t.Dir)
		if err == nil {
			real, err = filepath.Abs(real)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", scrub.Escape(t.Dir), err)
		}
		v := t.Version
		if v == "" {
			v = opts.To
		}
		all = append(all, unit{dir: t.Dir, version: v, key: path.Clean(filepath.ToSlash(t.Dir)), real: real})
	}
	if len(opts.Roots) > 0 {
		maxDirs := opts.MaxDirs
		if maxDirs <= 0 {
			maxDirs = DefaultMaxOutdatedDirs
		}
		found, err := discover(opts.Roots, opts.Update.MaxFileSize, maxDirs)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			all = append(all, unit{dir: f.dir, version: opts.To, key: f.rel, real: f.real, found: true})
		}
	}
	first := make(map[string]int, len(all)) // a directory's first unit
	for i := len(all) - 1; i >= 0; i-- {
		first[all[i].real] = i
	}
	var out []unit
	for i, u := range all {
		outer, ok := -1, false
		if j := first[u.real]; j != i {
			outer, ok = j, true
		}
		for p := filepath.Dir(u.real); !ok && p != filepath.Dir(p); p = filepath.Dir(p) {
			outer, ok = first[p]
		}
		if ok {
			o := all[outer]
			if u.found && o.found {
				continue // a subpackage: its package's update takes it
			}
			how := "inside the package"
			if o.real == u.real {
				how = "the package"
			}
			return nil, fmt.Errorf("%s is %s %s, whose update takes it: give one of them", scrub.Escape(u.dir), how, scrub.Escape(o.dir))
		}
		if opts.Shard.Count == 0 || ShardOf(u.key, opts.Shard.Count) == opts.Shard.Index {
			out = append(out, u)
		}
	}
	return out, nil
}
