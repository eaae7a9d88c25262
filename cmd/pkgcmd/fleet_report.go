package pkgcmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

// fleetStatuses are the statuses in the order a summary counts them, with the words
// it counts them in.
var fleetStatuses = []struct {
	s    pkgupdate.Status
	word string
}{
	{pkgupdate.StatusUpdated, "updated"}, {pkgupdate.StatusPlanned, "would change"},
	{pkgupdate.StatusUpToDate, "up to date"}, {pkgupdate.StatusMarked, "stopped at conflict markers"},
	{pkgupdate.StatusContinued, "concluded"}, {pkgupdate.StatusAborted, "aborted"}, {pkgupdate.StatusFailed, "failed"},
}

// fleetSummary is "N packages: a updated, b up to date, ...", each status with
// packages counted, in fleetStatuses' order.
func fleetSummary(rep *pkgupdate.FleetReport) string {
	var parts []string
	for _, st := range fleetStatuses {
		if n := rep.Count(st.s); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st.word))
		}
	}
	s := count(len(rep.Packages), "package")
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}

// count is "1 thing" or "n things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// versions is "from -> to" of a package's row (its root package's refs), "to" when
// they are the same, "" without a report; each ref passed through quote.
func versions(p *pkgupdate.FleetPackage, quote func(string) string) string {
	if p.Report == nil || len(p.Report.Packages) == 0 {
		return ""
	}
	root := p.Report.Packages[0]
	if root.From.Ref == root.To.Ref && root.From.Commit == root.To.Commit {
		return quote(root.To.Ref)
	}
	return quote(root.From.Ref) + " -> " + quote(root.To.Ref)
}

// markedFiles are the files holding markers of a row left at them.
func markedFiles(p *pkgupdate.FleetPackage) []string {
	var me *pkgupdate.MarkedError
	if errors.As(p.Err, &me) {
		return me.Files
	}
	return nil
}

// rowDetail is what a package's line says after its versions: the files changed and
// the conflicts, or the error.
func rowDetail(p *pkgupdate.FleetPackage) string {
	r := p.Report
	switch {
	case p.Status == pkgupdate.StatusFailed:
		return p.Err.Error()
	case r == nil:
		return ""
	case p.Status == pkgupdate.StatusMarked:
		return fmt.Sprintf("%s changed, %s marked in %s", count(len(r.Files), "file"), count(len(r.Marks), "conflict"),
			strings.Join(markedFiles(p), ", "))
	case p.Status == pkgupdate.StatusPlanned:
		return count(len(r.Files), "file") + " would change"
	case len(r.Files) > 0:
		d := count(len(r.Files), "file") + " changed"
		if n := r.Conflicts(); n > 0 {
			d += fmt.Sprintf(", %s settled by --on-conflict", count(n, "conflict"))
		}
		return d
	}
	return ""
}

// printFleetRow writes a package's line for a person (status, directory, versions,
// what changed or the error), under --plan after its report. Names and messages are
// escaped.
func printFleetRow(w io.Writer, p *pkgupdate.FleetPackage, plan bool) {
	esc := scrub.Escape
	if plan && p.Report != nil && len(p.Report.Files) > 0 {
		fmt.Fprintf(w, "== %s\n", esc(p.Dir))
		printReport(w, p.Report, p.Err)
	}
	line := fmt.Sprintf("%-11s %s", p.Status, esc(p.Dir))
	if v := versions(p, esc); v != "" {
		line += "  " + v
	}
	if d := rowDetail(p); d != "" {
		lines := strings.Split(d, "\n")
		for i := range lines {
			lines[i] = esc(lines[i])
		}
		line += ": " + strings.Join(lines, "\n    ")
	}
	fmt.Fprintln(w, line)
}

// printFleetSummary writes the fleet's summary and, when packages stopped at markers,
// the commands that conclude or undo them (concludeCommand).
func printFleetSummary(w io.Writer, rep *pkgupdate.FleetReport) {
	fmt.Fprintln(w, "Summary: "+fleetSummary(rep)+".")
	if rep.Count(pkgupdate.StatusMarked) > 0 {
		cont := scrub.Escape(concludeCommand(rep))
		fmt.Fprintf(w, "Resolve the conflict markers (an editor's merge tool reads them), then record the new releases with\n  %s --continue\n"+
			"or put those packages back as they were with\n  %s --abort\n", cont, cont)
	}
}
