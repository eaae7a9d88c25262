package pkgcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

// evilFleet is a fleet report whose every name, ref and message holds what a terminal
// or a Markdown renderer would act on: a package marked, one failed, one updated.
func evilFleet() *pkgupdate.FleetReport {
	marked := evilReport()
	marked.Plan = false
	marked.Marks = []pkgupdate.Mark{{File: "f" + evil + "](http://x)", Start: 3, End: 9}}
	markErr := &pkgupdate.MarkedError{Dir: "m" + evil, Files: []string{"f" + evil}}
	md := "<img src=x onerror=alert(1)>|`code`[link](http://evil)\n# heading"
	return &pkgupdate.FleetReport{Packages: []*pkgupdate.FleetPackage{
		{Dir: "m" + evil + md, Status: pkgupdate.StatusMarked, Error: markErr.Error(), Err: markErr, Report: marked},
		{Dir: "f" + evil, Status: pkgupdate.StatusFailed, Error: "x", Err: errors.New("bad" + evil + md)},
		{Dir: "u" + md, Status: pkgupdate.StatusUpdated, Report: evilReport()},
	}}
}

// The fleet's text rows and summary, JSON Lines and Markdown carry no byte a terminal
// acts on; the Markdown has no HTML tag, link, code span, heading or extra table cell
// from a name or a message, and the JSON decodes to the exact values.
func TestFleetReportsEscape(t *testing.T) {
	rep := evilFleet()
	var text bytes.Buffer
	for _, p := range rep.Packages {
		printFleetRow(&text, p, true)
	}
	printFleetSummary(&text, rep)
	for i, line := range strings.Split(text.String(), "\n") {
		if u := unsafe(line, strings.HasPrefix(line, "    -")); u != "" {
			t.Errorf("text line %d holds %s raw: %q", i, u, line)
		}
	}
	var md bytes.Buffer
	writeFleetMarkdown(&md, evilFleet())
	body := md.String()
	if u := unsafe(body, false); u != "" {
		t.Errorf("Markdown holds %s raw:\n%s", u, body)
	}
	// outside the fenced commands, which a renderer shows as they are (one line each,
	// starting with krm-merge: nothing in it can close the fence)
	outside := regexp.MustCompile("(?s)```sh\nkrm-merge [^\n]*\n```").ReplaceAllString(body, "")
	unescaped := regexp.MustCompile("(^|[^\\\\])(<img|\\[link|`code|# heading|```)")
	if m := unescaped.FindString(outside); m != "" {
		t.Errorf("Markdown holds %q unescaped:\n%s", m, outside)
	}
	pipe := regexp.MustCompile(`(^|[^\\])\|`)
	for _, l := range strings.Split(body, "\n") {
		if n := len(pipe.FindAllString(l, -1)); strings.HasPrefix(l, "|") && n != 6 && n != 5 {
			t.Errorf("a table row of %d cells: %q", n-1, l)
		}
	}
	var js bytes.Buffer
	for _, p := range evilFleet().Packages {
		if err := writeEscapedJSONLine(&js, p); err != nil {
			t.Fatal(err)
		}
	}
	if u := unsafe(js.String(), false); u != "" {
		t.Errorf("JSON Lines hold %s raw", u)
	}
	lines := strings.Split(strings.TrimSuffix(js.String(), "\n"), "\n")
	var row pkgupdate.FleetPackage
	if len(lines) != 3 || json.Unmarshal([]byte(lines[0]), &row) != nil || row.Dir != rep.Packages[0].Dir {
		t.Errorf("JSON Lines do not decode to the rows: %d lines, %q", len(lines), row.Dir)
	}
}
