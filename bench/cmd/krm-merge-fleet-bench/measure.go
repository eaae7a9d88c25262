package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

// best is the best of several rounds of one command: the shortest wall time and the
// highest peak RSS seen in any round.
type best struct {
	wall   time.Duration
	peakKB int64
	rounds int
}

// add counts round r.
func (b *best) add(r run) {
	if b.rounds == 0 || r.wall < b.wall {
		b.wall = r.wall
	}
	b.peakKB = max(b.peakKB, r.peakKB)
	b.rounds++
}

// fleetAll runs `krm-merge pkg update --all sites --to NEW --output json` on f once to
// warm the caches, then rounds times, each on the work tree reset to its commit, and
// checks every run's JSON Lines (checkStatuses). It returns the best of the rounds and
// the git tree of the first round's result.
func fleetAll(b *bench, f *fleet, rounds int) (best, string, error) {
	var res best
	var tree string
	for i := 0; i <= rounds; i++ {
		r, err := measure(f.dir, b.env, []int{0, 2}, b.krm, "pkg", "update", "--all", "sites", "--to", tagNew, "--output", "json")
		if err != nil {
			return res, "", err
		}
		if err := checkStatuses(f, r.stdout); err != nil {
			return res, "", fmt.Errorf("krm-merge pkg update --all on %d sites: %w", f.n, err)
		}
		if i == 1 {
			if tree, err = f.treeHash(); err != nil {
				return res, "", err
			}
		}
		if i > 0 {
			res.add(r)
			b.logf("  --all on %d sites, round %d: %.2f s, peak %d MB", f.n, i, r.wall.Seconds(), r.peakKB>>10)
		}
		if err := f.reset(); err != nil {
			return res, "", err
		}
	}
	return res, tree, nil
}

// checkStatuses checks the JSON Lines of a fleet run on f: one record per package,
// "marked" for the packages built with a conflict, "updated" for the others.
func checkStatuses(f *fleet, out []byte) error {
	seen := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec struct{ Dir, Status, Error string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("a line of the output is not JSON: %v: %.200s", err, sc.Text())
		}
		if _, dup := seen[rec.Dir]; dup {
			return fmt.Errorf("%s: two records", rec.Dir)
		}
		seen[rec.Dir] = rec.Status
		if want := wantStatus(f, rec.Dir); rec.Status != want {
			return fmt.Errorf("%s: status %q, want %q (error %q)", rec.Dir, rec.Status, want, rec.Error)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(seen) != f.n {
		return fmt.Errorf("%d records, want %d", len(seen), f.n)
	}
	return nil
}

// wantStatus is the status a fleet run must give the package dir of f.
func wantStatus(f *fleet, dir string) string {
	if f.conflicts[filepath.ToSlash(dir)] {
		return string(pkgupdate.StatusMarked)
	}
	return string(pkgupdate.StatusUpdated)
}

// outdated runs `krm-merge pkg outdated sites` on f once to warm, then rounds times,
// and checks that it lists every package behind.
func outdated(b *bench, f *fleet, rounds int) (best, error) {
	var res best
	want := fmt.Sprintf("%d of %d package(s) behind", f.n, f.n)
	for i := 0; i <= rounds; i++ {
		r, err := measure(f.dir, b.env, []int{0, 1}, b.krm, "pkg", "outdated", "sites")
		if err != nil {
			return res, err
		}
		if !strings.Contains(string(r.stdout), want) {
			return res, fmt.Errorf("krm-merge pkg outdated sites: no %q in its output:\n%s", want, lastLines(string(r.stdout)))
		}
		if i > 0 {
			res.add(r)
		}
	}
	return res, nil
}

// loop is a loop of one process per package: its total wall time over the packages
// run, the largest peak of one, and how many ran.
type loop struct {
	wall   time.Duration
	peakKB int64
	ran    int
}

// total extrapolates the loop's wall time to all n packages of the fleet.
func (l loop) total(n int) time.Duration {
	if l.ran == 0 {
		return 0
	}
	return l.wall * time.Duration(n) / time.Duration(l.ran)
}

// krmLoop runs `krm-merge pkg update sites/sNNN/project@NEW` for every package of f,
// one process each (the caches warm from the fleet runs), checks each exit status
// (2 for the conflicted packages), and returns the loop and the git tree of its result;
// the work tree is reset after.
func krmLoop(b *bench, f *fleet) (loop, string, error) {
	var l loop
	for i := 0; i < f.n; i++ {
		want := 0
		if f.conflicts[sitePkg(i)] {
			want = 2
		}
		r, err := measure(f.dir, b.env, []int{want}, b.krm, "pkg", "update", sitePkg(i)+"@"+tagNew)
		if err != nil {
			return l, "", err
		}
		l.wall += r.wall
		l.peakKB = max(l.peakKB, r.peakKB)
		l.ran++
	}
	tree, err := f.treeHash()
	if err != nil {
		return l, "", err
	}
	return l, tree, f.reset()
}

// kptLoop runs `kpt pkg update sites/sNNN/project@NEW` (resource-merge, kpt's default)
// for every every-th package of f, one process each, after one run on package 0 to
// warm kpt's cache; the work tree is reset after.
func kptLoop(b *bench, f *fleet, every int) (loop, error) {
	var l loop
	env := []string{"HOME=" + b.kptHome}
	args := func(i int) []string { return []string{"kpt", "pkg", "update", sitePkg(i) + "@" + tagNew} }
	if _, err := measure(f.dir, env, []int{0}, args(0)...); err != nil {
		return l, err
	}
	if err := f.reset(); err != nil {
		return l, err
	}
	for i := 0; i < f.n; i += every {
		r, err := measure(f.dir, env, []int{0}, args(i)...)
		if err != nil {
			return l, err
		}
		l.wall += r.wall
		l.peakKB = max(l.peakKB, r.peakKB)
		l.ran++
	}
	return l, f.reset()
}

// steps are the steps of an update Options.Trace tells, in order.
var steps = []string{"check", "fetch", "prepare", "merge", "write"}

// split is where an in-process fleet run's time goes: each step's time summed over the
// packages, and the run's wall time.
type split struct {
	total map[string]time.Duration
	wall  time.Duration
	jobs  int
	tree  string
}

// splitRun runs pkgupdate.UpdateFleet in process on f (Roots sites, To NEW, the
// command's merge settings, the bench's git cache, jobs at once, 0: one a CPU), rounds times on the reset work tree, with Options.Trace
// summing each step's time, and returns the round with the shortest wall time. It
// checks the statuses and returns the git tree of the result too.
func splitRun(b *bench, f *fleet, rounds, jobs int) (split, error) {
	var res split
	for i := 0; i < max(rounds, 1); i++ {
		total := map[string]time.Duration{}
		merge := config.PkgUpdateDefaults() // the command's: onConflict mark
		opts := pkgupdate.FleetOptions{Roots: []string{filepath.Join(f.dir, "sites")}, To: tagNew, Jobs: jobs,
			Update: pkgupdate.Options{Merge: &merge, CacheDir: b.cacheDir, Trace: func(step string, d time.Duration) { total[step] += d }}}
		start := time.Now()
		rep, err := pkgupdate.UpdateFleet(context.Background(), opts)
		wall := time.Since(start)
		if err != nil {
			return res, err
		}
		var lines bytes.Buffer
		for _, p := range rep.Packages {
			rel, err := filepath.Rel(f.dir, p.Dir)
			if err != nil {
				return res, err
			}
			fmt.Fprintf(&lines, "{\"dir\":%q,\"status\":%q,\"error\":%q}\n", filepath.ToSlash(rel), p.Status, p.Error)
		}
		if err := checkStatuses(f, lines.Bytes()); err != nil {
			return res, fmt.Errorf("pkgupdate.UpdateFleet in process: %w", err)
		}
		tree, err := f.treeHash()
		if err != nil {
			return res, err
		}
		if err := f.reset(); err != nil {
			return res, err
		}
		b.logf("  in process, round %d: %.2f s", i+1, wall.Seconds())
		if res.total == nil || wall < res.wall {
			res = split{total: total, wall: wall, jobs: jobs, tree: tree}
		}
	}
	return res, nil
}

// otherSteps are the steps the trace told beyond the known ones, sorted.
func (s split) otherSteps() []string {
	var out []string
	for st := range s.total {
		known := false
		for _, k := range steps {
			known = known || k == st
		}
		if !known {
			out = append(out, st)
		}
	}
	sort.Strings(out)
	return out
}
