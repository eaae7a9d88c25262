package vocab

import (
	"reflect"
	"testing"
)

func TestModeRoles(t *testing.T) {
	for _, tt := range []struct {
		mode Mode
		want []Role
	}{
		{ThreeWay, []Role{"original", "updated", "dest"}},
		{TwoWay, []Role{"src", "dest"}},
		{Apply, []Role{"updated", "dest"}},
		{"4way", nil},
	} {
		if got := tt.mode.Roles(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s roles %q, want %q", tt.mode, got, tt.want)
		}
		for _, r := range []Role{Original, Updated, Dest, Src, None} {
			want := false
			for _, w := range tt.want {
				want = want || w == r
			}
			if got := tt.mode.Has(r); got != want {
				t.Errorf("%s.Has(%q) = %v, want %v", tt.mode, r, got, want)
			}
		}
	}
	// Roles returns a fresh list: a caller's change does not reach the next one.
	ThreeWay.Roles()[0] = None
	if ThreeWay.Roles()[0] != Original {
		t.Error("Roles shares its list between calls")
	}
}

// TestApplyRolesAreUpdatedAndDest states what apply mode's names mean on the wire:
// the role annotation values and path keys of updated and dest.
func TestApplyRolesAreUpdatedAndDest(t *testing.T) {
	if Config != "updated" || Live != "dest" {
		t.Errorf("Config %q, Live %q: want the role values updated and dest", Config, Live)
	}
}
