package testsupport

import (
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// MinimizeExecs is the number of executions Setup gives the engine to minimize one input
// (-test.fuzzminimizetime=<n>x). Every one of them is counted in the run's executions.
const MinimizeExecs = 1000

// Budget is the longest one execution of a target may take: an input slower than this
// is a finding. Typical executions take well under 10 ms; the budget of 2 s leaves room
// for a shared, loaded machine. KRM_MERGE_FUZZ_BUDGET (a positive Go duration, read at
// the first call) overrides it.
func Budget() time.Duration { return budget() }

// budget is Budget's value, read from the environment once.
var budget = sync.OnceValue(func() time.Duration { return durationEnv("KRM_MERGE_FUZZ_BUDGET", 2*time.Second) })

// HangAfter is how long an execution may run before Guard dumps the goroutines and stops
// the process: below the 10 s after which the fuzzing engine kills the worker itself.
const HangAfter = 8 * time.Second

// HangDirEnv names the environment variable of the directory where Guard writes the
// report of a hanging input (hack/fuzz.sh sets it to the run's log directory); the
// default is krm-merge-fuzz-hangs under os.TempDir.
const HangDirEnv = "KRM_MERGE_FUZZ_HANGS"

func durationEnv(name string, def time.Duration) time.Duration {
	if v := os.Getenv(name); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return def
}

// SetupFuzz bounds the engine's minimization of one input to MinimizeExecs executions,
// unless -test.fuzzminimizetime was given on the command line (see the package
// documentation for why). Call it in every fuzz target before f.Fuzz; outside fuzzing
// it does nothing.
func SetupFuzz(f *testing.F) {
	f.Helper()
	if !Fuzzing() {
		return
	}
	given := false
	flag.Visit(func(fl *flag.Flag) {
		if fl.Name == "test.fuzzminimizetime" {
			given = true
		}
	})
	if given {
		return
	}
	if err := flag.Set("test.fuzzminimizetime", strconv.Itoa(MinimizeExecs)+"x"); err != nil {
		f.Fatalf("fuzzguard: bounding minimization: %v", err)
	}
}

// Fuzzing reports whether the test binary runs with -test.fuzz (the coordinator or a
// worker), as opposed to replaying seeds and corpus in a plain go test.
func Fuzzing() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
}

// T is what Guard needs of a *testing.T.
type T interface {
	Name() string
	Errorf(format string, args ...any)
}

// Guard starts timing one execution of a fuzz function; call the function it returns
// when the execution ends (defer it first thing). An execution that took longer than
// Budget fails t, naming the time and the input; one still running after HangAfter
// writes a report (HangDirEnv) and stops the process. in are the execution's inputs, for
// the messages.
func Guard(t T, in ...any) (done func()) { return GuardFor(t, Budget(), in...) }

// GuardFor is Guard with the budget given, for a target whose executions run other
// programs (git: tens of milliseconds each, and the machine's load decides the rest),
// where Budget would make a busy machine's pause a finding. budget must stay under
// HangAfter.
func GuardFor(t T, budget time.Duration, in ...any) (done func()) {
	name, start := t.Name(), time.Now()
	timer := time.AfterFunc(HangAfter, func() { hang(name, in) })
	return func() {
		timer.Stop()
		if d := time.Since(start); d > budget {
			t.Errorf("fuzzguard: one execution took %v, over the budget of %v (a slow input is a finding):\n%s",
				d.Round(time.Millisecond), budget, describe(in))
		}
	}
}

// hang writes what is running (every goroutine's stack) and the input to a report file
// and to stderr, then stops the process with a panic.
func hang(name string, in []any) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	report := fmt.Sprintf("fuzzguard: %s: one execution still running after %v; the input:\n%s\ngoroutines:\n%s",
		name, HangAfter, describe(in), buf)
	dir := os.Getenv(HangDirEnv)
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "krm-merge-fuzz-hangs")
	}
	file := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(name)+"-"+
		strconv.FormatInt(time.Now().UnixNano(), 10)+".txt")
	if err := os.MkdirAll(dir, 0o755); err == nil {
		_ = os.WriteFile(file, []byte(report), 0o644)
	}
	fmt.Fprintln(os.Stderr, report)
	panic(fmt.Sprintf("fuzzguard: %s: an execution hung for %v (report in %s)", name, HangAfter, file))
}

// describe prints the inputs of an execution, quoted, cut to 4 KiB each.
func describe(in []any) string {
	var b strings.Builder
	for i, v := range in {
		s := fmt.Sprintf("%q", v)
		if len(s) > 4096 {
			s = s[:4096] + fmt.Sprintf("... (%d bytes quoted)", len(s))
		}
		fmt.Fprintf(&b, "  input %d: %s\n", i, s)
	}
	return b.String()
}

// Sample reports whether an expensive oracle runs for this input: always when
// replaying seeds and corpus (not Fuzzing), else for one input in n, chosen by a hash of
// the inputs so that the same input always gets the same answer (a finding reproduces
// when its saved input is replayed). n <= 1 always samples.
func Sample(n int, in ...any) bool {
	if n <= 1 || !Fuzzing() {
		return true
	}
	h := fnv.New64a()
	for _, v := range in {
		switch v := v.(type) {
		case string:
			h.Write([]byte(v))
		case []byte:
			h.Write(v)
		default:
			fmt.Fprint(h, v)
		}
		h.Write([]byte{0})
	}
	return h.Sum64()%uint64(n) == 0
}
