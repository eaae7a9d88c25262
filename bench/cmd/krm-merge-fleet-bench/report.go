package main

import (
	"fmt"
	"io"
	"runtime"
	"time"
)

// The goals (bench/README.md, "Fleet").
const (
	goalMsPerPackage = 40.0  // --all, ms a package (20 s for 500)
	goalKptRatio     = 0.1   // --all / kpt's loop
	goalPeakMB       = 300.0 // --all's peak RSS
	goalPeakGrowth   = 1.2   // peak at n / peak at n/5: not growing with the fleet
	goalOutdated     = 2.0   // seconds
)

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// mb is kb in MB (MiB).
func mb(kb int64) float64 { return float64(kb) / 1024 }

// printTables writes the run's markdown tables and, unless quick, the goals' verdicts.
func printTables(w io.Writer, b *bench, r *results) {
	fmt.Fprintf(w, "\n%s at %s, %s, %d CPUs, load %s at the start and %s at the end; best of %d rounds\n\n",
		r.started.Format("2006-01-02 15:04 MST"), r.revision, r.goVersion, runtime.NumCPU(), r.loadStart, r.loadEnd, b.rounds)

	kptCell, ratioCell := "not run", "–"
	var ratio float64
	if r.ranKpt {
		kptTotal := r.kpt.total(b.n)
		kptCell = fmt.Sprintf("%.1f s", kptTotal.Seconds())
		if r.kpt.ran < b.n {
			kptCell = fmt.Sprintf("%.1f s (extrapolated from %d packages, 1 in %d, which took %.1f s)", kptTotal.Seconds(), r.kpt.ran, b.kptEvery, r.kpt.wall.Seconds())
		}
		ratio = r.all.wall.Seconds() / kptTotal.Seconds()
		ratioCell = fmt.Sprintf("%.3fx (%.0fx faster)", ratio, 1/ratio)
	}
	loopCell := "not run"
	if r.ranKrmLoop {
		loopCell = fmt.Sprintf("%.1f s (%.0f ms a package)", r.krm.wall.Seconds(), ms(r.krm.wall)/float64(r.krm.ran))
	}
	fmt.Fprintln(w, "| packages | krm-merge --all | ms a package | peak RSS | kpt pkg update loop | --all / kpt loop | krm-merge loop, one process a package |")
	fmt.Fprintln(w, "| ---: | ---: | ---: | ---: | --- | --- | --- |")
	fmt.Fprintf(w, "| %d | %.2f s | %.1f | %.0f MB | %s | %s | %s |\n", b.n, r.all.wall.Seconds(), ms(r.all.wall)/float64(b.n), mb(r.all.peakKB), kptCell, ratioCell, loopCell)
	fmt.Fprintf(w, "| %d | %.2f s | %.1f | %.0f MB | – | – | – |\n", r.small.n, r.allSmall.wall.Seconds(), ms(r.allSmall.wall)/float64(r.small.n), mb(r.allSmall.peakKB))

	marked := len(r.big.conflicts)
	fmt.Fprintf(w, "\nStatuses (every run checked): %d updated, %d marked (1 site in %d, built with a conflict).", b.n-marked, marked, b.conflictEvery)
	same := r.treeAll == r.split.tree && (!r.ranKrmLoop || r.treeAll == r.treeLoop)
	if same {
		fmt.Fprintf(w, " --all, the in-process run and the per-package loop leave the same tree (git %.12s).\n", r.treeAll)
	} else {
		fmt.Fprintf(w, " RESULTS DIFFER: --all left git tree %s, the per-package loop %s, the in-process run %s.\n", r.treeAll, r.treeLoop, r.split.tree)
	}
	if r.ranKpt {
		fmt.Fprintf(w, "kpt pkg update: %.0f ms a package, peak %.0f MB.\n", ms(r.kpt.wall)/float64(r.kpt.ran), mb(r.kpt.peakKB))
	}

	s := r.split
	fmt.Fprintf(w, "\nWhere the time goes: pkgupdate.UpdateFleet in process, %d packages, %d at once (jobs), best of %d; each step's time summed over the packages, per package:\n\n",
		b.n, runtime.NumCPU(), b.rounds)
	fmt.Fprintln(w, "| step | ms a package |")
	fmt.Fprintln(w, "| --- | ---: |")
	var sum time.Duration
	for _, st := range append(append([]string{}, steps...), s.otherSteps()...) {
		sum += s.total[st]
		fmt.Fprintf(w, "| %s | %.2f |\n", st, ms(s.total[st])/float64(b.n))
	}
	fmt.Fprintf(w, "| all steps | %.2f |\n", ms(sum)/float64(b.n))
	fmt.Fprintf(w, "| wall (%.2f s) | %.2f |\n", s.wall.Seconds(), ms(s.wall)/float64(b.n))

	fmt.Fprintf(w, "\n| outdated | wall | peak RSS |\n| --- | ---: | ---: |\n")
	fmt.Fprintf(w, "| krm-merge pkg outdated sites, %d packages of one upstream | %.2f s | %.0f MB |\n", b.n, r.out.wall.Seconds(), mb(r.out.peakKB))

	if b.quick {
		fmt.Fprintln(w, "\n(-quick: no verdicts)")
		return
	}
	fmt.Fprintln(w, "\n| goal | target | measured | |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	perPkg := ms(r.all.wall) / float64(b.n)
	fmt.Fprintf(w, "| 1. --all, %d packages | ≤ 40 ms a package (20 s for 500) | %.1f ms a package (%.2f s) | %s |\n", b.n, perPkg, r.all.wall.Seconds(), verdict(perPkg <= goalMsPerPackage))
	if r.ranKpt {
		fmt.Fprintf(w, "| 2. against kpt's loop | ≤ 0.1x | %.3fx (%.2f s vs %.1f s) | %s |\n", ratio, r.all.wall.Seconds(), r.kpt.total(b.n).Seconds(), verdict(ratio <= goalKptRatio))
	} else {
		fmt.Fprintln(w, "| 2. against kpt's loop | ≤ 0.1x | not run | – |")
	}
	growth := float64(r.all.peakKB) / float64(max(r.allSmall.peakKB, 1))
	fmt.Fprintf(w, "| 3. peak RSS | < 300 MB, ≤ %.1fx from %d to %d packages | %.0f MB at %d, %.0f MB at %d (%.2fx) | %s |\n",
		goalPeakGrowth, r.small.n, b.n, mb(r.all.peakKB), b.n, mb(r.allSmall.peakKB), r.small.n, growth,
		verdict(mb(r.all.peakKB) < goalPeakMB && growth <= goalPeakGrowth))
	fmt.Fprintf(w, "| 4. outdated, %d packages | < 2 s | %.2f s | %s |\n", b.n, r.out.wall.Seconds(), verdict(r.out.wall.Seconds() < goalOutdated))
	if !same {
		fmt.Fprintln(w, "\nThe runs' results differ: see above.")
	}
}

// verdict is a goal's verdict cell.
func verdict(met bool) string {
	if met {
		return "**met**"
	}
	return "**NOT met**"
}
