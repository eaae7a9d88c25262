package vocab

import "testing"

func TestConflictPolicyWinner(t *testing.T) {
	for _, tt := range []struct {
		p    ConflictPolicy
		want Role
	}{
		{"", Updated},
		{UpdatedWins, Updated},
		{DestWins, Dest},
		{FailOnConflict, Updated},
		{MarkConflicts, Updated},
		{OriginalWins, Original},
	} {
		if got := tt.p.Winner(); got != tt.want {
			t.Errorf("%q.Winner() = %q, want %q", tt.p, got, tt.want)
		}
	}
	// The values are the functionConfig's onConflict values.
	for p, v := range map[ConflictPolicy]string{UpdatedWins: "updated", DestWins: "dest", FailOnConflict: "error", MarkConflicts: "mark"} {
		if string(p) != v {
			t.Errorf("policy %q, want the onConflict value %q", p, v)
		}
	}
}
