package resourcelist_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/function"
)

// keepValues are data values as a person writes them, each reading fine, that yaml.v3
// writes otherwise (so kyaml's writer would change their bytes): a block with a
// trailing space, a non-BMP character in quotes, a block starting with an empty line,
// a tab in quotes, a folded block, a block with an indentation indicator, a keep
// block, spacing in a flow list and before a comment, a wide list, a long line.
var keepValues = []string{
	"|\n      b \n      c\n",
	"\"emoji 🎉\"\n",
	"|\n\n      x\n      y\n",
	"\"a\\tb\"\n",
	">\n      folded\n      text\n",
	"|2\n       indented\n      x\n",
	"|+\n      keep\n\n",
	"[ a,  b ]\n",
	"v   # spaced comment\n",
	"'single'\n",
	"\"" + strings.Repeat("long ", 300) + "\"\n",
	"\"\\tt\\n1\\n2\\n3\\n\"\n",
	"plain value\n",
	"\n      - a\n      -   b\n",
}

// keepItem is a ConfigMap item with dash at column 0, named name, with role ("" for
// none; the role annotation is the second of two), and data keys k0.. with values.
func keepItem(name, role string, values []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: %s\n    annotations:\n      note: \"kept\"\n", name)
	if role != "" {
		fmt.Fprintf(&b, "      config.kubernetes.io/merge-source: %s\n", role)
	}
	b.WriteString("  data:\n")
	for i, v := range values {
		fmt.Fprintf(&b, "    k%d: %s", i, v)
	}
	return b.String()
}

// TestKeepsInputBytes: through the function as the binary runs it, an item with no
// role comes out with its input bytes; with original == updated every dest item comes
// out with its input bytes (merge(O, O, D) is D byte for byte); and where upstream
// changed one line, dest's other lines keep their bytes; on generated items made of
// keepValues, which kyaml's writer would re-encode. The output reads as kyaml's.
func TestKeepsInputBytes(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	passCases, destCases, spliced := 0, 0, 0
	for c := range 150 {
		var in strings.Builder
		in.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
		var pass, dest []string
		for i := range 1 + r.Intn(3) {
			var vs []string
			for range 1 + r.Intn(4) {
				vs = append(vs, keepValues[r.Intn(len(keepValues))])
			}
			name := fmt.Sprintf("cm%d", i)
			o := keepItem(name, "original", vs)
			d := keepItem(name, "dest", append(vs[:len(vs):len(vs)], keepValues[r.Intn(len(keepValues))]))
			p := keepItem("pass"+name, "", vs)
			u := strings.Replace(o, ": original\n", ": updated\n", 1)
			want := d
			if r.Intn(2) == 0 { // upstream changes one line: dest's other lines stay
				u = strings.Replace(u, `note: "kept"`, `note: "changed"`, 1)
				want = strings.Replace(d, `note: "kept"`, `note: "changed"`, 1)
				spliced++
			}
			in.WriteString(o + u + d + p)
			dest = append(dest, want)
			pass = append(pass, p)
		}
		out, err, used := fast(function.Processor{}, []byte(in.String()))
		if err != nil || !used {
			t.Fatalf("case %d: error %v, fast reader used %v\n%s", c, err, used, in.String())
		}
		for _, want := range append(pass, dest...) {
			if !bytes.Contains(out, []byte(want)) {
				t.Fatalf("case %d: the output lacks the item's input bytes:\n%s\noutput:\n%s", c, want, out)
			}
		}
		// The bytes read as kyaml's writer's.
		want, werr := slow(function.Processor{}, []byte(in.String()))
		if werr != nil {
			t.Fatal(werr)
		}
		a, _ := slow(noop, out)
		b, _ := slow(noop, want)
		if !bytes.Equal(a, b) {
			t.Fatalf("case %d: the output does not read as kyaml's:\n%s\nkyaml's:\n%s", c, out, want)
		}
		passCases += len(pass)
		destCases += len(dest)
	}
	t.Logf("byte for byte: %d pass-through items, %d dest items (%d of them with a line changed upstream)", passCases, destCases, spliced)
}
