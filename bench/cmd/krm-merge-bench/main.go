// Command krm-merge-bench measures krm-merge against kyaml, side by side in one run.
// It builds krm-merge and the two kyaml reference functions
// (bench/reference/merge3: framework.Execute + kio/filters.Merge3; bench/reference/readwrite:
// framework.Execute reading and writing the ResourceList only), generates deterministic
// inputs (bench/gen), runs each function as a subprocess with the input file on stdin,
// measures wall time and the child's peak RSS (rusage), and prints a markdown table with
// ratios, scaling exponents and the four goals. Then it sets pkg update's merge
// of non-KRM files (internal/textmerge, through cmd/krm-merge-textmerge) against
// `git merge-file` on generated texts of 5,000 to 300,000 lines (bench/gen.TextMerge),
// both as subprocesses, and checks that their outputs are the same. Before that, it
// sets inline sources against path roles on a real upgrade (inlineVsPaths: kube-prometheus
// v0.16.0 to v0.17.0 from testdata/upstream).
//
//	go run ./bench/cmd/krm-merge-bench            # the full run (about 10 minutes, ~12 GB at its peak)
//	go run ./bench/cmd/krm-merge-bench -quick     # small sizes, under a minute (no goal verdicts)
//	go run ./bench/cmd/krm-merge-bench -text      # the text merge only (about a minute)
//	go run ./bench/cmd/krm-merge-bench -inline    # inline sources against path roles only (about a minute)
//
// The reference functions are capped where they cannot finish: kyaml's Merge3 pairs
// every resource with every other, so it runs at 1,000 resources only; the read-write
// function needs ~11 GB at 10,000 resources and runs out of memory at 30,000, so it runs
// at 10,000 only. krm-merge runs under 30 s are repeated and the best kept (2 runs; 5
// for the keyed lists; 2-way and 3-way at 10,000 run alternately, 3 rounds, for goal 4);
// the reference functions, which take minutes, run once. krm-merge is built with the
// flags of `make build`.
// Timings are only comparable within one run: run nothing else meanwhile.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/krm-merge/krm-merge/bench"
	"github.com/krm-merge/krm-merge/bench/gen"
	"github.com/krm-merge/krm-merge/bench/internal/benchproc"
)

type result struct {
	wall    time.Duration
	peakKB  int64
	skipped string // why it did not run or finish
}

func (r result) time() string {
	if r.skipped != "" {
		return r.skipped
	}
	return fmt.Sprintf("%.2f s", r.wall.Seconds())
}

func (r result) mem() string {
	if r.skipped != "" {
		return "–"
	}
	return fmt.Sprintf("%.0f MB", float64(r.peakKB)/1024)
}

func main() {
	quick := flag.Bool("quick", false, "small sizes (a smoke run, no goal verdicts)")
	keep := flag.String("workdir", "", "build and input directory (default: a temporary one, removed)")
	textOnly := flag.Bool("text", false, "run the text merge case only")
	inlineOnly := flag.Bool("inline", false, "run the inline sources against path roles case only")
	flag.Parse()
	only := ""
	switch {
	case *textOnly:
		only = "text"
	case *inlineOnly:
		only = "inline"
	}
	if err := run(*quick, only, *keep, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "krm-merge-bench:", err)
		os.Exit(1)
	}
}

type sizes struct {
	vsMerge3, vsReadWrite int   // resources
	scale                 []int // resources, for the exponent
	keyed                 []int // keyed list elements
	text                  []int // lines of the text merge's base
	reps                  int   // repetitions of runs under 30 s (best kept)
	merge3Cap, rwCap      time.Duration
}

// run runs every case, or with only "text" or "inline" that case alone.
func run(quick bool, only, workdir string, out io.Writer) error {
	sz := sizes{vsMerge3: 1000, vsReadWrite: 10000, scale: []int{3000, 10000, 30000}, keyed: []int{2000, 20000},
		text: []int{5000, 20000, 50000, 100000, 300000}, reps: 2, merge3Cap: 5 * time.Minute, rwCap: 10 * time.Minute}
	if quick {
		sz = sizes{vsMerge3: 100, vsReadWrite: 300, scale: []int{100, 1000}, keyed: []int{200, 2000}, text: []int{5000, 20000},
			reps: 1, merge3Cap: time.Minute, rwCap: time.Minute}
	}
	dir := workdir
	if dir == "" {
		d, err := os.MkdirTemp("", "krm-merge-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	root, err := benchproc.ModuleRoot()
	if err != nil {
		return err
	}
	bins := map[string]string{"krm-merge": ".", "ref-merge3": "./bench/reference/merge3", "ref-readwrite": "./bench/reference/readwrite",
		"gen": "./bench/cmd/krm-merge-gen", "textmerge": "./bench/cmd/krm-merge-textmerge"}
	// every binary is built as `make build` builds krm-merge
	for name, pkg := range bins {
		if only == "text" && name != "textmerge" || only == "inline" && name != "krm-merge" && name != "gen" {
			continue
		}
		args := []string{"build", "-trimpath", "-ldflags", "-s -w"}
		b := exec.Command("go", append(args, "-o", filepath.Join(dir, name), pkg)...)
		b.Dir, b.Stderr = root, os.Stderr
		b.Env = append(os.Environ(), "CGO_ENABLED=0")
		if err := b.Run(); err != nil {
			return fmt.Errorf("building %s: %w", pkg, err)
		}
	}
	bin := func(name string) string { return filepath.Join(dir, name) }
	switch only {
	case "text":
		return textMerges(out, bin("textmerge"), dir, sz.text, sz.reps+1)
	case "inline":
		return inlineVsPaths(out, bin("krm-merge"), bin("gen"), dir, root, sz.reps+3)
	}

	type input struct {
		path  string
		bytes int64
		items int
	}
	inputs := map[string]input{}
	// Inputs are written by the generator in its own process, so that this process
	// stays small (see runOnce on peak memory).
	makeInput := func(name string, args ...string) (input, error) {
		if in, ok := inputs[name]; ok {
			return in, nil
		}
		p := filepath.Join(dir, name+".yaml")
		f, err := os.Create(p)
		if err != nil {
			return input{}, err
		}
		defer f.Close()
		var stderr strings.Builder
		g := exec.Command(bin("gen"), args...)
		g.Stdout, g.Stderr = f, &stderr
		if err := g.Run(); err != nil {
			return input{}, fmt.Errorf("generating %s: %v: %s", name, err, stderr.String())
		}
		var in input
		if _, err := fmt.Sscanf(stderr.String(), "%d items, %d bytes", &in.items, &in.bytes); err != nil {
			return input{}, fmt.Errorf("generating %s: %q", name, stderr.String())
		}
		in.path = p
		inputs[name] = in
		return in, nil
	}
	list := func(mode gen.Mode, n int) (input, error) {
		return makeInput(fmt.Sprintf("%s-%d", mode, n), "-mode", string(mode), "-n", fmt.Sprint(n))
	}
	keyed := func(kind string, n int) (input, error) {
		return makeInput(fmt.Sprintf("keyed-%s-%d", kind, n), "-keyed", kind, "-n", fmt.Sprint(n))
	}
	measure := func(binName string, in input, limit time.Duration, reps int) (result, error) {
		best := result{}
		for i := 0; i < reps; i++ {
			r, err := runOnce(bin(binName), in.path, limit)
			if err != nil || r.skipped != "" {
				return r, err
			}
			if best.wall == 0 || r.wall < best.wall {
				best.wall = r.wall
			}
			best.peakKB = max(best.peakKB, r.peakKB)
			if r.wall > 30*time.Second {
				break
			}
		}
		return best, nil
	}

	fmt.Fprintf(out, "krm-merge benchmark: %s/%s, %d CPUs, %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	fmt.Fprintln(out, "| case | input | krm-merge | peak | kyaml reference | reference time | reference peak | krm-merge / reference |")
	fmt.Fprintln(out, "| --- | --- | ---: | ---: | --- | ---: | ---: | --- |")
	row := func(name string, in input, k, ref result, refName string) {
		ratio := "–"
		if ref.skipped == "" && refName != "" {
			ratio = fmt.Sprintf("time %.3fx (%.1fx faster), peak %.2fx", k.wall.Seconds()/ref.wall.Seconds(),
				ref.wall.Seconds()/k.wall.Seconds(), float64(k.peakKB)/float64(ref.peakKB))
		}
		refTime, refMem := ref.time(), ref.mem()
		if refName == "" {
			refName, refTime, refMem = "–", "–", "–"
		}
		fmt.Fprintf(out, "| %s | %d items, %.1f MB | %s | %s | %s | %s | %s | %s |\n", name, in.items,
			float64(in.bytes)/1e6, k.time(), k.mem(), refName, refTime, refMem, ratio)
	}

	// Goal 1: 3-way at vsMerge3 resources against kyaml filters.Merge3.
	in1, err := list(gen.ThreeWay, sz.vsMerge3)
	if err != nil {
		return err
	}
	k1, err := measure("krm-merge", in1, 10*time.Minute, sz.reps)
	if err != nil {
		return err
	}
	m1, err := measure("ref-merge3", in1, sz.merge3Cap, 1)
	if err != nil {
		return err
	}
	row(fmt.Sprintf("3-way, %d resources", sz.vsMerge3), in1, k1, m1, "merge3 (filters.Merge3)")

	// Scaling, and goal 2 at vsReadWrite resources against kyaml read-write.
	scaleRes := map[int]result{}
	var in2 input
	var k2, rw result
	for _, n := range sz.scale {
		in, err := list(gen.ThreeWay, n)
		if err != nil {
			return err
		}
		k, err := measure("krm-merge", in, 20*time.Minute, sz.reps)
		if err != nil {
			return err
		}
		scaleRes[n] = k
		if n == sz.vsReadWrite {
			in2, k2 = in, k
			if rw, err = measure("ref-readwrite", in, sz.rwCap, 1); err != nil {
				return err
			}
			row(fmt.Sprintf("3-way, %d resources", n), in, k, rw, "read-write only")
		} else {
			refName := "–"
			if n > sz.vsMerge3 {
				refName = "merge3: not run (O(n²), >2 min at 3,000)"
			}
			if n > sz.vsReadWrite {
				refName = "read-write: not run (out of 20 GB at 30,000)"
			}
			row(fmt.Sprintf("3-way, %d resources", n), in, k, result{skipped: "not run"}, refName)
		}
	}
	if _, ok := scaleRes[sz.vsReadWrite]; !ok {
		in, err := list(gen.ThreeWay, sz.vsReadWrite)
		if err != nil {
			return err
		}
		if k2, err = measure("krm-merge", in, 20*time.Minute, sz.reps); err != nil {
			return err
		}
		if rw, err = measure("ref-readwrite", in, sz.rwCap, 1); err != nil {
			return err
		}
		in2 = in
		row(fmt.Sprintf("3-way, %d resources", sz.vsReadWrite), in, k2, rw, "read-write only")
	}

	// Goal 4: 2-way throughput per input byte at vsReadWrite resources, against 3-way on
	// the same resources: the two run alternately, reps+1 rounds, the best of each kept,
	// so that both see the machine in the same state (the 3-way runs above came before
	// the read-write reference's 11 GB, these after it).
	in4, err := list(gen.TwoWay, sz.vsReadWrite)
	if err != nil {
		return err
	}
	var k4, k3 result
	for i := 0; i <= sz.reps; i++ {
		for _, m := range []struct {
			in   input
			best *result
		}{{in2, &k3}, {in4, &k4}} {
			r, err := measure("krm-merge", m.in, 20*time.Minute, 1)
			if err != nil {
				return err
			}
			if m.best.wall == 0 || r.wall < m.best.wall {
				m.best.wall = r.wall
			}
			m.best.peakKB = max(m.best.peakKB, r.peakKB)
		}
	}
	row(fmt.Sprintf("3-way, %d resources (alternating with 2-way)", sz.vsReadWrite), in2, k3, result{}, "")
	row(fmt.Sprintf("2-way, %d resources (alternating with 3-way)", sz.vsReadWrite), in4, k4, result{}, "")

	// Keyed lists: the process end to end, and the engine in process.
	keyedRes := map[string]map[int]result{}
	engine := map[string]map[int]time.Duration{}
	// The engine is also timed at ten times the largest size: from the smallest to the
	// largest the input leaves the CPU's caches (bench/README.md), beyond it the
	// exponent is the algorithm's alone.
	beyond := 10 * sz.keyed[len(sz.keyed)-1]
	for _, kind := range []string{"env", "cr"} {
		keyedRes[kind], engine[kind] = map[int]result{}, map[int]time.Duration{}
		for _, n := range sz.keyed {
			in, err := keyed(kind, n)
			if err != nil {
				return err
			}
			k, err := measure("krm-merge", in, 10*time.Minute, 5)
			if err != nil {
				return err
			}
			keyedRes[kind][n] = k
		}
		// The engine in process, the sizes interleaved (bench.EngineTimes says why).
		medians, err := bench.EngineTimes(kind, append(append([]int{}, sz.keyed...), beyond), 21)
		if err != nil {
			return err
		}
		engine[kind][beyond] = medians[len(medians)-1]
		for i, n := range sz.keyed {
			engine[kind][n] = medians[i]
			in, err := keyed(kind, n)
			if err != nil {
				return err
			}
			row(fmt.Sprintf("3-way, one %s list of %d (engine in process: %.1f ms)", kind, n,
				float64(engine[kind][n].Microseconds())/1000), in, keyedRes[kind][n], result{}, "")
		}
	}

	// Goals.
	exp := func(t1, t2 float64, n1, n2 int) float64 { return math.Log(t2/t1) / math.Log(float64(n2)/float64(n1)) }
	lo, hi := sz.scale[0], sz.scale[len(sz.scale)-1]
	expRes := exp(scaleRes[lo].wall.Seconds(), scaleRes[hi].wall.Seconds(), lo, hi)
	klo, khi := sz.keyed[0], sz.keyed[len(sz.keyed)-1]
	verdict := func(ok bool) string {
		if quick {
			return "(quick run: sizes too small to judge)"
		}
		if ok {
			return "**met**"
		}
		return "**NOT met**"
	}
	fmt.Fprintf(out, "\n| goal | target | measured | |\n| --- | --- | --- | --- |\n")
	if m1.skipped == "" {
		sp := m1.wall.Seconds() / k1.wall.Seconds()
		fmt.Fprintf(out, "| 1. 3-way %d resources vs kyaml Merge3 | ≥ 20x faster | %.1fx faster (%.2f s vs %.2f s) | %s |\n",
			sz.vsMerge3, sp, k1.wall.Seconds(), m1.wall.Seconds(), verdict(sp >= 20))
	} else {
		fmt.Fprintf(out, "| 1. 3-way %d resources vs kyaml Merge3 | ≥ 20x faster | Merge3 %s; krm-merge %.2f s: at least %.0fx faster | %s |\n",
			sz.vsMerge3, m1.skipped, k1.wall.Seconds(), sz.merge3Cap.Seconds()/k1.wall.Seconds(), verdict(sz.merge3Cap.Seconds()/k1.wall.Seconds() >= 20))
	}
	if rw.skipped == "" {
		tr, mr := k2.wall.Seconds()/rw.wall.Seconds(), float64(k2.peakKB)/float64(rw.peakKB)
		fmt.Fprintf(out, "| 2. 3-way %d resources vs kyaml read-write | ≤ 0.25x time, ≤ 0.3x peak | %.3fx time (%.2f s vs %.2f s), %.3fx peak (%s vs %s) | %s |\n",
			sz.vsReadWrite, tr, k2.wall.Seconds(), rw.wall.Seconds(), mr, k2.mem(), rw.mem(), verdict(tr <= 0.25 && mr <= 0.3))
	} else {
		fmt.Fprintf(out, "| 2. 3-way %d resources vs kyaml read-write | ≤ 0.25x time, ≤ 0.3x peak | read-write %s | %s |\n",
			sz.vsReadWrite, rw.skipped, verdict(false))
	}
	top := scaleRes[hi]
	fmt.Fprintf(out, "| 3a. linear in resources, %d → %d | exponent ≤ 1.1; %d resources < 8 GB | exponent %.3f; %d resources (%.0f MB) in %.2f s, peak %s | %s |\n",
		lo, hi, hi, expRes, hi, float64(inputs[fmt.Sprintf("3way-%d", hi)].bytes)/1e6, top.wall.Seconds(), top.mem(),
		verdict(expRes <= 1.1 && top.peakKB < 8<<20))
	for _, kind := range []string{"env", "cr"} {
		e := exp(engine[kind][klo].Seconds(), engine[kind][khi].Seconds(), klo, khi)
		p := exp(keyedRes[kind][klo].wall.Seconds(), keyedRes[kind][khi].wall.Seconds(), klo, khi)
		fmt.Fprintf(out, "| 3b. linear in one keyed list (%s), %d → %d elements | exponent ≤ 1.1 | engine %.3f (%.1f → %.1f ms); whole process %.3f | %s |\n",
			kind, klo, khi, e, float64(engine[kind][klo].Microseconds())/1000, float64(engine[kind][khi].Microseconds())/1000, p, verdict(e <= 1.1 && p <= 1.1))
		eb := exp(engine[kind][khi].Seconds(), engine[kind][beyond].Seconds(), khi, beyond)
		fmt.Fprintf(out, "| 3b. the same beyond the CPU caches (%s), %d → %d elements | exponent ≤ 1.1 | engine %.3f (%.1f → %.1f ms) | %s |\n",
			kind, khi, beyond, eb, float64(engine[kind][khi].Microseconds())/1000, float64(engine[kind][beyond].Microseconds())/1000, verdict(eb <= 1.1))
	}
	tp3 := float64(in2.bytes) / k3.wall.Seconds()
	tp2 := float64(in4.bytes) / k4.wall.Seconds()
	fmt.Fprintf(out, "| 4. 2-way keeps up, %d resources | 2-way throughput ≥ 3-way's / 1.2 | 2-way %.1f MB/s, 3-way %.1f MB/s (3-way/2-way %.2f) | %s |\n",
		sz.vsReadWrite, tp2/1e6, tp3/1e6, tp3/tp2, verdict(tp2*1.2 >= tp3))
	if err := inlineVsPaths(out, bin("krm-merge"), bin("gen"), dir, root, sz.reps+3); err != nil {
		return err
	}
	return textMerges(out, bin("textmerge"), dir, sz.text, sz.reps+1)
}

// textMerges measures pkg update's 3-way merge of non-KRM files (internal/textmerge,
// through cmd/krm-merge-textmerge) against `git merge-file -p --theirs` on the same
// generated texts (bench/gen.TextMerge: every section moved upstream, both sides
// edited) of each size in lines, both as subprocesses, alternately, reps rounds, the
// best time of each kept, and prints a markdown table with the ratios and the scaling
// exponents from the smallest size to the largest. It fails when the two merged texts
// differ.
func textMerges(out io.Writer, textmerge, dir string, sizes []int, reps int) error {
	git, err := exec.LookPath("git")
	if err != nil {
		fmt.Fprintln(out, "\ntext merge: git is not on PATH, not run")
		return nil
	}
	fmt.Fprintln(out, "\n| text merge (non-KRM files) | input | textmerge.Merge | peak | git merge-file | git peak | textmerge / git |")
	fmt.Fprintln(out, "| --- | --- | ---: | ---: | ---: | ---: | --- |")
	ours, theirs := map[int]result{}, map[int]result{}
	for _, n := range sizes {
		d := filepath.Join(dir, fmt.Sprintf("text-%d", n))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		g := exec.Command(textmerge, "-gen", fmt.Sprint(n), "-dir", d)
		if msg, err := g.CombinedOutput(); err != nil {
			return fmt.Errorf("generating the %d-line text merge: %v: %s", n, err, msg)
		}
		files := []string{filepath.Join(d, "dest"), filepath.Join(d, "base"), filepath.Join(d, "updated")}
		var size int64
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				return err
			}
			size += st.Size()
		}
		lines, err := countLines(files[1])
		if err != nil {
			return err
		}
		oursOut, gitOut := filepath.Join(d, "textmerge.out"), filepath.Join(d, "git.out")
		for i := 0; i < reps; i++ {
			for _, m := range []struct {
				args []string
				out  string
				best map[int]result
			}{
				{append([]string{textmerge}, files...), oursOut, ours},
				{append([]string{git, "merge-file", "-p", "--theirs"}, files...), gitOut, theirs},
			} {
				r, err := runCommand(m.args, "", m.out, 5*time.Minute)
				if err != nil {
					return err
				}
				best, seen := m.best[n]
				switch {
				case r.skipped != "":
					best = r
				case !seen || r.wall < best.wall:
					best.wall = r.wall
				}
				best.peakKB = max(best.peakKB, r.peakKB)
				m.best[n] = best
			}
		}
		a, err := os.ReadFile(oursOut)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(gitOut)
		if err != nil {
			return err
		}
		if ours[n].skipped == "" && theirs[n].skipped == "" && !bytes.Equal(a, b) {
			return fmt.Errorf("text merge of %d lines: textmerge's output (%s) differs from git merge-file's (%s)", n, oursOut, gitOut)
		}
		ratio := "–"
		if ours[n].skipped == "" && theirs[n].skipped == "" {
			ratio = fmt.Sprintf("time %.2fx, peak %.2fx", ours[n].wall.Seconds()/theirs[n].wall.Seconds(),
				float64(ours[n].peakKB)/float64(theirs[n].peakKB))
		}
		fmt.Fprintf(out, "| %d lines, upstream reshuffled, both edited | 3 files, %.1f MB | %s | %s | %s | %s | %s |\n",
			lines, float64(size)/1e6, ours[n].time(), ours[n].mem(), theirs[n].time(), theirs[n].mem(), ratio)
	}
	lo, hi := sizes[0], sizes[len(sizes)-1]
	exp := func(r map[int]result) string {
		if r[lo].skipped != "" || r[hi].skipped != "" {
			return "–"
		}
		return fmt.Sprintf("%.2f", math.Log(r[hi].wall.Seconds()/r[lo].wall.Seconds())/math.Log(float64(hi)/float64(lo)))
	}
	fmt.Fprintf(out, "\nText merge time exponent, %d → %d lines: textmerge.Merge %s, git merge-file %s (the same outputs, byte for byte).\n",
		lo, hi, exp(ours), exp(theirs))
	return nil
}

// countLines returns the number of lines of the file at path.
func countLines(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return bytes.Count(b, []byte("\n")), nil
}
