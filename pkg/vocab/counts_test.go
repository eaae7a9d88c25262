package vocab

import (
	"encoding/json"
	"testing"
)

// TestCountsJSON pins the JSON names pkg update's report (--output json) shows.
func TestCountsJSON(t *testing.T) {
	b, err := json.Marshal(Counts{Merged: 1, Added: 2, Deleted: 3, Kept: 4, StayedDeleted: 5, Conflicts: 6})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"merged":1,"added":2,"deleted":3,"kept":4,"stayedDeleted":5,"conflicts":6}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}
