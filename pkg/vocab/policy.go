package vocab

// ConflictPolicy says how a run decides a conflict: a field that original, updated and
// dest hold three different ways (docs/merge-semantics.md, "Conflict"), and in 3-way
// mode a resource deleted upstream and changed locally. Its value is the
// functionConfig's onConflict (and pkg update's --on-conflict), except OriginalWins,
// which is no functionConfig value.
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
	// pkgupdate) does that (docs/pkg-update.md, "Resolving conflicts by hand"); package
	// config accepts it, for pkg update's --config, and the function refuses it (naming
	// the field): a function returns resources, not files. A merge given it decides as
	// under UpdatedWins.
	MarkConflicts ConflictPolicy = "mark"
	// OriginalWins gives every conflict original's value (absent where original has
	// none) and every conflicting part of a value merged inside original's part, while
	// everything else merges as under the other policies: the common ancestor of the
	// two sides of each conflict, which conflict markers show between them (package
	// pkgupdate computes it under MarkConflicts). It is no functionConfig value: package
	// config refuses it; resource-level rules decide as under UpdatedWins.
	OriginalWins ConflictPolicy = "original"
)

// Winner returns the role whose value the output holds at a conflict: Dest under
// DestWins, Original under OriginalWins, else (UpdatedWins, FailOnConflict,
// MarkConflicts, the zero value) Updated.
func (p ConflictPolicy) Winner() Role {
	switch p {
	case DestWins:
		return Dest
	case OriginalWins:
		return Original
	}
	return Updated
}
