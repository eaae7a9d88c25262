// Command krm-merge-fleet-bench measures `krm-merge pkg update --all` on a fleet of
// kpt packages against a loop of `kpt pkg update`, side by side in one run.
//
// It builds krm-merge (as `make build` does, without the version), makes a local git
// upstream laid out like GoogleCloudPlatform/blueprints (catalog/project, one commit and
// tag per release) from the project blueprint's releases project-blueprint-v0.4.0 and
// v0.4.4 in testdata/upstream/blueprints-project, and a work git repository: `kpt pkg
// get` of v0.4.0 once, copied to sites/s000/project ... sites/sNNN/project, each
// customised as a team does (setters and their values applied, a local set-labels
// mutator, comments, a role), 1 in 50 with a genuine conflict (the Project's
// blueprint annotation, which v0.4.4 changes too), committed. A second work repository
// holds a fifth as many sites, to see whether the peak memory grows with the fleet.
//
// Each command runs once before it is measured (warming krm-merge's git cache,
// KRM_MERGE_CACHE_DIR in the work directory, and kpt's, under a HOME of its own), and
// the work tree is reset (git reset --hard, git clean -fdx) after every run. It
// measures, best of -rounds: `krm-merge pkg update --all sites --to v0.4.4 --output json`
// (wall time and peak RSS, the JSON Lines checked: a record per package, the conflicted
// ones "marked", the rest "updated"); `krm-merge pkg outdated sites`. Once: a loop of
// `krm-merge pkg update sites/sNNN/project@v0.4.4`, one process per package, whose
// result must be the same git tree as --all's; a loop of `kpt pkg update
// sites/sNNN/project@v0.4.4` over 1 package in -kpt-every (5), extrapolated to all;
// pkgupdate.UpdateFleet in process with Options.Trace, for the time of each step
// (check, fetch, prepare, merge, write) per package. It prints markdown tables and the
// goals' verdicts.
//
//	go run ./bench/cmd/krm-merge-fleet-bench            # 500 sites (and 100), about 10 minutes
//	go run ./bench/cmd/krm-merge-fleet-bench -quick     # 20 sites, one round, no verdicts, under a minute
//	go run ./bench/cmd/krm-merge-fleet-bench -cpuprofile cpu.out   # and a CPU profile of the in-process rounds
//
// It needs git and kpt on PATH. Timings are only comparable within one run: run
// nothing else meanwhile.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/krm-merge/krm-merge/bench/internal/benchproc"
)

func main() {
	if err := runBench(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "krm-merge-fleet-bench:", err)
		os.Exit(1)
	}
}

// bench is one run's settings and paths.
type bench struct {
	n, rounds, kptEvery, conflictEvery int
	quick, kptLoop, krmLoop            bool
	work, krm, cacheDir, kptHome       string
	cpuProfile                         string   // -cpuprofile: the in-process rounds' CPU profile
	env                                []string // krm-merge's environment: its git cache
	progress                           io.Writer
}

// logf writes a progress line.
func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.progress, format+"\n", args...)
}

// results are everything one run measured.
type results struct {
	big, small          *fleet
	all, allSmall       best
	treeAll, treeLoop   string
	out                 best
	krm, kpt            loop
	ranKrmLoop, ranKpt  bool
	split               split
	loadStart, loadEnd  string
	started             time.Time
	revision, goVersion string
}

// runBench parses args, runs the benchmark and writes its tables to out and its
// progress to progress.
func runBench(args []string, out, progress io.Writer) error {
	fs := flag.NewFlagSet("krm-merge-fleet-bench", flag.ContinueOnError)
	b := &bench{progress: progress}
	fs.IntVar(&b.n, "n", 500, "packages in the fleet (a second fleet has n/5)")
	fs.IntVar(&b.rounds, "rounds", 3, "rounds of each measured command, the best kept")
	fs.IntVar(&b.kptEvery, "kpt-every", 5, "run kpt pkg update on every k-th package and extrapolate (1: all)")
	fs.IntVar(&b.conflictEvery, "conflict-every", 50, "every k-th site gets a genuine conflict")
	fs.BoolVar(&b.quick, "quick", false, "20 sites (1 in 10 with a conflict), one round, no verdicts: a smoke test")
	fs.BoolVar(&b.kptLoop, "kpt-loop", true, "run the kpt pkg update loop")
	fs.BoolVar(&b.krmLoop, "krm-loop", true, "run the loop of one krm-merge process per package")
	workdir := fs.String("workdir", "", "work directory (default: a new temporary one, removed at the end)")
	fs.StringVar(&b.cpuProfile, "cpuprofile", "", "write a CPU profile of the in-process rounds (UpdateFleet) to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if b.quick {
		b.n, b.rounds, b.conflictEvery = 20, 1, 10
	}
	if b.n < 5 || b.rounds < 1 || b.kptEvery < 1 {
		return errors.New("want -n ≥ 5, -rounds ≥ 1, -kpt-every ≥ 1")
	}
	for _, tool := range []string{"git", "kpt", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is not on PATH (kpt pkg get makes the fleet)", tool)
		}
	}
	root, err := benchproc.ModuleRoot()
	if err != nil {
		return err
	}
	b.work = *workdir
	if b.work == "" {
		if b.work, err = os.MkdirTemp("", "krm-merge-fleet-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(b.work)
	}
	res := &results{started: time.Now().UTC(), loadStart: loadAvg(), goVersion: runtime.Version()}
	res.revision, _ = git(root, "rev-parse", "--short", "HEAD")
	if err := b.setUp(root, res); err != nil {
		return err
	}
	if err := b.measureAll(res); err != nil {
		return err
	}
	res.loadEnd = loadAvg()
	printTables(out, b, res)
	return nil
}

// setUp builds krm-merge, the upstream and the two fleets.
func (b *bench) setUp(root string, res *results) error {
	b.krm = filepath.Join(b.work, "krm-merge")
	b.cacheDir = filepath.Join(b.work, "cache")
	b.kptHome = filepath.Join(b.work, "home")
	b.env = []string{"KRM_MERGE_CACHE_DIR=" + b.cacheDir}
	if err := os.MkdirAll(b.kptHome, 0o755); err != nil {
		return err
	}
	b.logf("building krm-merge")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", b.krm, ".")
	build.Dir, build.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	upstream := filepath.Join(b.work, "upstream", "blueprints")
	if err := makeUpstream(filepath.Join(root, "testdata", "upstream", "blueprints-project"), upstream); err != nil {
		return err
	}
	var err error
	b.logf("building the fleets: %d and %d sites", b.n, b.n/5)
	if res.big, err = buildFleet(filepath.Join(b.work, "fleet"), upstream, b.kptHome, b.n, b.conflictEvery); err != nil {
		return err
	}
	res.small, err = buildFleet(filepath.Join(b.work, "fleet-small"), upstream, b.kptHome, b.n/5, b.conflictEvery)
	return err
}

// measureAll runs every measurement into res.
func (b *bench) measureAll(res *results) error {
	var err error
	b.logf("krm-merge pkg update --all, %d sites", b.n)
	if res.all, res.treeAll, err = fleetAll(b, res.big, b.rounds); err != nil {
		return err
	}
	b.logf("krm-merge pkg update --all, %d sites", b.n/5)
	if res.allSmall, _, err = fleetAll(b, res.small, b.rounds); err != nil {
		return err
	}
	b.logf("krm-merge pkg outdated sites, %d sites", b.n)
	if res.out, err = outdated(b, res.big, b.rounds); err != nil {
		return err
	}
	if b.krmLoop {
		b.logf("krm-merge pkg update, one process per package, %d sites", b.n)
		if res.krm, res.treeLoop, err = krmLoop(b, res.big); err != nil {
			return err
		}
		res.ranKrmLoop = true
	}
	if b.kptLoop {
		b.logf("kpt pkg update, 1 in %d of %d sites", b.kptEvery, b.n)
		if res.kpt, err = kptLoop(b, res.big, b.kptEvery); err != nil {
			return err
		}
		res.ranKpt = true
	}
	b.logf("pkgupdate.UpdateFleet in process, %d sites", b.n)
	if b.cpuProfile != "" {
		f, err := os.Create(b.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	res.split, err = splitRun(b, res.big, b.rounds, 0)
	return err
}

// loadAvg is the 1-, 5- and 15-minute load averages ("?" without /proc).
func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
