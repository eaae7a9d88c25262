package merge

import (
	"testing"

	"github.com/krm-merge/krm-merge/internal/checked"
)

// TestCheckedMarksOptions: checked.Mark, as package function calls it, reaches the
// engine's unexported field, and only for merge.Options.
func TestCheckedMarksOptions(t *testing.T) {
	var o Options
	checked.Mark(&o, checked.Inputs{AliasFree: true, NullElementFree: true})
	if !o.checked.AliasFree || !o.checked.NullElementFree {
		t.Fatalf("Mark left %+v", o.checked)
	}
	defer func() {
		if recover() == nil {
			t.Error("Mark on another options type did not panic")
		}
	}()
	var other struct{ checked checked.Inputs }
	checked.Mark(&other, checked.Inputs{AliasFree: true})
}
