package pkgcmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

// writeFleetMarkdown writes the fleet's report as the body of a pull request
// (GitHub-flavoured Markdown): the summary; a table with a row per package; what
// changed in each package (its files and the resources added and deleted, folded);
// the conflicts left at markers, package by package, with their files, resources,
// fields and marker lines, and the commands that conclude them (concludeCommand); the
// conflicts a policy settled; the packages that
// failed with their errors. Every name and message comes from the packages or their
// upstream and is escaped (mdText): it can neither act on a terminal nor change the
// document's structure.
func writeFleetMarkdown(w io.Writer, rep *pkgupdate.FleetReport) {
	fmt.Fprintf(w, "## krm-merge pkg update\n\n%s.\n\n", mdText(fleetSummary(rep)))
	if len(rep.Packages) == 0 {
		return
	}
	fmt.Fprintln(w, "| Package | Version | Result | Files | Conflicts |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|")
	for _, p := range rep.Packages {
		files, conflicts := "", ""
		if p.Report != nil {
			files, conflicts = fmt.Sprint(len(p.Report.Files)), fmt.Sprint(p.Report.Conflicts())
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", mdText(p.Dir), strings.Replace(versions(p, mdText), " -> ", " → ", 1), p.Status, files, conflicts)
	}
	writeMarkdownChanges(w, rep)
	writeMarkdownMarked(w, rep)
	var settled, failed []*pkgupdate.FleetPackage
	for _, p := range rep.Packages {
		switch {
		case p.Status == pkgupdate.StatusFailed:
			failed = append(failed, p)
		case p.Status != pkgupdate.StatusMarked && p.Report != nil && p.Report.Conflicts() > 0:
			settled = append(settled, p)
		}
	}
	if len(settled) > 0 {
		fmt.Fprintln(w, "\n### Conflicts settled by the merge policy")
		for _, p := range settled {
			fmt.Fprintf(w, "\n<details><summary>%s: %s</summary>\n\n", mdText(p.Dir), count(p.Report.Conflicts(), "conflict"))
			writeMarkdownConflicts(w, p.Report)
			fmt.Fprintln(w, "\n</details>")
		}
	}
	if len(failed) > 0 {
		fmt.Fprintln(w, "\n### Failed (left as they were)")
		fmt.Fprintln(w)
		for _, p := range failed {
			fmt.Fprintf(w, "- %s: %s\n", mdText(p.Dir), mdText(p.Err.Error()))
		}
	}
}

// writeMarkdownChanges writes, for each package with files changed, a folded list of
// its files and of the resources added and deleted.
func writeMarkdownChanges(w io.Writer, rep *pkgupdate.FleetReport) {
	header := false
	for _, p := range rep.Packages {
		if p.Report == nil || len(p.Report.Files) == 0 {
			continue
		}
		if !header {
			fmt.Fprintln(w, "\n### What changed")
			header = true
		}
		fmt.Fprintf(w, "\n<details><summary>%s: %s</summary>\n\n", mdText(p.Dir), count(len(p.Report.Files), "file"))
		for _, f := range p.Report.Files {
			fmt.Fprintf(w, "- %s %s\n", f.Action, mdText(f.Path))
		}
		for _, pr := range p.Report.Packages {
			for _, rc := range pr.Resources {
				fmt.Fprintf(w, "- resource %s: %s (%s)\n", rc.Action, mdText(rc.Resource), mdText(rc.File))
			}
		}
		fmt.Fprintln(w, "\n</details>")
	}
}

// writeMarkdownMarked writes the packages left at conflict markers: each one's
// conflicts and marker lines, then the commands that conclude or undo them.
func writeMarkdownMarked(w io.Writer, rep *pkgupdate.FleetReport) {
	if rep.Count(pkgupdate.StatusMarked) == 0 {
		return
	}
	fmt.Fprintln(w, "\n### Conflicts to resolve")
	cont := scrub.Escape(concludeCommand(rep))
	for _, p := range rep.Packages {
		if p.Status != pkgupdate.StatusMarked || p.Report == nil {
			continue
		}
		fmt.Fprintf(w, "\n#### %s\n\n", mdText(p.Dir))
		writeMarkdownConflicts(w, p.Report)
		fmt.Fprintln(w, "\nMarkers:")
		for _, m := range p.Report.Marks {
			fmt.Fprintf(w, "- %s\n", mdText(m.String()))
		}
	}
	fmt.Fprintf(w, "\nResolve each conflict in its file (an editor's merge tool reads the markers), then record the new releases:\n\n"+
		"```sh\n%s --continue\n```\n\nor put those packages back as they were:\n\n```sh\n%s --abort\n```\n", cont, cont)
}

// writeMarkdownConflicts writes r's conflicts as a table: file (with the lines of a
// text conflict), resource, field and what happened.
func writeMarkdownConflicts(w io.Writer, r *pkgupdate.Report) {
	fmt.Fprintln(w, "| File | Resource | Field | Conflict |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, pr := range r.Packages {
		for _, c := range pr.Conflicts {
			file := c.File
			if c.Lines != "" {
				file += ":" + c.Lines
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", mdText(file), mdText(c.Resource), mdText(c.Field), mdText(c.Message))
		}
	}
}

// mdText is s for Markdown text or a table cell: escaped for a terminal first
// (scrub.Escape: no raw newline or control character is left), then every character
// Markdown or HTML would read as syntax backslash-escaped, so that a name from a
// package can neither open a link, an HTML tag or code nor end a table cell.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range scrub.Escape(s) {
		if strings.ContainsRune("\\`*_{}[]()<>#!|~&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
