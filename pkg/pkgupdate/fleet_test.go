package pkgupdate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/internal/testsupport"
	"github.com/krm-merge/krm-merge/pkg/config"
)

// fleetWork makes one git work tree holding n variants of the mark releases' v1
// (clusters/cNN/app, each fetched as kpt pkg get fetches it), committed: variant i
// keeps upstream's values when i%3 == 0, changes a line no release changes when
// i%3 == 1, and changes the replicas v2 changes too (a conflict) when i%3 == 2. Variant
// broken (when >= 0) holds a file that is not YAML, which fails its update. It returns
// the work tree and the package directories, relative to it, in walk order.
func fleetWork(t *testing.T, n, broken int) (work string, pkgs []string) {
	t.Helper()
	url := "file://" + upstreamRepo(t, "catalog/app", markV1, markV2)
	work = filepath.Join(t.TempDir(), "work")
	git(t, t.TempDir(), "init", "-q", work)
	first := filepath.Join(t.TempDir(), "app")
	kptGet(t, url, "/catalog/app", "v1", first)
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("clusters/c%02d/app", i)
		dir := filepath.Join(work, rel)
		if err := os.CopyFS(dir, os.DirFS(first)); err != nil {
			t.Fatal(err)
		}
		switch i % 3 {
		case 1:
			writeFiles(t, dir, map[string]string{"README.md": "# App\n\nInstall it.\n\n## Usage\n\nRun it in cluster " + rel + ".\n\n## License\n\nApache-2.0\n"})
		case 2:
			deploy := read(t, filepath.Join(dir, "deploy.yaml"))
			writeFiles(t, dir, map[string]string{"deploy.yaml": strings.Replace(deploy, "replicas: 1", "replicas: 5", 1)})
		}
		if i == broken {
			writeFiles(t, dir, map[string]string{"bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [\n"})
		}
		pkgs = append(pkgs, rel)
	}
	git(t, work, "add", "-A")
	git(t, work, "commit", "-qm", "variants")
	return work, pkgs
}

// withoutStates leaves the state directories of every package out of a snapshot: a
// state records when its update ran.
func withoutStates(snap map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range snap {
		if !strings.HasPrefix(k, stateDirName+"/") && !strings.Contains(k, "/"+stateDirName+"/") {
			out[k] = v
		}
	}
	return out
}

// markSettings are the merge settings of the command's default, onConflict mark.
func markSettings() *config.MergeSettings {
	m := defaultMerge()
	m.OnConflict = config.MarkConflicts
	return m
}

// TestFleetIsEachPackageAlone: UpdateFleet over every package under a root leaves
// each package byte for byte as Update of that package alone leaves it (the marked
// ones with their markers, the broken one as it was), with a row per package in walk
// order: updated, marked where a conflict is, failed where the package is broken, and
// the failure touching no other package.
func TestFleetIsEachPackageAlone(t *testing.T) {
	work, pkgs := fleetWork(t, 7, 4)
	alone := testsupport.CopyWork(t, work)
	cache := filepath.Join(t.TempDir(), "cache")
	ctx := context.Background()

	var each []*FleetPackage
	rep, err := UpdateFleet(ctx, FleetOptions{Roots: []string{work}, To: "v2", Jobs: 3,
		Update: Options{CacheDir: cache, Merge: markSettings()}, Each: func(p *FleetPackage) { each = append(each, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(each, rep.Packages) {
		t.Errorf("Each was called with %d rows, not the report's %d in order", len(each), len(rep.Packages))
	}
	for _, row := range rep.Packages { // the run downloaded both releases, whichever package asked first
		if r := row.Report; r != nil && (r.Packages[0].From.Cached || r.Packages[0].To.Cached) {
			t.Errorf("%s: the releases from the git cache, on a cold cache", row.Dir)
		}
	}
	want := map[string]Status{}
	for i, p := range pkgs {
		opts := Options{Dir: filepath.Join(alone, p), Version: "v2", CacheDir: cache, Merge: markSettings()}
		_, err := Update(ctx, opts)
		var marked *MarkedError
		switch {
		case i == 4:
			if err == nil {
				t.Fatalf("%s: the broken package updated alone", p)
			}
			want[p] = StatusFailed
		case i%3 == 2:
			if !errors.As(err, &marked) {
				t.Fatalf("%s alone: %v, want conflict markers", p, err)
			}
			want[p] = StatusMarked
		case err != nil:
			t.Fatalf("%s alone: %v", p, err)
		default:
			want[p] = StatusUpdated
		}
	}
	got := map[string]Status{}
	var order []string
	for _, row := range rep.Packages {
		rel, _ := filepath.Rel(work, row.Dir)
		got[filepath.ToSlash(rel)] = row.Status
		order = append(order, filepath.ToSlash(rel))
		if (row.Status == StatusFailed) != (row.Err != nil && row.Report == nil) && row.Status != StatusMarked {
			t.Errorf("%s: status %s with error %v and report %v", rel, row.Status, row.Err, row.Report != nil)
		}
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(order, pkgs) {
		t.Errorf("rows %v in order %v, want %v in order %v", got, order, want, pkgs)
	}
	a, b := snapshot(t, work), snapshot(t, alone)
	for k, v := range a { // a state names its package's absolute directory
		a[k] = strings.ReplaceAll(v, work, alone)
	}
	if !maps.Equal(a, b) {
		for k := range a {
			if a[k] != b[k] {
				t.Errorf("%s differs: fleet\n%s\nalone\n%s", k, a[k], b[k])
			}
		}
		t.Fatalf("the fleet's result is not each package's alone")
	}
	var fe *FleetError
	if err := rep.Err(); !errors.As(err, &fe) || fe.Failed != 1 || fe.Marked != 2 || fe.Total != 7 || fe.ExitStatus() != 1 {
		t.Errorf("report error %v, want 1 failed and 2 marked of 7", err)
	}
}

// TestFleetShardsAreDisjointAndWhole: the shards K/N of a fleet, each run as its own
// UpdateFleet, take disjoint sets of packages whose union is the whole fleet, and leave
// the tree as one run over the whole fleet does.
func TestFleetShardsAreDisjointAndWhole(t *testing.T) {
	work, pkgs := fleetWork(t, 9, -1)
	whole := testsupport.CopyWork(t, work)
	cache := filepath.Join(t.TempDir(), "cache")
	ctx := context.Background()
	opts := func(root string, s Shard) FleetOptions {
		return FleetOptions{Roots: []string{root}, To: "v2", Shard: s, Update: Options{CacheDir: cache, Merge: markSettings()}}
	}
	if _, err := UpdateFleet(ctx, opts(whole, Shard{})); err != nil {
		t.Fatal(err)
	}
	var union []string
	for k := 0; k < 4; k++ {
		rep, err := UpdateFleet(ctx, opts(work, Shard{Index: k, Count: 4}))
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rep.Packages {
			rel, _ := filepath.Rel(work, row.Dir)
			union = append(union, filepath.ToSlash(rel))
		}
	}
	sort.Strings(union)
	if !reflect.DeepEqual(union, pkgs) {
		t.Errorf("the shards took %v, want each of %v once", union, pkgs)
	}
	if !maps.Equal(withoutStates(snapshot(t, work)), withoutStates(snapshot(t, whole))) {
		t.Errorf("the shards' result differs from one run's")
	}
}

// TestShardOfIsStable: a package's shard depends on its key alone, so adding packages
// moves none; every shard of a few hundred keys gets some.
func TestShardOfIsStable(t *testing.T) {
	counts := make([]int, 5)
	for i := 0; i < 500; i++ {
		counts[ShardOf(fmt.Sprintf("sites/s%03d", i), 5)]++
	}
	for k, c := range counts {
		if c < 50 {
			t.Errorf("shard %d/5 got %d of 500 keys", k, c)
		}
	}
	if ShardOf("a/b", 7) != ShardOf("a/b", 7) || ShardOf("x", 1) != 0 {
		t.Error("ShardOf is not a function of its key and count")
	}
	for _, bad := range []string{"", "1", "4/4", "-1/3", "a/3", "1/0", "1/2/3"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) took it", bad)
		}
	}
	if s, err := ParseShard("2/8"); err != nil || s != (Shard{2, 8}) {
		t.Errorf("ParseShard(2/8) = %v, %v", s, err)
	}
}

// TestFleetContinueAndAbort: after a fleet run left packages at markers,
// ContinueFleet over the root concludes those resolved (and reports those still
// holding markers as failed), leaving out the packages that were not in progress;
// AbortFleet then puts the rest back.
func TestFleetContinueAndAbort(t *testing.T) {
	work, pkgs := fleetWork(t, 6, -1)
	cache := filepath.Join(t.TempDir(), "cache")
	ctx := context.Background()
	u := Options{CacheDir: cache, Merge: markSettings()}
	before := snapshot(t, filepath.Join(work, pkgs[5]))
	if rep, err := UpdateFleet(ctx, FleetOptions{Roots: []string{work}, To: "v2", Update: u}); err != nil || rep.Count(StatusMarked) != 2 {
		t.Fatalf("%v: want 2 packages at markers", err)
	}
	// resolve pkgs[2]: take upstream's side of every hunk
	for _, f := range []string{"deploy.yaml"} {
		p := filepath.Join(work, pkgs[2], f)
		writeFiles(t, filepath.Dir(p), map[string]string{f: side(t, read(t, p), 'u')})
	}
	rep, err := ContinueFleet(ctx, FleetOptions{Roots: []string{work}, Update: u})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 2 || rep.Packages[0].Status != StatusContinued || rep.Packages[1].Status != StatusFailed {
		t.Fatalf("continue rows: %+v", rep.Packages)
	}
	rep, err = AbortFleet(ctx, FleetOptions{Targets: []Target{{Dir: filepath.Join(work, pkgs[5])}}, Update: u})
	if err != nil || len(rep.Packages) != 1 || rep.Packages[0].Status != StatusAborted {
		t.Fatalf("abort: %v %+v", err, rep)
	}
	if after := snapshot(t, filepath.Join(work, pkgs[5])); !maps.Equal(after, before) {
		t.Error("abort did not put the package back")
	}
	rep, err = ContinueFleet(ctx, FleetOptions{Targets: []Target{{Dir: filepath.Join(work, pkgs[0])}}, Update: u})
	if err != nil || rep.Packages[0].Status != StatusFailed || !errors.Is(rep.Packages[0].Err, ErrNotInProgress) {
		t.Errorf("continue of a package given that is not in progress: %v %+v", err, rep.Packages)
	}
}

// TestFleetRefusesNestedTargets: a package given inside another given, or twice, is
// refused before anything is updated.
func TestFleetRefusesNestedTargets(t *testing.T) {
	work, pkgs := fleetWork(t, 1, -1)
	a := filepath.Join(work, pkgs[0])
	for _, targets := range [][]Target{{{Dir: a}, {Dir: a}}, {{Dir: filepath.Dir(a)}, {Dir: a}}, {{Dir: a}, {Dir: filepath.Join(a, "docs")}}} {
		_, err := UpdateFleet(context.Background(), FleetOptions{Targets: targets, Update: Options{CacheDir: t.TempDir()}})
		if err == nil || !strings.Contains(err.Error(), "give one of them") {
			t.Errorf("%v: %v", targets, err)
		}
	}
	if _, err := UpdateFleet(context.Background(), FleetOptions{Targets: []Target{{Dir: a}}, Update: Options{Dir: a}}); err == nil {
		t.Error("Update.Dir taken")
	}
}

// TestFleetDirtyPackageFailsAlone: a package with uncommitted changes fails with
// ErrDirty (the fleet's one status of the work tree says so), and the others update.
func TestFleetDirtyPackageFailsAlone(t *testing.T) {
	work, pkgs := fleetWork(t, 3, -1)
	writeFiles(t, filepath.Join(work, pkgs[1]), map[string]string{"notes.txt": "uncommitted\n"})
	rep, err := UpdateFleet(context.Background(), FleetOptions{Roots: []string{work}, To: "v2",
		Update: Options{CacheDir: filepath.Join(t.TempDir(), "cache")}})
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rep.Packages {
		dirty := errors.Is(row.Err, ErrDirty)
		if (i == 1) != dirty || (i != 1 && row.Status != StatusUpdated) {
			t.Errorf("%s: %s, %v", row.Dir, row.Status, row.Err)
		}
	}
	if !strings.Contains(rep.Packages[1].Error, pkgs[1]+"/notes.txt") {
		t.Errorf("the error does not name the file: %s", rep.Packages[1].Error)
	}
}

// TestTraceTellsEachStep: Options.Trace hears each step of an update once, in order,
// with a fleet run's packages added up by the caller.
func TestTraceTellsEachStep(t *testing.T) {
	work, _ := fleetWork(t, 2, -1)
	var steps []string
	_, err := UpdateFleet(context.Background(), FleetOptions{Roots: []string{work}, To: "v2", Jobs: 2,
		Update: Options{CacheDir: filepath.Join(t.TempDir(), "cache"), Trace: func(step string, d time.Duration) {
			if d <= 0 {
				t.Errorf("%s took %v", step, d)
			}
			steps = append(steps, step)
		}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(steps, " "); got != "check fetch prepare merge write check fetch prepare merge write" {
		t.Errorf("steps %s", got)
	}
}
