package main

// Bounds: hostile inputs run through the real binary's wiring (main, in a
// child process: this test binary re-executed with krmMergeAsMain set) end with a result
// or a clear error result, never a panic or a hang, within bounded memory. Each case
// logs its wall time and peak RSS; the README's Reliability section reports them. The
// guards below are generous (a hang or a blow-up, not a speed goal).

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// krmMergeAsMain makes the test binary run main() instead of the tests.
const krmMergeAsMain = "KRM_MERGE_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(krmMergeAsMain) == "1" {
		os.Args = os.Args[:1]
		if a := os.Getenv(krmMergeArgs); a != "" {
			os.Args = append(os.Args, strings.Split(a, "\x1f")...)
		}
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// run is one run of the function on a ResourceList file.
type run struct {
	exit     int
	out      []byte // stdout, when kept; outBytes counts it all
	outBytes int64
	stderr   string
	wall     time.Duration
	peakMB   int64 // peak resident set of the child
}

// results parses the output's results (nil when none).
func (r *run) results(t *testing.T) []map[string]interface{} {
	t.Helper()
	node, err := yaml.Parse(string(r.out))
	if err != nil {
		t.Fatalf("output is not YAML: %v\n%.2000s", err, r.out)
	}
	var rl struct {
		Results []map[string]interface{} `yaml:"results"`
	}
	if err := node.YNode().Decode(&rl); err != nil {
		t.Fatal(err)
	}
	return rl.Results
}

// runFunction runs main() in a child on the ResourceList in file, with a timeout guard
// against a hang; keepOut keeps stdout (else only its size is counted).
func runFunction(t *testing.T, name, file string, keepOut bool, timeout time.Duration) *run {
	t.Helper()
	in, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	// these inputs test the other bounds: the input's own (KRM_MERGE_MAX_INPUT, 64 MiB by
	// default) is raised past the 100 MB of 10,000 block levels and the 1 GiB scalar
	cmd.Env = append(os.Environ(), krmMergeAsMain+"=1", "KRM_MERGE_MAX_INPUT=2GiB")
	cmd.Stdin = in
	var out bytes.Buffer
	cw := &countingWriter{keep: keepOut, buf: &out}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = cw, &stderr
	start := time.Now()
	err = cmd.Run()
	r := &run{out: out.Bytes(), outBytes: cw.n, stderr: stderr.String(), wall: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("%s: no answer within %v (hang?)", name, timeout)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.peakMB = ru.Maxrss >> 10 // KiB on Linux
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("%s: panicked:\n%.3000s", name, r.stderr)
	}
	t.Logf("%s: exit %d, %.1f s, peak RSS %d MB, output %d bytes", name, r.exit, r.wall.Seconds(), r.peakMB, r.outBytes)
	return r
}

type countingWriter struct {
	keep bool
	buf  *bytes.Buffer
	n    int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.keep {
		w.buf.Write(p)
	}
	return len(p), nil
}

// writeList writes a ResourceList file whose items are given by items(w).
func writeList(t *testing.T, items func(w io.Writer)) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.yaml")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	items(f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// configMap writes a ConfigMap item x with the role annotation and data lines (already
// indented under data:).
func configMap(w io.Writer, role, data string) {
	fmt.Fprintf(w, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n    annotations:\n"+
		"      config.kubernetes.io/merge-source: %s\n  data:\n%s", role, data)
}

// mustMessage fails t unless a result's message contains want.
func mustMessage(t *testing.T, rs []map[string]interface{}, severity, want string) {
	t.Helper()
	for _, r := range rs {
		if r["severity"] == severity && strings.Contains(fmt.Sprint(r["message"]), want) {
			return
		}
	}
	t.Fatalf("no %s result containing %q in %v", severity, want, rs)
}

// billionLaughs is a 9-level YAML alias bomb (10^9 "lol"s when expanded) as data lines.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("    a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		fmt.Fprintf(&b, "    %c: &%c [%s]\n", c, c, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 10), ", "))
		prev = string(c)
	}
	return b.String()
}

// TestBoundAliasBomb: a billion-laughs bomb in dest, in updated, or in the
// functionConfig is never expanded: the run is refused at once with an error result
// (bounds.MaxExpandedNodes; config.Load's own limit for the functionConfig), in
// bounded memory.
func TestBoundAliasBomb(t *testing.T) {
	bomb := billionLaughs()
	for _, c := range []struct{ name, o, u, d, fc string }{
		{"dest", "    a: b\n", "    a: c\n", bomb, ""},
		{"updated", "    a: b\n", bomb, "    a: d\n", ""},
		{"both", "    z: b\n", bomb, bomb, ""},
		{"functionConfig", "    a: b\n", "    a: c\n", "    a: d\n", "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fc}\n  data:\n" + bomb},
	} {
		file := writeList(t, func(w io.Writer) {
			configMap(w, "original", c.o)
			configMap(w, "updated", c.u)
			configMap(w, "dest", c.d)
			fmt.Fprint(w, c.fc)
		})
		r := runFunction(t, "alias bomb in "+c.name, file, true, 2*time.Minute)
		if r.exit != 1 || r.peakMB > 1024 {
			t.Errorf("%s: exit %d, peak %d MB; want a refusal in bounded memory", c.name, r.exit, r.peakMB)
		}
		mustMessage(t, r.results(t), "error", "alias")
	}
}

// TestBoundDeepNesting: 10,000 levels of nesting. Block style passes YAML's depth
// limit: exit 1 with an error result saying so. Flow style parses (the parser's limit
// counts flow levels apart): it merges, and the conflict on it is reported with the
// value too deep to show (results.MaxValueDepth; before, the results themselves passed
// the limit and the run failed without any result).
func TestBoundDeepNesting(t *testing.T) {
	const n = 10000
	file := writeList(t, func(w io.Writer) {
		configMap(w, "original", "    a: b\n")
		configMap(w, "updated", "    a: c\n")
		configMap(w, "dest", "")
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, "%sa:\n", strings.Repeat("  ", i+2))
		}
		fmt.Fprintf(w, "%sx: 1\n", strings.Repeat("  ", n+2))
	})
	r := runFunction(t, fmt.Sprintf("%d levels, block", n), file, true, 5*time.Minute)
	if r.exit != 1 {
		t.Fatalf("block: exit %d, want 1", r.exit)
	}
	mustMessage(t, r.results(t), "error", "exceeded max depth")

	file = writeList(t, func(w io.Writer) {
		configMap(w, "original", "    a: b\n")
		configMap(w, "updated", "    a: c\n")
		configMap(w, "dest", fmt.Sprintf("    a: %s%s\n", strings.Repeat("[", n), strings.Repeat("]", n)))
	})
	r = runFunction(t, fmt.Sprintf("%d levels, flow", n), file, true, 5*time.Minute)
	if r.exit != 0 {
		t.Fatalf("flow: exit %d: %s", r.exit, r.stderr)
	}
	mustMessage(t, r.results(t), "warning", "conflict")
}

// TestBoundHugeScalar: one scalar of 32 MiB (1 GiB with KRM_MERGE_BOUNDS_1G=1) in dest
// merges and is written back whole; peak memory stays a small multiple of the input.
func TestBoundHugeScalar(t *testing.T) {
	size := 32 << 20
	if os.Getenv("KRM_MERGE_BOUNDS_1G") == "1" {
		size = 1 << 30
	}
	chunk := strings.Repeat("x", 1<<20)
	file := writeList(t, func(w io.Writer) {
		configMap(w, "original", "    k: a\n")
		configMap(w, "updated", "    k: b\n")
		configMap(w, "dest", "    k: a\n    big: ")
		for i := 0; i < size>>20; i++ {
			io.WriteString(w, chunk)
		}
		io.WriteString(w, "\n")
	})
	r := runFunction(t, fmt.Sprintf("scalar of %d MiB", size>>20), file, false, 20*time.Minute)
	if r.exit != 0 {
		t.Fatalf("exit %d: %.2000s", r.exit, r.stderr)
	}
	if r.outBytes < int64(size) {
		t.Fatalf("output %d bytes, smaller than the scalar", r.outBytes)
	}
	if limit := int64(12*size>>20) + 512; r.peakMB > limit {
		t.Errorf("peak RSS %d MB over the guard of %d MB", r.peakMB, limit)
	}
}

// TestBoundManyItems: 100,000 tiny items (no roles: passed through) come out, all of
// them.
func TestBoundManyItems(t *testing.T) {
	const n = 100000
	file := writeList(t, func(w io.Writer) {
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c%d\n", i)
		}
	})
	r := runFunction(t, strconv.Itoa(n)+" tiny items", file, true, 10*time.Minute)
	if r.exit != 0 {
		t.Fatalf("exit %d: %.2000s", r.exit, r.stderr)
	}
	if got := bytes.Count(r.out, []byte("\n  kind: ConfigMap\n")); got != n {
		t.Fatalf("%d items out, want %d", got, n)
	}
	mustMessage(t, r.results(t), "info", "3way merge:")
}
