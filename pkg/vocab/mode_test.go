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

// TestParseRole: each mode reads its roles' names, and apply mode also its own names
// config and live; no other mode reads those.
func TestParseRole(t *testing.T) {
	for _, tt := range []struct {
		mode  Mode
		value string
		want  Role
		ok    bool
	}{
		{Apply, "config", Updated, true},
		{Apply, "live", Dest, true},
		{Apply, "updated", Updated, true},
		{Apply, "dest", Dest, true},
		{Apply, "original", "original", false},
		{ThreeWay, "live", "live", false},
		{TwoWay, "config", "config", false},
		{ThreeWay, "original", Original, true},
		{TwoWay, "src", Src, true},
	} {
		if got, ok := tt.mode.ParseRole(tt.value); got != tt.want || ok != tt.ok {
			t.Errorf("%s.ParseRole(%q) = %q, %v; want %q, %v", tt.mode, tt.value, got, ok, tt.want, tt.ok)
		}
	}
	for m, want := range map[Mode]string{ThreeWay: "original, updated, dest", TwoWay: "src, dest",
		Apply: "updated (or config), dest (or live)", "4way": ""} {
		if got := m.RoleNames(); got != want {
			t.Errorf("%s.RoleNames() = %q, want %q", m, got, want)
		}
	}
}
