package pkgupdate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
)

// Continue concludes an update of opts.Dir that stopped at conflict markers
// (onConflict mark): once no marker is left in the marked files, each of them that
// must parse parses (a KRM file, a YAML text file), no upstream version is left beside
// a local file, and each Kptfile to record parses, it records the new release in each
// Kptfile as an update records it, deletes each marked file upstream had deleted that
// was resolved to nothing but white space, and removes the update's state, all in
// one all-or-nothing write. Only opts.Dir, opts.MaxFileSize, opts.LockTimeout and opts.Log are read. It returns
// what it changed (Report.Files). A Continue or Abort that was interrupted while writing
// is finished first (Report.Recovered); when that concluded the update, there is
// nothing more to do.
// Errors: ErrNotInProgress; *UnresolvedError (nothing changed); a state that cannot be
// trusted; the errors of stage (a lock held, a write failing: nothing changed).
func Continue(ctx context.Context, opts Options) (*Report, error) {
	return conclude(ctx, opts, true)
}

// Abort puts opts.Dir back exactly as it was before an update that stopped at conflict
// markers: every file the update changed gets its prior content and mode back (or is
// removed again, when the update added it), whatever was done to it since, the
// directories above files the update deleted their modes, and the update's state is
// removed, all in one all-or-nothing write; files the update did not touch are left as
// they are. Only opts.Dir, opts.MaxFileSize, opts.LockTimeout and opts.Log are read. It returns what it changed.
// Errors: ErrNotInProgress; a state that cannot be trusted; the errors of stage.
func Abort(ctx context.Context, opts Options) (*Report, error) {
	return conclude(ctx, opts, false)
}

// conclude is Continue (cont) or Abort.
func conclude(ctx context.Context, opts Options, cont bool) (*Report, error) {
	given := opts.Dir
	dir, err := resolveDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	if opts.LockTimeout < 0 {
		return nil, fmt.Errorf("LockTimeout %s: want a positive duration, or 0", opts.LockTimeout)
	}
	unlock, err := stage.LockWait(ctx, dir, opts.LockTimeout, opts.Log)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rep := &Report{Dir: given, Packages: []*PackageReport{}, Files: []FileChange{}}
	recovered, err := stage.Recover(dir)
	if err != nil {
		return nil, err
	}
	if recovered != stage.Nothing {
		rep.Recovered = recovered.String()
	}
	st, found, err := readState(dir, opts.MaxFileSize)
	if err != nil {
		return nil, err
	}
	if !found && (recovered == stage.RolledForward || recovered == stage.RolledBack) {
		return rep, nil // the interrupted command was this one (or one that concluded the update): finished by the recovery
	}
	if !found {
		what := "continue"
		if !cont {
			what = "abort"
		}
		return rep, fmt.Errorf("%w in %s: nothing to %s", ErrNotInProgress, scrub.Escape(given), what)
	}
	defer st.close()
	var changes []fileChange
	if cont {
		if changes, err = st.continueChanges(dir, opts.MaxFileSize); err != nil {
			var ue *UnresolvedError
			if errors.As(err, &ue) {
				ue.Dir = given
			}
			return rep, err
		}
	} else if changes, err = st.abortChanges(dir, opts.MaxFileSize); err != nil {
		return nil, err
	}
	all := make([]stage.Change, 0, len(changes)+len(st.Prior)+2)
	for _, c := range changes {
		all = append(all, c.change)
		rep.Files = append(rep.Files, FileChange{Path: c.change.Path, Action: c.action})
	}
	for _, name := range []string{stateFile, stateIgnore} {
		all = append(all, stage.Change{Path: stateDirName + "/" + name, Delete: true})
	}
	for _, p := range st.Prior {
		if p.Blob != "" {
			all = append(all, stage.Change{Path: stateDirName + "/" + p.Blob, Delete: true})
		}
	}
	if err := stage.Apply(dir, all); err != nil {
		return nil, err
	}
	if !cont {
		if err := restoreDirModes(dir, st.Dirs); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// yamlLine is the line number a YAML parser's message starts with ("yaml: line 5: ").
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// yamlProblem returns where the YAML data stops parsing, for err, the error of parsing
// it: the line of data (from 1; 0 when err names none) and the problem without a line
// number. yaml.v3 names the line where the block holding the problem starts (libyaml's
// context mark: a mapping's first key, many lines above a key indented wrongly), so
// the line is found by parsing the document holding that line (from the "---" before
// it) up to each line from there on: the first whose prefix fails with the same
// problem is the line, when the parses stay under 64 MiB of input; else yaml.v3's.
func yamlProblem(data []byte, err error) (int, string) {
	msg := err.Error()
	s := yamlLine.FindStringSubmatch(msg)
	if s == nil {
		return 0, strings.TrimPrefix(msg, "yaml: ")
	}
	ctx, _ := strconv.Atoi(s[1])
	msg = msg[len(s[0]):]
	lines := bytes.SplitAfter(data, []byte("\n"))
	off := make([]int, len(lines)+1) // where each line starts in data
	for i, l := range lines {
		off[i+1] = off[i] + len(l)
	}
	start := 0 // the first line of the document holding line ctx
	for i := min(ctx, len(lines)) - 1; i >= 0; i-- {
		if l := bytes.TrimRight(lines[i], "\r\n"); bytes.HasPrefix(l, []byte("---")) && (len(l) == 3 || l[3] == ' ' || l[3] == '\t') {
			start = i + 1
			break
		}
	}
	budget := 64 << 20
	for k := max(start, ctx-3); k < len(lines) && budget > 0; k++ {
		prefix := data[off[start]:off[k+1]]
		budget -= len(prefix)
		if p := yamlError(prefix); p != nil {
			if m := yamlLine.FindStringSubmatch(p.Error()); m != nil && p.Error()[len(m[0]):] == msg {
				return k + 1, msg
			}
		}
	}
	return ctx, msg
}

// yamlError is the error of decoding every document of data with yaml.v3, as
// pkgio.Parse does first; nil when data is well-formed.
func yamlError(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// continueChanges checks that the update is resolved (else *UnresolvedError) and
// returns Continue's changes: each Kptfile recording the new release, each marked file
// upstream had deleted that was resolved to nothing deleted.
func (o *openState) continueChanges(dir string, limit int64) ([]fileChange, error) {
	var problems []Problem
	var changes []fileChange
	problem := func(file string, line int, format string, args ...interface{}) {
		problems = append(problems, Problem{File: file, Line: line, Message: fmt.Sprintf(format, args...)})
	}
	for _, m := range o.Marked {
		if m.Beside != "" {
			if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(m.Beside))); err == nil {
				problem(m.Beside, 0, "upstream's %s version of %s is still beside it: keep one (move it over %s, or remove it)", o.To, m.Path, m.Path)
			}
			continue
		}
		data, _, err := pkgio.ReadFile(filepath.Join(dir, filepath.FromSlash(m.Path)), limit)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			continue // resolved by deleting it
		case err != nil:
			problem(m.Path, 0, "%v", err)
			continue
		}
		before := len(problems)
		var seps []int
		for i, line := range bytes.SplitAfter(data, []byte("\n")) {
			if !textmerge.IsMarker(line) {
				continue
			}
			if line[0] == '=' {
				seps = append(seps, i+1)
				continue
			}
			problem(m.Path, i+1, "a conflict marker is left: %s", strings.TrimRight(string(line), "\r\n"))
		}
		if len(seps) > m.Separators {
			for _, n := range seps {
				problem(m.Path, n, "a conflict marker is left: =======")
			}
		}
		sort.SliceStable(problems[before:], func(i, j int) bool { return problems[before+i].Line < problems[before+j].Line })
		if len(problems) > before {
			continue
		}
		if m.YAML {
			if _, err := pkgio.Parse(data, m.Path); err != nil {
				line, msg := yamlProblem(data, err)
				problem(m.Path, line, "does not parse as YAML: %s", msg)
				continue
			}
		}
		if m.UpstreamAbsent && len(bytes.TrimSpace(data)) == 0 {
			changes = append(changes, fileChange{change: stage.Change{Path: m.Path, Delete: true}, action: "deleted", old: data})
		}
	}
	for _, r := range o.Records {
		data, mode, err := pkgio.ReadFile(filepath.Join(dir, filepath.FromSlash(r.File)), limit)
		if err != nil {
			problem(r.File, 0, "cannot record the new release: %v", err)
			continue
		}
		out, err := recordKptfile(data, r.File, r)
		if err != nil {
			problem(r.File, 0, "cannot record the new release: %v", strings.TrimPrefix(err.Error(), r.File+": "))
			continue
		}
		if !bytes.Equal(out, data) {
			changes = append(changes, fileChange{change: stage.Change{Path: r.File, Data: out, Mode: mode}, action: "modified", old: data})
		}
	}
	if len(problems) > 0 {
		sort.SliceStable(problems, func(i, j int) bool { return problems[i].File < problems[j].File })
		return nil, &UnresolvedError{Problems: problems}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].change.Path < changes[j].change.Path })
	return changes, nil
}

// abortChanges returns Abort's changes: each file the update changed back to its prior
// content and mode (when it differs now), or removed again.
func (o *openState) abortChanges(dir string, limit int64) ([]fileChange, error) {
	var changes []fileChange
	for _, p := range o.Prior {
		full := filepath.Join(dir, filepath.FromSlash(p.Path))
		now, mode, err := pkgio.ReadFile(full, limit)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			if fi, lerr := os.Lstat(full); lerr == nil && fi.IsDir() {
				exists = false // a directory made since: stage refuses to write over it, naming it
			} else {
				return nil, &pkgio.Error{Path: p.Path, Err: err}
			}
		}
		if !p.Existed {
			if exists {
				changes = append(changes, fileChange{change: stage.Change{Path: p.Path, Delete: true}, action: "deleted"})
			}
			continue
		}
		data, err := o.read(p.Blob, limit)
		if err != nil {
			return nil, err
		}
		if exists && bytes.Equal(data, now) && uint32(mode.Perm()) == p.Mode {
			continue
		}
		action := "modified"
		if !exists {
			action = "added"
		}
		changes = append(changes, fileChange{change: stage.Change{Path: p.Path, Data: data, Mode: fs.FileMode(p.Mode)}, action: action})
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].change.Path < changes[j].change.Path })
	return changes, nil
}

// restoreDirModes gives each directory of dirs that exists its recorded mode back
// (directories Abort made again are made with the umask's), through an os.Root of dir,
// so that nothing outside dir is changed.
func restoreDirModes(dir string, dirs []priorDir) error {
	if len(dirs) == 0 {
		return nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, d := range dirs {
		fi, err := root.Lstat(d.Path)
		if err != nil || !fi.IsDir() || unixMode(fi.Mode()) == d.Mode {
			continue
		}
		if err := root.Chmod(d.Path, fileMode(d.Mode)); err != nil {
			return fmt.Errorf("restoring the mode of %s: %w", scrub.Escape(d.Path), err)
		}
	}
	return nil
}

// Problem is one reason Continue refuses to conclude an update.
type Problem struct {
	// File is relative to the package directory.
	File string `json:"file"`
	// Line is the line, from 1; 0 when the problem is the file's as a whole.
	Line int `json:"line,omitempty"`
	// Message says what is wrong.
	Message string `json:"message"`
}

// String is "file[:line]: message", escaped as Conflict.String is.
func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc += ":" + strconv.Itoa(p.Line)
	}
	return scrub.Escape(loc + ": " + p.Message)
}

// UnresolvedError is Continue's refusal: conflict markers are left, a file does not
// parse, or upstream's version of a file is still beside it. Nothing was changed.
type UnresolvedError struct {
	// Dir is the package directory as given.
	Dir string
	// Problems are every problem found, in file order.
	Problems []Problem
}

// Error lists every problem, one per line, and says how to go on.
func (e *UnresolvedError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = "  " + p.String()
	}
	return fmt.Sprintf("the update of %s is not resolved; nothing was changed (resolve each, then --continue again, or --abort):\n%s",
		scrub.Escape(e.Dir), strings.Join(lines, "\n"))
}
