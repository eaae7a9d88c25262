package pkgupdate

import (
	"fmt"
	"strings"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Report is what an update did (or, with Options.Plan, would do).
type Report struct {
	// Dir is the package directory as given.
	Dir string `json:"dir"`
	// Plan is true when nothing was written.
	Plan bool `json:"plan"`
	// Recovered says what an interrupted earlier update left and how it was finished
	// before this one ran; "" when there was none.
	Recovered string `json:"recovered,omitempty"`
	// Packages are the root package, then each subpackage with its own upstream.
	Packages []*PackageReport `json:"packages"`
	// Files lists every file the update changes (or would), paths relative to Dir, in
	// order.
	Files []FileChange `json:"files"`
	// Marks lists, under onConflict mark, every hunk of conflict markers the update
	// wrote (or would write) and every upstream version written beside a local file, in
	// file order; empty when no conflict was marked.
	Marks []Mark `json:"marks,omitempty"`
}

// Mark is one conflict an update under onConflict mark left for a person to resolve
// (docs/pkg-update.md, "Resolving conflicts by hand").
type Mark struct {
	// File is the file, relative to Report.Dir.
	File string `json:"file"`
	// Start and End are the hunk's first line (its "<<<<<<<" line) and last line (its
	// ">>>>>>>" line) in File, from 1; zero for a version written beside.
	Start int `json:"start,omitempty"`
	End   int `json:"end,omitempty"`
	// Beside is, for a conflict markers cannot hold (a binary file, a file on one side
	// and a directory on the other), where upstream's version was written beside the
	// local File, relative to Report.Dir; "" for a hunk.
	Beside string `json:"beside,omitempty"`
}

// String is "file:start-end", or "file (upstream's version beside it: beside)",
// escaped as Conflict.String is.
func (m Mark) String() string {
	if m.Beside != "" {
		return scrub.Escape(fmt.Sprintf("%s (upstream's version beside it: %s)", m.File, m.Beside))
	}
	return scrub.Escape(fmt.Sprintf("%s:%d-%d", m.File, m.Start, m.End))
}

// Conflicts returns the number of conflicts in all packages.
func (r *Report) Conflicts() int {
	n := 0
	for _, p := range r.Packages {
		n += len(p.Conflicts)
	}
	return n
}

// PackageReport is one package's update.
type PackageReport struct {
	// Path is the package's directory relative to Report.Dir ("." for the root).
	Path string `json:"path"`
	// Repo and Directory are the upstream's repository and package directory.
	Repo      string `json:"repo"`
	Directory string `json:"directory"`
	// From and To are the upstream versions merged from (original) and to (updated).
	From Version `json:"from"`
	To   Version `json:"to"`
	// Recorded is true when the package's Kptfile records To (a package without a
	// Kptfile upstream records nothing).
	Recorded bool `json:"recorded"`
	// Counts are the outcomes of the merge, as the function's summary counts them;
	// Conflicts counts resource, field and text conflicts.
	Counts vocab.Counts `json:"counts"`
	// Conflicts are the resource, field and text conflicts, in file order.
	Conflicts []Conflict `json:"conflicts"`
	// Warnings are the merge's other warnings (a resource deleted locally that upstream
	// changed, a text file deleted locally that upstream changed).
	Warnings []Note `json:"warnings,omitempty"`
	// Resources lists the resources added and deleted.
	Resources []ResourceChange `json:"resources"`
	// MergedInside lists the values changed on both sides that the merge settled
	// inside (valueMerge: an image reference by repository, tag and digest; an atomic
	// list by elements; a multi-line string by lines), each saying what came from each
	// side, as the function's info results say it (docs/merge-semantics.md, "Merging
	// inside a value").
	MergedInside []Note `json:"mergedInside,omitempty"`
	// Changes is the field-level plan (Options.Plan only): one entry per field the
	// merge changes, as the function's `plan: true` reports them.
	Changes []Note `json:"changes,omitempty"`
}

// Version is an upstream version.
type Version struct {
	// Ref is the tag, branch or commit asked for.
	Ref string `json:"ref"`
	// Commit is the commit it resolved to.
	Commit string `json:"commit"`
	// Cached is true when it came from the git cache without a download.
	Cached bool `json:"cached"`
}

// ShortCommit returns the first 12 hex digits of v.Commit, as a report shows a commit
// (the whole of a shorter one, "" for none).
func (v Version) ShortCommit() string {
	if len(v.Commit) > 12 {
		return v.Commit[:12]
	}
	return v.Commit
}

// Conflict is one conflict as the report lists it (a row of its JSON form).
type Conflict struct {
	// File is the file's path relative to Report.Dir.
	File string `json:"file"`
	// Resource is "apiVersion kind [namespace/]name" for a resource conflict, "" for a
	// text file's.
	Resource string `json:"resource,omitempty"`
	// Field is the field path ("" for the whole resource or file).
	Field string `json:"field,omitempty"`
	// Lines is the line range of a text conflict in the local file ("12-15", "12" or
	// "after 12" for an insertion), "" for resources.
	Lines string `json:"lines,omitempty"`
	// Message says what both sides did and which side won. Values longer than 60
	// bytes are cut around where they differ; Original, Updated and Dest hold them
	// whole.
	Message string `json:"message"`
	// Original, Updated and Dest are, for a field conflict, the three whole values as
	// plain JSON values (results.Value: a scalar as its string, a map or list as
	// decoded YAML), each omitted where that side has no value, and a Secret's data
	// and stringData redacted unless ShowSecretValues; all omitted for other rows.
	Original interface{} `json:"original,omitempty"`
	Updated  interface{} `json:"updated,omitempty"`
	Dest     interface{} `json:"dest,omitempty"`
	// FieldConflict is, for a field conflict, the conflict as the merge found it: its
	// kind, the three values, the winner and, for a part of a value merged inside, the
	// part (Message is its text). nil for a whole resource, a text file or a path that
	// is a file on one side and a directory on the other; never in the JSON report.
	FieldConflict *merge.Conflict `json:"-"`
}

// String is "file[:lines]: [resource: ][field: ]message", as the command prints it:
// characters a terminal would act on escaped (\x1b), since names and values come from
// the package and the upstream.
func (c Conflict) String() string {
	loc := c.File
	if c.Lines != "" {
		loc += ":" + c.Lines
	}
	parts := []string{loc}
	if c.Resource != "" {
		parts = append(parts, c.Resource)
	}
	if c.Field != "" {
		parts = append(parts, c.Field)
	}
	return scrub.Escape(strings.Join(append(parts, c.Message), ": "))
}

// Note is a warning or a planned field change.
type Note struct {
	// File, Resource and Field locate it, as in Conflict.
	File     string `json:"file,omitempty"`
	Resource string `json:"resource,omitempty"`
	Field    string `json:"field,omitempty"`
	// Message says what.
	Message string `json:"message"`
}

// String is "[file: ][resource: ][field: ]message", escaped as Conflict.String is.
func (n Note) String() string {
	var parts []string
	for _, s := range []string{n.File, n.Resource, n.Field} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return scrub.Escape(strings.Join(append(parts, n.Message), ": "))
}

// ResourceChange is a resource the update adds or deletes.
type ResourceChange struct {
	// Action is "added" or "deleted".
	Action string `json:"action"`
	// Resource is "apiVersion kind [namespace/]name".
	Resource string `json:"resource"`
	// File is where it is (added) or was (deleted), relative to Report.Dir.
	File string `json:"file"`
}

// FileChange is a file the update changes.
type FileChange struct {
	// Path is relative to Report.Dir.
	Path string `json:"path"`
	// Action is "added", "modified" or "deleted".
	Action string `json:"action"`
	// Diff is the unified diff from the current file to the new one (Options.Plan
	// only), hunks only.
	Diff string `json:"diff,omitempty"`
}

// ConflictError is returned with the report when onConflict is error and the update
// found conflicts; nothing was written.
type ConflictError struct {
	// Conflicts is the number of conflicts.
	Conflicts int
}

// Error says how many conflicts stopped the update.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("onConflict is error and the update found %d conflicts; nothing was written", e.Conflicts)
}

// MarkedError is returned with the report when onConflict is mark and the update
// wrote conflict markers (Report.Marks): everything without a conflict is updated,
// and the update is in progress until Continue (or Abort) concludes it; the Kptfiles
// keep the old release until then.
type MarkedError struct {
	// Dir is the package directory as given.
	Dir string
	// Files are the files holding markers or with upstream's version beside them, in
	// order, relative to Dir.
	Files []string
}

// Error names the files and says how to go on.
func (e *MarkedError) Error() string {
	return fmt.Sprintf("conflict markers written in %s (%s): resolve them, then run `krm-merge pkg update %s --continue`, "+
		"or `--abort` to put the package back as it was", count(len(e.Files), "file"), scrub.Escape(strings.Join(e.Files, ", ")), scrub.Escape(e.Dir))
}
