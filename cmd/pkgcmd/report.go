package pkgcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

// writeJSON writes the report (or an empty one for dir) and the error as one JSON
// document. encoding/json escapes C0 controls, U+2028 and U+2029; every other character
// a terminal could act on (DEL, C1 controls, bidi and other format characters) is
// escaped as \uXXXX too, so that the document can be shown on a terminal as it is; it
// decodes to the same values.
func writeJSON(out io.Writer, rep *pkgupdate.Report, dir string, err error) error {
	doc := struct {
		*pkgupdate.Report
		Error string `json:"error,omitempty"`
	}{Report: rep}
	if rep == nil {
		doc.Report = &pkgupdate.Report{Dir: dir}
	}
	if err != nil {
		doc.Error = err.Error()
	}
	return writeEscapedJSON(out, doc)
}

// writeEscapedJSON writes v as indented JSON and a newline, every character a terminal
// could act on (not graphic, not the newline) escaped as \uXXXX (a surrogate pair above
// U+FFFF), so that the document can be shown on a terminal as it is; it decodes to the
// same values. Errors: encoding/json's, and out's.
func writeEscapedJSON(out io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeEscaped(out, b)
}

// writeEscapedJSONLine writes v as JSON on one line and a newline (a JSON Lines
// record), escaped as writeEscapedJSON escapes. Errors: encoding/json's, and out's.
func writeEscapedJSONLine(out io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeEscaped(out, b)
}

// writeEscaped writes the JSON document b and a newline, every character a terminal
// could act on escaped (writeEscapedJSON).
func writeEscaped(out io.Writer, b []byte) error {
	var w bytes.Buffer
	for _, r := range string(b) { // valid UTF-8: encoding/json replaced invalid bytes
		switch {
		case r == '\n' || unicode.IsGraphic(r):
			w.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&w, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&w, `\u%04x`, r)
		}
	}
	w.WriteByte('\n')
	_, err := out.Write(w.Bytes())
	return err
}

// ExitMarked is the exit status of `krm-merge pkg update` stopped at conflict markers
// (*pkgupdate.MarkedError): everything else is written and the update waits for
// --continue or --abort. It differs from 1, every error (nothing written), so that a
// script tells a person's turn from a failure; git merge exits 1 for both.
const ExitMarked = 2

// ExitCode is the exit status of the krm-merge binary for err, what its command
// returned: 0 for nil, ExitMarked for a *pkgupdate.MarkedError (wrapped or not), the
// status an error with an ExitStatus method gives (pkg outdated's: ExitBehind,
// ExitOutdatedError), 1 for any other error.
func ExitCode(err error) int {
	var me *pkgupdate.MarkedError
	var es interface{ ExitStatus() int }
	switch {
	case err == nil:
		return 0
	case errors.As(err, &me):
		return ExitMarked
	case errors.As(err, &es):
		return es.ExitStatus()
	default:
		return 1
	}
}

// printError writes "Error: " and err for a person, escaped line by line (scrub.Escape:
// a file name in it may hold escape bytes).
func printError(w io.Writer, err error) {
	lines := strings.Split(err.Error(), "\n")
	for i := range lines {
		lines[i] = scrub.Escape(lines[i])
	}
	fmt.Fprintln(w, "Error:", strings.Join(lines, "\n"))
}

// printReport writes the report for a person. Every name, path, field, value and diff
// line comes from the package or the upstream and is escaped (scrub.Escape; diff
// lines keep their tabs): raw escape bytes could clear the screen and fake the plan.
func printReport(w io.Writer, r *pkgupdate.Report, err error) {
	esc := scrub.Escape
	if r.Recovered != "" {
		fmt.Fprintf(w, "Recovered: %s.\n", r.Recovered)
	}
	for _, p := range r.Packages {
		name := r.Dir
		if p.Path != "." {
			name = strings.TrimSuffix(r.Dir, "/") + "/" + p.Path
		}
		cache := ""
		if p.From.Cached && p.To.Cached {
			cache = " (from the git cache)"
		}
		fmt.Fprintf(w, "Package %q: %s%s %s (%s) -> %s (%s)%s\n", name, esc(p.Repo), esc(dirSuffix(p.Directory)),
			esc(p.From.Ref), esc(p.From.ShortCommit()), esc(p.To.Ref), esc(p.To.ShortCommit()), cache)
		c := p.Counts
		fmt.Fprintf(w, "  resources: %d merged, %d added, %d deleted, %d kept", c.Merged, c.Added, c.Deleted, c.Kept)
		if c.StayedDeleted > 0 {
			fmt.Fprintf(w, ", %d stayed deleted locally", c.StayedDeleted)
		}
		fmt.Fprintf(w, "; conflicts: %d\n", len(p.Conflicts))
		for _, rc := range p.Resources {
			fmt.Fprintf(w, "  %-8s %s (%s)\n", rc.Action, esc(rc.Resource), esc(rc.File))
		}
		for _, cf := range p.Conflicts {
			fmt.Fprintf(w, "  conflict %s\n", cf)
		}
		for _, n := range p.MergedInside {
			fmt.Fprintf(w, "  merged   %s\n", n)
		}
		for _, n := range p.Warnings {
			fmt.Fprintf(w, "  warning  %s\n", n)
		}
		if r.Plan {
			for _, n := range p.Changes {
				fmt.Fprintf(w, "  change   %s\n", n)
			}
		}
	}
	if len(r.Files) > 0 {
		fmt.Fprintln(w, "Files:")
	}
	for _, f := range r.Files {
		fmt.Fprintf(w, "  %-8s %s\n", f.Action, esc(f.Path))
		if f.Diff != "" {
			for _, l := range strings.Split(strings.TrimSuffix(f.Diff, "\n"), "\n") {
				fmt.Fprintf(w, "    %s\n", scrub.EscapeLine(l))
			}
		}
	}
	if len(r.Marks) > 0 {
		fmt.Fprintln(w, "Conflict markers:")
		for _, m := range r.Marks {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
	var ce *pkgupdate.ConflictError
	var me *pkgupdate.MarkedError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintf(w, "Nothing written: %d conflicts under --on-conflict error.\n", ce.Conflicts)
	case errors.As(err, &me):
		fmt.Fprintf(w, "Stopped at the conflicts above, marked in %s; everything else is updated, and the Kptfile still records the old release.\n"+
			"Resolve each (edit the file, or use an editor's merge tool: it reads the markers), then record the new release with\n"+
			"  krm-merge pkg update %s --continue\nor put the package back as it was with\n  krm-merge pkg update %s --abort\n",
			esc(strings.Join(me.Files, ", ")), esc(me.Dir), esc(me.Dir))
	case r.Plan && len(r.Marks) > 0:
		fmt.Fprintf(w, "Plan: %d files would change, %d conflicts would be marked; nothing written.\n", len(r.Files), len(r.Marks))
	case err != nil:
	case r.Plan:
		fmt.Fprintf(w, "Plan: %d files would change; nothing written.\n", len(r.Files))
	case len(r.Files) == 0:
		fmt.Fprintln(w, "Already up to date: nothing changed.")
	default:
		fmt.Fprintf(w, "Updated %d package(s), %d files changed.\n", len(r.Packages), len(r.Files))
	}
}

func dirSuffix(d string) string {
	if d == "" || d == "/" {
		return ""
	}
	return " " + d
}
