package pkgupdate

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/internal/testsupport"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
)

// markHunk is one hunk of conflict markers: its sides and where its local side is in
// the text with every local side chosen (0-based line, length).
type markHunk struct {
	local, base, upstream string
	at, lines             int
}

// hunksOf returns the hunks of a marked text, in order.
func hunksOf(t *testing.T, text string) []markHunk {
	t.Helper()
	var hs []markHunk
	var h *markHunk
	state, line := byte(0), 0
	for _, l := range strings.SplitAfter(text, "\n") {
		switch {
		case strings.HasPrefix(l, "<<<<<<< ") && state == 0:
			hs = append(hs, markHunk{at: line})
			h, state = &hs[len(hs)-1], 'l'
			continue
		case strings.HasPrefix(l, "||||||| ") && state == 'l':
			state = 'b'
			continue
		case l == "=======\n" && state == 'b':
			state = 'u'
			continue
		case strings.HasPrefix(l, ">>>>>>> ") && state == 'u':
			state = 0
			continue
		}
		switch state {
		case 0:
			line++
		case 'l':
			h.local += l
			h.lines++
			line++
		case 'b':
			h.base += l
		case 'u':
			h.upstream += l
		}
	}
	if state != 0 {
		t.Fatalf("unterminated hunk in:\n%s", text)
	}
	return hs
}

// genConflictFile is a generated resource file: its original and updated releases and
// the local edit, one field changed on each side, each side with its own line
// comment on that field's line (or none).
type genConflictFile struct {
	v1, v2     string
	line       string // the field's line in v1, as kpt pkg get writes it
	localLine  string // the line the local copy has instead
	key, field string
}

func genConflict(r *rand.Rand, i int) genConflictFile {
	comment := func(who string) string {
		switch r.Intn(3) {
		case 0:
			return ""
		case 1:
			return " # " + who + " note"
		}
		return fmt.Sprintf(" # %s says %d", who, r.Intn(100))
	}
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"}
	word := func() string { return words[r.Intn(len(words))] + fmt.Sprint(r.Intn(9)) }
	type field struct{ key, v1, v2, local string }
	var render func(fs []field, vals func(field) string) string
	var fs []field
	name := fmt.Sprintf("r%d", i)
	if r.Intn(3) == 0 { // lines of a multi-line string: the header, with a local comment, stays out
		lines := []string{"one", "two", "three", "four", "five"}[:3+r.Intn(3)]
		c := 1 + r.Intn(len(lines)-1)
		render := func(changed string) string {
			s := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  script: |\n"
			for k, l := range lines {
				if k == c {
					l = changed
				}
				s += "    " + l + "\n"
			}
			return s + "  plain: x\n"
		}
		return genConflictFile{v1: render(lines[c]), v2: render(word() + " up"), line: "    " + lines[c] + "\n",
			localLine: "    " + word() + " mine\n", key: "script"}
	}
	if r.Intn(2) == 0 {
		for k := 0; k < 3+r.Intn(4); k++ {
			fs = append(fs, field{key: fmt.Sprintf("k%d", k), v1: word()})
		}
		render = func(fs []field, vals func(field) string) string {
			s := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n"
			for _, f := range fs {
				s += "  " + f.key + ": " + vals(f) + "\n"
			}
			return s
		}
	} else {
		fs = []field{{key: "replicas", v1: fmt.Sprint(1 + r.Intn(3))}, {key: "image", v1: "app:1." + fmt.Sprint(r.Intn(9))},
			{key: "value", v1: word()}, {key: "terminationGracePeriodSeconds", v1: "30"}}
		render = func(fs []field, vals func(field) string) string {
			return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\n  labels:\n    app: " + name + "\nspec:\n" +
				"  replicas: " + vals(fs[0]) + "\n  selector:\n    matchLabels:\n      app: " + name + "\n  template:\n    spec:\n" +
				"      containers:\n      - name: main\n        image: " + vals(fs[1]) + "\n        env:\n        - name: MODE\n" +
				"          value: " + vals(fs[2]) + "\n      terminationGracePeriodSeconds: " + vals(fs[3]) + "\n"
		}
	}
	c := r.Intn(len(fs))
	f := &fs[c]
	base, up, local := comment("base"), comment("upstream"), " # local note"
	if r.Intn(3) == 0 {
		up = base // upstream keeps the base's comment
	}
	switch f.key {
	case "replicas", "terminationGracePeriodSeconds":
		f.v2, f.local = f.v1+"0", f.v1+"5"
	case "image":
		f.v2, f.local = "app:2.0", "app:1.9"
	default:
		f.v2, f.local = word()+"up", word()+"mine"
	}
	v1 := render(fs, func(g field) string {
		if g.key == f.key {
			return g.v1 + base
		}
		return g.v1
	})
	v2 := render(fs, func(g field) string {
		if g.key == f.key {
			return g.v2 + up
		}
		return g.v1
	})
	var line string
	for _, l := range strings.SplitAfter(v1, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " -"), f.key+": "+f.v1) {
			line = l
		}
	}
	return genConflictFile{v1: v1, v2: v2, line: line, localLine: line[:strings.Index(line, f.key)] + f.key + ": " + f.local + local + "\n",
		key: f.key, field: f.key}
}

// TestMarkSidesAsGitWritesThem, a differential test against git: generated ConfigMaps
// and Deployments, one field (or one line of a multi-line string, its header with a
// local comment) changed differently on each side with a line comment of each side's
// own, marked by an update; for each file, `git merge-file --diff3` on the
// three files (local: every local side chosen; base: the original release's file as
// fetched; upstream: the updated release's) writes one conflict hunk there, and its
// three sides are the marked hunk's, byte for byte.
func TestMarkSidesAsGitWritesThem(t *testing.T) {
	kinds := map[string]int{}
	defer func() {
		if !t.Failed() && (kinds["script"] == 0 || kinds["replicas"]+kinds["image"]+kinds["value"] == 0) {
			t.Errorf("the cases hold no multi-line string or no Deployment: %v", kinds)
		}
	}()
	for _, seed := range []int64{1, 2, 3} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(seed))
			v1 := map[string]string{"Kptfile": markV1.files["Kptfile"]}
			v2 := map[string]string{}
			gen := map[string]genConflictFile{}
			for i := 0; i < 8; i++ {
				g := genConflict(r, i)
				p := fmt.Sprintf("r%d.yaml", i)
				v1[p], v2[p], gen[p] = g.v1, g.v2, g
				kinds[g.key]++
			}
			dirs, cache := markPackages(t, 1, nil, release{tag: "v1", files: v1}, release{tag: "v2", files: v2})
			dir := dirs[0]
			for p, g := range gen {
				s := read(t, filepath.Join(dir, p))
				if !strings.Contains(s, g.line) {
					t.Fatalf("%s: the local copy lacks %q:\n%s", p, g.line, s)
				}
				s = strings.Replace(s, g.line, g.localLine, 1)
				if g.key == "script" {
					s = strings.Replace(s, "  script: |\n", "  script: | # local note\n", 1)
				}
				writeFiles(t, dir, map[string]string{p: s})
			}
			git(t, filepath.Dir(dir), "commit", "-qam", "customise")
			if _, err := update(dir, cache, config.MarkConflicts); err == nil {
				t.Fatal("want conflicts marked")
			}
			tmp := t.TempDir()
			for i := 0; i < len(gen); i++ {
				p := fmt.Sprintf("r%d.yaml", i)
				marked := read(t, filepath.Join(dir, p))
				ours := hunksOf(t, marked)
				if len(ours) != 1 {
					t.Errorf("%s (%s): %d hunks, want 1:\n%s", p, gen[p].key, len(ours), marked)
					continue
				}
				local := side(t, marked, 'l')
				out, n := testsupport.GitMergeFile(t, tmp, []byte(v1[p]), []byte(local), []byte(v2[p]), "--diff3", "-L", "local", "-L", "v1", "-L", "v2")
				var theirs *markHunk
				for _, h := range hunksOf(t, string(out)) {
					if h.at < ours[0].at+max(ours[0].lines, 1) && ours[0].at < h.at+max(h.lines, 1) {
						theirs = &h
					}
				}
				if n == 0 || theirs == nil {
					t.Errorf("%s: git writes no hunk where ours is:\n%s\nours:\n%s", p, out, marked)
					continue
				}
				if *theirs != ours[0] {
					t.Errorf("%s (%s): the hunk\n%+v\ngit merge-file --diff3 writes\n%+v", p, gen[p].key, ours[0], *theirs)
				}
				if _, err := pkgio.Parse([]byte(side(t, marked, 'u')), p); err != nil {
					t.Errorf("%s: every upstream side does not parse: %v", p, err)
				}
			}
		})
	}
}

// ingressReleases are the two real ingress-nginx releases of examples/ingress-nginx,
// as releases v1 and v2 of a package (with a Kptfile).
func ingressReleases(t *testing.T) (v1, v2 release) {
	t.Helper()
	rd := func(tag string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "ingress-nginx", "upstream", tag, "deploy.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return release{tag: "v1", files: map[string]string{"Kptfile": markV1.files["Kptfile"], "deploy.yaml": rd("controller-v1.12.0")}},
		release{tag: "v2", files: map[string]string{"deploy.yaml": rd("controller-v1.13.0")}}
}

// markIngress makes a kpt copy of ingress-nginx controller-v1.12.0 customised as the
// demo customises it (images from a mirror, ttlSecondsAfterFinished: 300 with a
// comment on the admission-create job), plus the Namespace's version label changed
// with a comment, and marks its update to controller-v1.13.0; it returns the package.
func markIngress(t *testing.T) string {
	t.Helper()
	v1, v2 := ingressReleases(t)
	dirs, cache := markPackages(t, 1, nil, v1, v2)
	dir := dirs[0]
	p := filepath.Join(dir, "deploy.yaml")
	s := strings.ReplaceAll(read(t, p), "image: registry.k8s.io/", "image: registry.example.com/mirror/")
	s = strings.Replace(s, "      serviceAccountName: ingress-nginx-admission\n---",
		"      serviceAccountName: ingress-nginx-admission\n  ttlSecondsAfterFinished: 300 # keep the pods for debugging\n---", 1)
	s = strings.Replace(s, "    app.kubernetes.io/version: 1.12.0\n  name: ingress-nginx\n", "    app.kubernetes.io/version: 1.12.0-acme # acme build\n  name: ingress-nginx\n", 1)
	if !strings.Contains(s, "ttlSecondsAfterFinished: 300") || !strings.Contains(s, "1.12.0-acme") {
		t.Fatal("the customisation did not apply")
	}
	writeFiles(t, dir, map[string]string{"deploy.yaml": s})
	git(t, filepath.Dir(dir), "commit", "-qam", "customise")
	var me *MarkedError
	if _, err := update(dir, cache, config.MarkConflicts); !errors.As(err, &me) {
		t.Fatalf("want conflicts marked, got %v", err)
	}
	return dir
}

// On the real ingress-nginx releases, each side of a hunk is that side's own text: the
// local comment is on the local side only; upstream's ttlSecondsAfterFinished is
// upstream's line, the base has none.
func TestMarkIngressSidesAreTheirOwn(t *testing.T) {
	dir := markIngress(t)
	marked := read(t, filepath.Join(dir, "deploy.yaml"))
	want := []markHunk{
		{local: "    app.kubernetes.io/version: 1.12.0-acme # acme build\n", base: "    app.kubernetes.io/version: 1.12.0\n",
			upstream: "    app.kubernetes.io/version: 1.13.0\n"},
		{local: "  ttlSecondsAfterFinished: 300 # keep the pods for debugging\n", base: "", upstream: "  ttlSecondsAfterFinished: 0\n"},
	}
	got := hunksOf(t, marked)
	if len(got) != len(want) {
		t.Fatalf("%d hunks, want %d:\n%s", len(got), len(want), marked)
	}
	for i := range want {
		got[i].at, got[i].lines = 0, 0
		if got[i] != want[i] {
			t.Errorf("hunk %d:\n%+v\nwant\n%+v", i, got[i], want[i])
		}
	}
	for _, s := range []byte{'l', 'b', 'u'} {
		if _, err := pkgio.Parse([]byte(side(t, marked, s)), "deploy.yaml"); err != nil {
			t.Errorf("every %c side does not parse: %v", s, err)
		}
	}
}

// A multi-line string whose original value yaml.v3 cannot write as a block (a line
// with trailing spaces: kpt's copy holds it double-quoted), written as a block locally
// and changed on one line on each side: the hunk holds that line only, each side's
// own, and the block's header, which no side changed, stays out of it with its bytes.
func TestMarkBlockHeaderStaysOut(t *testing.T) {
	cm := func(first string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  f: |\n    " + first + "\n    two\n    three\n    four\n  g: x\n"
	}
	v1 := release{tag: "v1", files: map[string]string{"Kptfile": markV1.files["Kptfile"], "c.yaml": cm("one  ")}}
	v2 := release{tag: "v2", files: map[string]string{"c.yaml": cm("ONE")}}
	dirs, cache := markPackages(t, 1, nil, v1, v2)
	dir := dirs[0]
	p := filepath.Join(dir, "c.yaml")
	s := read(t, p)
	quoted := `  f: "one  \ntwo\nthree\nfour\n"` + "\n"
	if !strings.Contains(s, quoted) {
		t.Fatalf("kpt's copy does not hold the value double-quoted:\n%s", s)
	}
	writeFiles(t, dir, map[string]string{"c.yaml": strings.Replace(s, quoted, "  f: |\n    uno\n    two\n    three\n    four\n", 1)})
	git(t, filepath.Dir(dir), "commit", "-qam", "customise")
	if _, err := update(dir, cache, config.MarkConflicts); err == nil {
		t.Fatal("want conflicts marked")
	}
	marked := read(t, p)
	want := "data:\n  f: |\n<<<<<<< local\n    uno\n||||||| v1\n    one  \n=======\n    ONE\n>>>>>>> v2\n    two\n"
	if !strings.Contains(marked, want) {
		t.Errorf("c.yaml:\n%s\nwant the hunk:\n%s", marked, want)
	}
}

// --continue names a YAML error at the line of the user's file where the user broke
// it, far into a file of many documents (yaml.v3 names the start of the enclosing
// block there), and the message names no other line.
func TestMarkContinueNamesTheUsersLine(t *testing.T) {
	dir := markIngress(t)
	p := filepath.Join(dir, "deploy.yaml")
	lines := strings.SplitAfter(side(t, read(t, p), 'l'), "\n")
	at := 0 // a key deep in a mapping, far into the file: dedented by one space
	for i := 400; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "        ") && !strings.HasPrefix(lines[i], "         ") && strings.Contains(lines[i], ": ") &&
			!strings.Contains(lines[i], "- ") && strings.HasPrefix(lines[i-1], "        ") {
			at = i
			break
		}
	}
	if at == 0 {
		t.Fatal("no line to break")
	}
	lines[at] = lines[at][1:]
	writeFiles(t, dir, map[string]string{"deploy.yaml": strings.Join(lines, "")})
	_, err := Continue(context.Background(), Options{Dir: dir})
	var ue *UnresolvedError
	if !errors.As(err, &ue) || len(ue.Problems) != 1 {
		t.Fatalf("want one problem, got %v", err)
	}
	pr := ue.Problems[0]
	if pr.File != "deploy.yaml" || pr.Line != at+1 || !strings.Contains(pr.Message, "does not parse as YAML") {
		t.Errorf("problem %s, want deploy.yaml:%d, does not parse as YAML", pr, at+1)
	}
	if strings.Contains(pr.Message, "line ") && !strings.Contains(pr.Message, fmt.Sprintf("line %d", at+1)) &&
		!strings.Contains(pr.Message, "starts at line") {
		t.Errorf("the message names another line: %s", pr.Message)
	}
}
