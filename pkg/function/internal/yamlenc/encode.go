package yamlenc

import (
	"runtime"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/parallel"
)

// maxDepth bounds the recursion; deeper items are declined (yaml.v3 writes them).
const maxDepth = 1000

// maxSimpleKey is the longest simple key yaml.v3 writes (yaml_emitter_check_simple_key);
// longer keys are written as complex keys ("? "), outside the subset.
const maxSimpleKey = 128

// encoder is the part of yaml.v3's emitter state the subset needs (yaml_emitter_t's
// column, whitespace and indention), and the output.
//
// The column is kept exact only while indention is set: yaml_emitter_write_indent,
// its only reader here, starts a new line (column 0) when indention is off, and
// every writer of a scalar's characters turns indention off. So the scalar writers
// do not count characters.
type encoder struct {
	buf  []byte
	col  int      // column, while ind is set
	ws   bool     // whitespace: the last character written was a space or indentation
	ind  bool     // indention: only indentation and indicators like "-" on this line so far
	par  bool     // long block sequences are written on all cores (elements)
	done [][]byte // with par, the pieces written before buf, in order
}

// AppendItem appends to dst exactly the bytes kyaml's encoder writes for item n as one
// element of the top-level block sequence `items:` (the document {items: [n]} encoded
// by kyaml's yaml.NewEncoder, without its first line "items:\n"), and reports true; or
// returns dst unchanged and false when n is outside the supported subset (the caller
// then uses yaml.v3).
//
// The bytes of a run of items are the concatenation of theirs: {items: [a, b]} is
// "items:\n" followed by AppendItem's bytes for a, then for b.
func AppendItem(dst []byte, n *yaml.Node) ([]byte, bool) {
	e := encoder{buf: dst}
	if !e.item(n) {
		return dst, false
	}
	return e.buf, true
}

// ItemOnAllCores is AppendItem for one large node, such as a functionConfig holding
// two releases' resources in lists: the same answer, and the same bytes in pieces to
// write in order (their concatenation is AppendItem's bytes), with the elements of
// n's long block sequences (parallelElements or more) written on all cores, in runs
// that are pieces of their own (nothing is copied to join them).
func ItemOnAllCores(n *yaml.Node) ([][]byte, bool) {
	e := encoder{par: true}
	if !e.item(n) {
		return nil, false
	}
	return append(e.done, e.buf), true
}

// item writes n as AppendItem does, after e's buf.
func (e *encoder) item(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	// The state after "items:" and the break yaml_emitter_write_indent writes before
	// the first "-".
	e.col, e.ws, e.ind = 0, true, true
	e.indicator("-", true, false, true)
	if !e.node(n, 0, true, 0) {
		return false
	}
	// The document end (or the next item) starts a line at indentation 0.
	e.writeIndent(0)
	return true
}

// node writes n as the emitter does: indent is the indentation of the enclosing
// collection, inSeq tells whether n is a block sequence item (the emitter's state
// stack then has BLOCK_SEQUENCE_ITEM on top), otherwise n is a block mapping value.
// It reports false when n is outside the subset.
func (e *encoder) node(n *yaml.Node, indent int, inSeq bool, depth int) bool {
	if n.Anchor != "" || n.HeadComment != "" || n.LineComment != "" || n.FootComment != "" ||
		n.Style&yaml.TaggedStyle != 0 || depth > maxDepth {
		return false
	}
	switch n.Kind {
	case yaml.ScalarNode:
		// yaml_emitter_increase_indent(flow=true): indentation is always even, so
		// both of its branches give indent+2.
		return e.scalar(n, indent+2, false)

	case yaml.MappingNode:
		if n.Tag != "" && !tagIs(n.Tag, mapTag) || len(n.Content)%2 != 0 {
			return false
		}
		if len(n.Content) == 0 {
			e.indicator("{", true, true, false)
			e.indicator("}", false, false, false)
			return true
		}
		if n.Style&yaml.FlowStyle != 0 {
			return false
		}
		in := indent + 2
		for i := 0; i < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k == nil || v == nil || k.Kind != yaml.ScalarNode || k.Anchor != "" ||
				k.HeadComment != "" || k.LineComment != "" || k.FootComment != "" ||
				k.Style&yaml.TaggedStyle != 0 {
				return false
			}
			e.writeIndent(in)
			if !e.scalar(k, in+2, true) {
				return false
			}
			e.indicator(":", false, false, false)
			if !e.node(v, in, false, depth+1) {
				return false
			}
		}
		return true

	case yaml.SequenceNode:
		if n.Tag != "" && !tagIs(n.Tag, seqTag) {
			return false
		}
		if len(n.Content) == 0 {
			e.indicator("[", true, true, false)
			e.indicator("]", false, false, false)
			return true
		}
		if n.Style&yaml.FlowStyle != 0 {
			return false
		}
		// yaml_emitter_increase_indent_compact: an item of a sequence indents by 2; a
		// mapping value (after "key:", so indention is off) is a compact sequence at
		// its key's indentation.
		in := indent
		if inSeq {
			in += 2
		}
		if e.par && len(n.Content) >= parallelElements {
			return e.elements(n.Content, in, depth+1)
		}
		for _, c := range n.Content {
			if c == nil {
				return false
			}
			e.writeIndent(in)
			e.indicator("-", true, false, true)
			if !e.node(c, in, true, depth+1) {
				return false
			}
		}
		return true
	}
	// DocumentNode, AliasNode, Kind 0.
	return false
}

// scalar writes scalar node n as (*encoder).node (encode.go) and the emitter do: the
// tag logic, the style asked for, the emitter's analysis and style selection, the
// writer. indent is the scalar's indentation, simpleKey whether it is a mapping key.
// It reports false when yaml.v3 would write a tag (or !!binary), a folded scalar or a
// complex key ("? key").
func (e *encoder) scalar(n *yaml.Node, indent int, simpleKey bool) bool {
	v := n.Value
	forceQuoting := false
	if tag := n.Tag; tag != "" {
		switch {
		case tagIs(tag, strTag) && n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0:
			// dropped
		default:
			rtag := resolve(v)
			switch {
			case tagIs(tag, rtag):
				// dropped
			case tagIs(tag, strTag):
				forceQuoting = true
			default:
				return false // yaml.v3 writes the tag
			}
		}
	}
	style := plainStyle
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		if !simpleKey {
			// The emitter keeps a double-quoted style whatever the value.
			if !utf8.ValidString(v) {
				return false // yaml.v3 writes !!binary
			}
			e.writeDouble(v)
			return true
		}
		style = doubleStyle
	case n.Style&yaml.SingleQuotedStyle != 0:
		style = singleStyle
	case n.Style&yaml.LiteralStyle != 0:
		style = literalStyle
	case n.Style&yaml.FoldedStyle != 0:
		return false
	}
	info := analyze(v)
	if info.invalid {
		return false // yaml.v3 writes !!binary
	}
	if style == plainStyle {
		if info.newline {
			style = literalStyle
		} else if forceQuoting {
			style = doubleStyle
		}
	}
	if simpleKey && (info.multiline || len(v) > maxSimpleKey) {
		return false // yaml_emitter_check_simple_key fails: "? key"
	}
	switch selectStyle(style, info, len(v) == 0, simpleKey) {
	case plainStyle:
		e.writePlain(v)
	case singleStyle:
		e.writeSingle(v, info.multiline, indent)
	case doubleStyle:
		e.writeDouble(v)
	case literalStyle:
		e.writeLiteral(v, indent)
	}
	return true
}

// parallelElements is the length from which ItemOnAllCores writes a block
// sequence's elements on all cores.
const parallelElements = 16

// elements writes the elements of a block sequence at indentation in, as node's loop
// does, in runs of consecutive elements on all cores, each run with its own encoder.
// After writeIndent(in) the state is the same whatever was written before (column in,
// whitespace and indention set), so a run's bytes from its first "-" on do not depend
// on what precedes it; the writeIndent before each run, which does, is written here
// in order, and the state after the run is taken from its encoder. Each run's bytes are
// a piece of e.done, after the bytes before it. Runs do not nest.
func (e *encoder) elements(list []*yaml.Node, in, depth int) bool {
	runs := min(len(list), 4*runtime.GOMAXPROCS(0))
	encs := make([]encoder, runs)
	ok := make([]bool, runs)
	parallel.ForEach(runs, 0, func(r int) {
		from, to := r*len(list)/runs, (r+1)*len(list)/runs
		size := 0
		for _, c := range list[from:to] {
			if c != nil {
				size += textSize(c, in+2)
			}
		}
		ok[r] = true
		// sized ahead: growing by doubling copies megabytes
		encs[r] = encoder{buf: make([]byte, 0, size), col: in, ws: true, ind: true}
		for i, c := range list[from:to] {
			if c == nil {
				ok[r] = false
				return
			}
			if i > 0 {
				encs[r].writeIndent(in)
			}
			encs[r].indicator("-", true, false, true)
			if !encs[r].node(c, in, true, depth) {
				ok[r] = false
				return
			}
		}
	})
	for r := range encs {
		if !ok[r] {
			return false
		}
		e.writeIndent(in)
		e.done = append(e.done, e.buf, encs[r].buf)
		e.buf = nil
		e.col, e.ws, e.ind = encs[r].col, encs[r].ws, encs[r].ind
	}
	return true
}

// textSize estimates the bytes written for n at indentation indent: its scalars' text,
// each after its indentation, and two bytes a node for indicators, ": " and line
// breaks. On real manifests it is 5 to 10% over.
func textSize(n *yaml.Node, indent int) int {
	size := len(n.Value) + 2
	if n.Kind == yaml.ScalarNode {
		size += indent
	}
	for _, c := range n.Content {
		size += textSize(c, indent+2)
	}
	return size
}

// writeIndent is yaml_emitter_write_indent with no comments (foot_indent is -1).
func (e *encoder) writeIndent(indent int) {
	if !e.ind || e.col > indent || e.col == indent && !e.ws {
		e.putBreak()
	}
	if e.col < indent {
		e.buf = appendSpaces(e.buf, indent-e.col)
		e.col = indent
	}
	e.ws = true
}

// indicator is yaml_emitter_write_indicator for an ASCII indicator.
func (e *encoder) indicator(s string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !e.ws {
		e.buf = append(e.buf, ' ')
		e.col++
	}
	e.buf = append(e.buf, s...)
	e.col += len(s)
	e.ws = isWhitespace
	e.ind = e.ind && isIndention
}

// spaces is indentation to copy from.
const spaces = "                                                                "

// appendSpaces appends n spaces to b.
func appendSpaces(b []byte, n int) []byte {
	for n > len(spaces) {
		b = append(b, spaces...)
		n -= len(spaces)
	}
	return append(b, spaces[:n]...)
}
