package testsupport

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

type recorder struct{ errs []string }

func (r *recorder) Name() string { return "FuzzX/seed#0" }
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// An execution over the budget is reported with the input; one within it is not.
func TestGuardReportsASlowExecution(t *testing.T) {
	var r recorder
	GuardFor(&r, -1, "the input", byte(7))() // every execution is over it
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "over the budget") || !strings.Contains(r.errs[0], `"the input"`) {
		t.Errorf("over budget: %q", r.errs)
	}
	r.errs = nil
	GuardFor(&r, time.Hour, "the input")()
	if len(r.errs) != 0 {
		t.Errorf("within budget: %q", r.errs)
	}
}

// describe cuts long inputs.
func TestDescribeCutsLongInputs(t *testing.T) {
	s := describe([]any{strings.Repeat("x", 10000), []byte("ab")})
	if len(s) > 5000 || !strings.Contains(s, "bytes quoted") || !strings.Contains(s, `input 1: "ab"`) {
		t.Errorf("describe:\n%s", s)
	}
}

// Sample always samples outside fuzzing, and under -test.fuzz one input in n, the same
// answer for the same input.
func TestSample(t *testing.T) {
	for i := 0; i < 100; i++ {
		if !Sample(4, fmt.Sprint(i)) {
			t.Fatal("replaying seeds, an input was not sampled")
		}
	}
	old := flag.Lookup("test.fuzz").Value.String()
	if err := flag.Set("test.fuzz", "FuzzX"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("test.fuzz", old)
	n := 0
	for i := 0; i < 4000; i++ {
		in := fmt.Sprint(i)
		s := Sample(4, in, []byte{byte(i)}, i%3 == 0)
		if s != Sample(4, in, []byte{byte(i)}, i%3 == 0) {
			t.Fatalf("input %d: two answers", i)
		}
		if s {
			n++
		}
	}
	if n < 800 || n > 1200 {
		t.Errorf("sampled %d of 4000 inputs, want about 1000", n)
	}
	if !Sample(1, "x") {
		t.Error("n = 1 must always sample")
	}
}
