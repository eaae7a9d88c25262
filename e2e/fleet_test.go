package e2e

// `krm-merge pkg update` over a fleet: variants of the real project blueprint
// (GoogleCloudPlatform/blueprints catalog/project, v0.4.0 to v0.4.4), fetched once with
// the real `kpt pkg get` and copied per site, customised as teams do, a few with a
// genuine conflict and one broken; updated in one run, alone one by one, in shards run
// side by side, and killed halfway.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// fleetSites is the number of variants in the e2e fleet; fleetBroken is the broken
// one; every site i with i%5 == 3 conflicts.
const (
	fleetSites  = 10
	fleetBroken = 6
)

// fleetTree makes a work repository holding fleetSites variants of the project
// blueprint at v0.4.0 (sites/sNN, each the one `kpt pkg get` copied, then customised:
// its own project id in setters.yaml; a README line v0.4.4 rewrites changed too when
// i%5 == 3; a file that is not YAML in site fleetBroken), committed. It returns the
// work repository and the sites' directories relative to it.
func fleetTree(t *testing.T) (work string, sites []string) {
	t.Helper()
	requireKpt(t)
	repo := blueprintsUpstream(t, requireData(t))
	work = workRepo(t)
	first := filepath.Join(t.TempDir(), "first")
	if err := os.MkdirAll(first, 0o755); err != nil {
		t.Fatal(err)
	}
	kptPkgGet(t, repo, bpOld, filepath.Join(first, "project"))
	for i := 0; i < fleetSites; i++ {
		site := fmt.Sprintf("sites/s%02d", i)
		dir := filepath.Join(work, site)
		copyTree(t, filepath.Join(first, "project"), dir)
		replaceOnce(t, filepath.Join(dir, "setters.yaml"), "project-id: project-id", fmt.Sprintf("project-id: acme-site-%02d", i))
		if i%5 == 3 {
			replaceOnce(t, filepath.Join(dir, "README.md"), "project-id             18", "project-id             18 (one per site)")
		}
		if i == fleetBroken {
			writeFile(t, filepath.Join(dir, "broken.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [\n"))
		}
		sites = append(sites, site)
	}
	commitAll(t, work, "sites")
	return work, sites
}

// fleetRow is a JSON Lines record of the fleet's report.
type fleetRow struct {
	Dir, Status, Error string
}

// fleetRows reads the JSON Lines report of a run.
func fleetRows(t *testing.T, r updateRun) []fleetRow {
	t.Helper()
	var rows []fleetRow
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if l == "" {
			continue
		}
		var row fleetRow
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("not a JSON line: %q: %v\n%s", l, err, r.stderr)
		}
		rows = append(rows, row)
	}
	return rows
}

// sameTrees fails t when the trees at a and b differ in a file (their state
// directories' absolute paths made alike).
func sameTrees(t *testing.T, what, a, b string) {
	t.Helper()
	sa, sb := snapshot(t, a), snapshot(t, b)
	if sameBut(sa, sb, b, a) {
		return
	}
	for k := range mergeKeys(sa, sb) {
		if strings.ReplaceAll(sa[k], a, b) != sb[k] {
			t.Errorf("%s: %s differs:\n--- %s\n%s\n--- %s\n%s", what, k, a, sa[k], b, sb[k])
		}
	}
}

// TestFleetUpdate: one `pkg update --all` over the fleet leaves every site byte for
// byte as `pkg update SITE@v0.4.4` run alone leaves it: updated, stopped at markers
// where a conflict is (and only there), the broken site as it was; its report has a
// record per site and exit status 1 (a site failed). Three shard processes run side by
// side take disjoint parts whose union is the fleet and leave the same bytes.
func TestFleetUpdate(t *testing.T) {
	work, sites := fleetTree(t)
	alone, shards := testsupport.CopyWork(t, work), testsupport.CopyWork(t, work)
	cache := t.TempDir()
	all := pkgUpdate(t, work, cache, "--all", "sites", "--to", bpNew, "--output", "json")
	if all.code != 1 {
		t.Fatalf("exit %d, want 1 (a site failed):\n%s\n%s", all.code, all.stdout, all.stderr)
	}
	rows := fleetRows(t, all)
	if len(rows) != fleetSites {
		t.Fatalf("%d records, want %d:\n%s", len(rows), fleetSites, all.stdout)
	}
	for i, row := range rows {
		want := "updated"
		switch {
		case i == fleetBroken:
			want = "failed"
		case i%5 == 3:
			want = "marked"
		}
		if row.Dir != sites[i] || row.Status != want {
			t.Errorf("record %d: %s %s (%s), want %s %s", i, row.Dir, row.Status, row.Error, sites[i], want)
		}
		markers := strings.Contains(readFile(t, filepath.Join(work, sites[i], "README.md")), "<<<<<<< ")
		if markers != (want == "marked") {
			t.Errorf("%s: markers in README.md: %v, status %s", sites[i], markers, want)
		}
	}
	for i, site := range sites {
		r := pkgUpdate(t, alone, cache, site+"@"+bpNew)
		if want := map[bool]int{true: 2, false: 0}[i%5 == 3]; i != fleetBroken && r.code != want {
			t.Errorf("%s alone: exit %d, want %d:\n%s", site, r.code, want, r.stderr)
		}
	}
	sameTrees(t, "the fleet against each site alone", work, alone)

	var procs []*exec.Cmd
	outs := make([]strings.Builder, 3)
	for k := range outs {
		cmd := exec.Command(fnBinary, "pkg", "update", "--all", "sites", "--to", bpNew, "--output", "json", "--shard", fmt.Sprintf("%d/3", k))
		cmd.Dir = shards
		cmd.Env = append(os.Environ(), "KRM_MERGE_CACHE_DIR="+cache, "GIT_CONFIG_NOSYSTEM=1")
		cmd.Stdout = &outs[k]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	var union []string
	for k, cmd := range procs {
		_ = cmd.Wait() // exit 1 or 2 in the shards holding the broken or a marked site
		for _, row := range fleetRows(t, updateRun{stdout: outs[k].String()}) {
			union = append(union, row.Dir)
		}
	}
	sort.Strings(union)
	if !reflect.DeepEqual(union, sites) {
		t.Errorf("the shards took %v, want each of %v once", union, sites)
	}
	sameTrees(t, "the shards against one run", shards, work)
}

// TestFleetKilled: a fleet run killed at a random moment leaves each site as it was,
// updated, or with its interrupted write's journal; the next run finishes what was
// interrupted and updates the rest, and the fleet ends as one uninterrupted run
// leaves it.
func TestFleetKilled(t *testing.T) {
	work, sites := fleetTree(t)
	whole := testsupport.CopyWork(t, work)
	cache := t.TempDir()
	pkgUpdate(t, whole, cache, "--all", "sites", "--to", bpNew)
	before := map[string]map[string]string{}
	for _, s := range sites {
		before[s] = snapshot(t, filepath.Join(work, s))
	}
	for _, delay := range []time.Duration{150 * time.Millisecond, 400 * time.Millisecond} {
		cmd := exec.Command(fnBinary, "pkg", "update", "--all", "sites", "--to", bpNew, "--jobs", "2")
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "KRM_MERGE_CACHE_DIR="+cache, "GIT_CONFIG_NOSYSTEM=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		for _, s := range sites {
			now := snapshot(t, filepath.Join(work, s))
			after := snapshot(t, filepath.Join(whole, s))
			_, err := os.Lstat(filepath.Join(work, filepath.Dir(s), ".krm-merge-"+filepath.Base(s)+".update")) // stage.StagingDir
			journal := err == nil
			if !journal && !reflect.DeepEqual(now, before[s]) && !sameBut(now, after, whole, work) {
				t.Errorf("killed after %v: %s is neither as it was, nor updated, nor being written", delay, s)
			}
		}
	}
	pkgUpdate(t, work, cache, "--all", "sites", "--to", bpNew)
	sameTrees(t, "after the kills and a last run", work, whole)
}

// sameBut reports whether snapshot a of a tree under work equals snapshot b of the same
// tree under whole, absolute paths in the update's state made alike.
func sameBut(a, b map[string]string, whole, work string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if strings.ReplaceAll(v, work, whole) != b[k] {
			return false
		}
	}
	return true
}
