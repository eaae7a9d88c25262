package config

import "github.com/krm-merge/krm-merge/pkg/vocab"

// ConflictPolicy is the functionConfig's onConflict (and pkg update's --on-conflict):
// how a run settles a conflict, a field that original, updated and dest hold three
// different ways (docs/merge-semantics.md, "Conflict"), and in 3-way mode a resource
// deleted upstream and changed locally. It is two things the layers below take apart:
// the Winner, the role whose value the output holds (merge.Options.Winner), and what
// the run does with conflicts: Fails (resources.Options.FailOnConflict) or, under
// MarkConflicts, conflict markers that only package pkgupdate writes.
type ConflictPolicy string

const (
	// UpdatedWins lets updated (src; in apply mode the local config) win, as kyaml
	// merge3 does: onConflict updated, the default. The zero value decides as it does.
	UpdatedWins ConflictPolicy = "updated"
	// DestWins lets dest (the local copy) win: onConflict dest.
	DestWins ConflictPolicy = "dest"
	// FailOnConflict fails the run and lists every conflict, writing nothing: onConflict
	// error (in apply mode, kubectl apply --overwrite=false). The merge itself decides
	// as under UpdatedWins, so that the run can report every count and change.
	FailOnConflict ConflictPolicy = "error"
	// MarkConflicts writes every conflict into its file as git-style conflict markers
	// for a person to resolve: onConflict mark. Only `krm-merge pkg update` (package
	// pkgupdate) does that (docs/pkg-update.md, "Resolving conflicts by hand"); this
	// package accepts it, for pkg update's --config, and the function refuses it (naming
	// the field): a function returns resources, not files. The merge decides as under
	// UpdatedWins.
	MarkConflicts ConflictPolicy = "mark"
)

// Winner returns the role whose value the output holds at a conflict: vocab.Dest under
// DestWins, else (UpdatedWins, FailOnConflict, MarkConflicts, the zero value)
// vocab.Updated.
func (p ConflictPolicy) Winner() vocab.Role {
	if p == DestWins {
		return vocab.Dest
	}
	return vocab.Updated
}

// Fails reports whether the run fails on any conflict, writing nothing: true under
// FailOnConflict alone.
func (p ConflictPolicy) Fails() bool { return p == FailOnConflict }
