package resourcelist

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/internal/parallel"
)

// ErrUnsupported says the input needs kyaml's reader (see the package doc); nothing was
// processed.
var ErrUnsupported = errors.New("resourcelist: input needs the kyaml reader")

// List is a ResourceList as read.
type List struct {
	// Items are the items, in input order.
	Items []*yaml.RNode
	// FunctionConfig and Results are the list's fields; nil when absent.
	FunctionConfig, Results *yaml.RNode
	// APIVersion and Kind are the list's own (Kind is "ResourceList").
	APIVersion, Kind string
	// aliases is set when an item holds a YAML alias (items may then share nodes).
	aliases bool
	// in is each item's input text and encoding, for writing an output item that
	// reads as an input item with that item's bytes (keep.go); nil when the input's
	// items do not start at column 0.
	in *inputs
}

// runBytes is the size of input text decoded as one run (a variable for tests).
var runBytes = 256 << 10

// Read decodes a ResourceList as kyaml's ByteReader does (no reader annotations are set
// on ResourceList items). Errors: ErrUnsupported for input the fast path does not read
// (the package documentation lists it; the caller then uses kyaml's reader), among it
// a list whose own head or whose items CheckItems finds malformed, or the YAML
// decoder's error for input kyaml would not read either.
func Read(data []byte) (*List, error) {
	if bytes.IndexByte(data, '\r') >= 0 || bytes.HasPrefix(data, []byte("---")) ||
		bytes.HasPrefix(data, []byte("%")) || bytes.HasPrefix(data, []byte("...")) {
		return nil, ErrUnsupported
	}
	lay, err := layout(data, 0, len(data), 0, "items", true)
	if err != nil {
		return nil, err
	}
	// The list's own fields and its items at once: the one's work on one core (finding
	// a functionConfig's inline lists, decoding the rest) beside the other's runs.
	var l *List
	var list *yaml.Node
	var aliases bool
	errs := make([]error, 2)
	parallel.ForEach(2, 0, func(k int) {
		if k == 0 {
			l, errs[0] = readHead(data, lay)
		} else {
			list, aliases, errs[1] = decodeItems(data, lay, nil)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	items := make([]*yaml.RNode, len(list.Content))
	for i, n := range list.Content {
		items[i] = yaml.NewRNode(n)
	}
	heads := make([]*yaml.Node, len(items))
	for i, it := range items {
		heads[i] = it.YNode()
	}
	if CheckItems(heads) != nil {
		return nil, ErrUnsupported // the caller checks it as read and reports where
	}
	l.Items, l.aliases = items, aliases
	if lay.dash == 0 {
		l.in = &inputs{text: make([][]byte, len(items))}
		for i, start := range lay.starts {
			end := lay.end
			if i+1 < len(lay.starts) {
				end = lay.starts[i+1]
			}
			if t := data[start:end]; len(t) > 0 && t[len(t)-1] == '\n' {
				l.in.text[i] = t[:len(t):len(t)]
			}
		}
	}
	return l, nil
}

// readHead reads the list without its items block lay: its own fields (decodeHead).
// Errors: ErrUnsupported for a list the fast path does not read (Read).
func readHead(data []byte, lay *itemsLayout) (*List, error) {
	doc, err := decodeHead(data, lay)
	if err != nil {
		return nil, ErrUnsupported
	}
	root := yaml.NewRNode(doc)
	meta, err := root.GetMeta()
	if err != nil && err != yaml.ErrMissingMetadata {
		return nil, ErrUnsupported
	}
	if meta.Kind != kio.ResourceListKind || root.YNode().Kind != yaml.MappingNode || bounds.BadHead(root.YNode()) != nil {
		return nil, ErrUnsupported
	}
	l := &List{APIVersion: meta.APIVersion, Kind: meta.Kind}
	if f := root.Field("items"); f == nil || !yaml.IsMissingOrNull(f.Value) {
		return nil, ErrUnsupported // items must be the block we cut out
	}
	if f := root.Field("functionConfig"); f != nil {
		if bounds.AliasOutside(f.Value.YNode()) != "" {
			return nil, ErrUnsupported // written back, the alias has no anchor: the caller reports it
		}
		l.FunctionConfig = f.Value
	}
	if f := root.Field("results"); f != nil {
		l.Results = f.Value
	}
	return l, nil
}

// itemsLayout locates a map entry's value block: bytes [start, end) hold its lines,
// after the line `key:`. For a list, starts[i] is where element i's dash line begins.
type itemsLayout struct {
	start, end int
	starts     []int
	dash       int // column of the elements' dashes
	col        int // column of the key
	key        string
}

// layout scans the lines [from, to) of data, the entries of a block map at column col,
// for the entry whose key line is `key:` alone, and returns where its value's lines
// are; with list, the value must be a block list, whose elements it locates (the items
// block is the top-level `items`). Errors: ErrUnsupported for no such entry, or lines
// the cut at the elements could read differently from a whole-document decode (the
// package documentation lists them).
func layout(data []byte, from, to, col int, key string, list bool) (*itemsLayout, error) {
	lay := &itemsLayout{start: -1, col: col}
	inItems := false
	trailingComment := false
	for pos := from; pos < to; {
		nl := bytes.IndexByte(data[pos:to], '\n')
		end := to
		next := to
		if nl >= 0 {
			end = pos + nl
			next = end + 1
		}
		line := data[pos:end]
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		blank := indent == len(line)
		comment := !blank && line[indent] == '#'
		if bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("...")) {
			return nil, ErrUnsupported // document markers: kyaml splits documents there
		}
		switch {
		case blank:
		case indent < col && !comment: // left of the map's keys
			return nil, ErrUnsupported
		case indent == col && !comment && line[col] != '-':
			// a key of the map (or a document marker or directive, unsupported)
			if line[col] == '%' || line[col] == '\t' {
				return nil, ErrUnsupported
			}
			if inItems {
				if trailingComment {
					return nil, ErrUnsupported
				}
				inItems = false
				lay.end = pos
			}
			if string(line[col:]) == key+":" {
				if lay.start >= 0 {
					return nil, ErrUnsupported // twice
				}
				inItems = true
				lay.start = next
				lay.dash = -1
			}
		case !inItems:
			// inside another entry
		case !list:
			// inside the entry's value
		case comment:
			if lay.dash < 0 || indent <= lay.dash {
				return nil, ErrUnsupported
			}
			trailingComment = true
		default:
			if lay.dash < 0 { // the first item fixes the dash column
				if line[indent] != '-' {
					return nil, ErrUnsupported
				}
				lay.dash = indent
			}
			if indent == lay.dash && line[indent] == '-' && (len(line) == indent+1 || line[indent+1] == ' ') {
				if trailingComment {
					return nil, ErrUnsupported
				}
				lay.starts = append(lay.starts, pos)
			} else if indent < lay.dash+2 {
				return nil, ErrUnsupported
			}
			trailingComment = false
		}
		pos = next
	}
	if inItems {
		if trailingComment {
			return nil, ErrUnsupported
		}
		lay.end = to
	}
	if lay.start < 0 || list && (len(lay.starts) == 0 || lay.starts[0] < lay.start) {
		return nil, ErrUnsupported
	}
	return lay, nil
}

// decodeItems decodes a list's elements in runs of about runBytes, on all cores: each
// run as `key:` at the key's column followed by its own lines, the same text in the
// same context. It returns the list node (the first run's, holding every element in
// order) and whether an element holds an alias. With line set, each run's nodes have
// their line numbers moved to line(p)'s numbering, p being where the run starts (its
// first line is line 2 of the run's text); without, they are the run's. Errors:
// ErrUnsupported for a run that does not decode, does not give exactly the elements
// counted, or holds an element whose head repeats a key (bounds.HeadRepeated).
func decodeItems(data []byte, lay *itemsLayout, line func(p int) int) (*yaml.Node, bool, error) {
	type run struct{ from, to int } // item indexes [from, to)
	var runs []run
	for i := 0; i < len(lay.starts); {
		j := i + 1
		for j < len(lay.starts) && lay.starts[j]-lay.starts[i] < runBytes {
			j++
		}
		runs = append(runs, run{i, j})
		i = j
	}
	items := make([]*yaml.Node, len(lay.starts))
	lists := make([]*yaml.Node, len(runs))
	prefix := []byte(strings.Repeat(" ", lay.col) + "items:\n")
	// Text before the first dash (blank lines) belongs to no item; start at the dash.
	itemEnd := func(i int) int {
		if i+1 < len(lay.starts) {
			return lay.starts[i+1]
		}
		return lay.end
	}
	errs := make([]error, len(runs))
	aliases := make([]bool, len(runs))
	parallel.ForEach(len(runs), 0, func(k int) {
		r := runs[k]
		text := data[lay.starts[r.from]:itemEnd(r.to-1)]
		doc := &yaml.Node{}
		dec := yaml.NewDecoder(io.MultiReader(bytes.NewReader(prefix), bytes.NewReader(text)))
		if err := dec.Decode(doc); err != nil {
			errs[k] = ErrUnsupported
			return
		}
		m := doc
		if m.Kind == yaml.DocumentNode && len(m.Content) == 1 {
			m = m.Content[0]
		}
		if m.Kind != yaml.MappingNode || len(m.Content) != 2 || m.Content[1].Kind != yaml.SequenceNode ||
			len(m.Content[1].Content) != r.to-r.from || m.Content[0].Value != "items" {
			errs[k] = ErrUnsupported
			return
		}
		for i, n := range m.Content[1].Content {
			if bounds.HeadRepeated(n) { // the caller's check must see it before kyaml's edits
				errs[k] = ErrUnsupported
				return
			}
			items[r.from+i] = n
		}
		if line != nil {
			shiftLines(m.Content[1], 0, line(lay.starts[r.from])-2)
		}
		lists[k] = m.Content[1]
		aliases[k] = bounds.HasAlias(m)
	})
	anyAlias := false
	for k, err := range errs {
		if err != nil {
			return nil, false, err
		}
		anyAlias = anyAlias || aliases[k]
	}
	lists[0].Content = items
	return lists[0], anyAlias, nil
}

// shiftLines adds by to the line of every node of the tree n (aliases' targets are
// walked where they stand) at or after line from.
func shiftLines(n *yaml.Node, from, by int) {
	if n.Line >= from {
		n.Line += by
	}
	for _, c := range n.Content {
		shiftLines(c, from, by)
	}
}

// String describes the layout for error messages in tests.
func (l *itemsLayout) String() string {
	return fmt.Sprintf("items [%d,%d) %d items, dash column %d", l.start, l.end, len(l.starts), l.dash)
}
