package config

import (
	"testing"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

func TestConflictPolicyWinner(t *testing.T) {
	for _, tt := range []struct {
		p     ConflictPolicy
		want  vocab.Role
		fails bool
	}{
		{"", vocab.Updated, false},
		{UpdatedWins, vocab.Updated, false},
		{DestWins, vocab.Dest, false},
		{FailOnConflict, vocab.Updated, true},
		{MarkConflicts, vocab.Updated, false},
	} {
		if got := tt.p.Winner(); got != tt.want {
			t.Errorf("%q.Winner() = %q, want %q", tt.p, got, tt.want)
		}
		if got := tt.p.Fails(); got != tt.fails {
			t.Errorf("%q.Fails() = %v, want %v", tt.p, got, tt.fails)
		}
	}
	// The values are the functionConfig's onConflict values.
	for p, v := range map[ConflictPolicy]string{UpdatedWins: "updated", DestWins: "dest", FailOnConflict: "error", MarkConflicts: "mark"} {
		if string(p) != v {
			t.Errorf("policy %q, want the onConflict value %q", p, v)
		}
	}
}
