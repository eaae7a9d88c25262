package vocab

// Counts are the resource outcomes of a run, as its summary counts them ("3way merge: 12
// merged, 1 added, ..."); apply mode counts its own in them: applied as merged, created
// as added, live only as kept, refused as conflicts. pkg update's report carries them
// per package under these JSON names.
type Counts struct {
	// Merged resources had fields merged (3-way: in updated and dest; 2-way: in src and
	// dest).
	Merged int `json:"merged"`
	// Added resources came from updated (or src) and were absent from dest.
	Added int `json:"added"`
	// Deleted resources were in original, gone from updated, and removed from dest.
	Deleted int `json:"deleted"`
	// Kept resources were only in dest and pass unchanged.
	Kept int `json:"kept"`
	// StayedDeleted resources were deleted locally from dest and stay deleted.
	StayedDeleted int `json:"stayedDeleted"`
	// Conflicts is the number of conflicts, field and resource level (pkg update's
	// report adds its text files' conflicts).
	Conflicts int `json:"conflicts"`
}
