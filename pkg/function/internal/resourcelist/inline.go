package resourcelist

import (
	"bytes"
	"sort"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/parallel"
)

// A functionConfig can hold most of the input: a typed ResourceMerge's inline sources
// (spec.original, spec.updated, spec.src: lists of resources, two releases of a
// package). Its inline lists are cut out of the list's own text and decoded as the items
// are (decodeItems: in runs of whole elements, on all cores), then put back in place of
// the empty values their keys have in the rest. The result is the node tree a decode of
// the text without the items gives, line numbers included: a list's nodes are numbered
// as in that text, and the rest's nodes after a cut moved down by the lines cut. Where
// the text is not of the shape inlineLists locates, or the pieces do not decode into
// that tree's shape (cutHead), the text without the items is decoded whole.

// inlineKeys are the spec keys holding inline resources (package config's KeyOriginal,
// KeyUpdated and KeySrc; docs/function.md, "functionConfig").
var inlineKeys = []string{"original", "updated", "src"}

// cutInline is false in tests that decode the functionConfig whole, to compare.
var cutInline = true

// decodeHead decodes data without the items block lay: the list's own fields, its
// functionConfig's inline lists on all cores where they can be cut (cutHead), the same
// nodes either way. Errors: the YAML decoder's, for the text decoded whole.
func decodeHead(data []byte, lay *itemsLayout) (*yaml.Node, error) {
	if cutInline {
		if lists := inlineLists(data, lay); lists != nil {
			if doc := cutHead(data, lay, lists); doc != nil {
				return doc, nil
			}
		}
	}
	skeleton := make([]byte, 0, len(data)-(lay.end-lay.start))
	skeleton = append(skeleton, data[:lay.start]...)
	skeleton = append(skeleton, data[lay.end:]...)
	doc := &yaml.Node{}
	if err := yaml.NewDecoder(bytes.NewReader(skeleton)).Decode(doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// inlineLists locates the inline lists of a functionConfig written in block style: the
// top-level `functionConfig:` (outside the items block items), its `spec:` and under
// it `original:`, `updated:` and `src:`, each key on a line of its own and each list a
// block list that layout accepts. It returns them in text order, each with key set;
// nil when there is none. A key found twice, or lines layout refuses, cut nothing.
func inlineLists(data []byte, items *itemsLayout) []*itemsLayout {
	var fc *itemsLayout
	for _, r := range [][2]int{{0, items.start - len("items:\n")}, {items.end, len(data)}} {
		if l, err := layout(data, r[0], r[1], 0, "functionConfig", false); err == nil {
			if fc != nil {
				return nil
			}
			fc = l
		}
	}
	if fc == nil {
		return nil
	}
	col := childColumn(data, fc)
	if col <= 0 {
		return nil
	}
	spec, err := layout(data, fc.start, fc.end, col, "spec", false)
	if err != nil {
		return nil
	}
	if col = childColumn(data, spec); col <= spec.col {
		return nil
	}
	found := make([]*itemsLayout, len(inlineKeys))
	parallel.ForEach(len(inlineKeys), 0, func(i int) { // each scan reads the whole spec
		if l, err := layout(data, spec.start, spec.end, col, inlineKeys[i], true); err == nil {
			l.key = inlineKeys[i]
			found[i] = l
		}
	})
	var lists []*itemsLayout
	for _, l := range found {
		if l != nil {
			lists = append(lists, l)
		}
	}
	sort.Slice(lists, func(i, j int) bool { return lists[i].start < lists[j].start })
	return lists
}

// childColumn is the indentation of the first line of a map entry's value that is
// neither blank nor a comment: the column of its keys when it is a block map; -1 when
// there is none.
func childColumn(data []byte, entry *itemsLayout) int {
	for pos := entry.start; pos < entry.end; {
		end := entry.end
		if nl := bytes.IndexByte(data[pos:end], '\n'); nl >= 0 {
			end = pos + nl
		}
		line := data[pos:end]
		if t := bytes.TrimLeft(line, " "); len(bytes.TrimSpace(t)) > 0 && t[0] != '#' {
			return len(line) - len(t)
		}
		pos = end + 1
	}
	return -1
}

// cutHead decodes data without the items block items and the inline lists lists: the
// lists on all cores (decodeItems), the rest as one document, each list then put in
// place of the empty value of its key. Line numbers are those of the text without the
// items. It returns nil when a piece does not decode, or a key's value in the rest is
// not the empty value at the key's place under functionConfig.spec (the caller then
// decodes the text whole, for the same nodes or the same error).
func cutHead(data []byte, items *itemsLayout, lists []*itemsLayout) *yaml.Node {
	nl := []byte("\n")
	itemsLines := bytes.Count(data[items.start:items.end], nl)
	// wholeLine is the line of position p in the text without the items.
	wholeLine := func(p int) int {
		line := 1 + bytes.Count(data[:p], nl)
		if p >= items.end {
			line -= itemsLines
		}
		return line
	}
	seqs := make([]*yaml.Node, len(lists))
	for i, l := range lists {
		first, base := l.starts[0], wholeLine(l.starts[0])
		seq, _, err := decodeItems(data, l, func(p int) int { return base + bytes.Count(data[first:p], nl) })
		if err != nil {
			return nil
		}
		seqs[i] = seq
	}
	cuts := append([]*itemsLayout{items}, lists...)
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].start < cuts[j].start })
	rest := make([]byte, 0, len(data))
	after := make(map[*itemsLayout]int, len(lists)) // the line of rest where a list was cut
	prev := 0
	for _, c := range cuts {
		rest = append(rest, data[prev:c.start]...)
		after[c] = 1 + bytes.Count(rest, nl)
		prev = c.end
	}
	rest = append(rest, data[prev:]...)
	doc := &yaml.Node{}
	if err := yaml.NewDecoder(bytes.NewReader(rest)).Decode(doc); err != nil {
		return nil
	}
	values := make([]**yaml.Node, len(lists))
	for i, l := range lists {
		if values[i] = emptyValueAt(doc, l.key, after[l]-1, l.col+1); values[i] == nil {
			return nil
		}
	}
	for i := len(lists) - 1; i >= 0; i-- { // the last cut first: the earlier lines stay
		shiftLines(doc, after[lists[i]], bytes.Count(data[lists[i].start:lists[i].end], nl))
	}
	for i, v := range values {
		*v = seqs[i]
	}
	return doc
}

// emptyValueAt returns the slot of the value of doc's functionConfig.spec key named
// key on the given line and column, when that value is an empty (null) scalar without
// comments; nil otherwise.
func emptyValueAt(doc *yaml.Node, key string, line, column int) **yaml.Node {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil
	}
	for _, fc := range mapValues(doc.Content[0], "functionConfig") {
		for _, spec := range mapValues(fc, "spec") {
			if spec.Kind != yaml.MappingNode {
				continue
			}
			for i := 0; i+1 < len(spec.Content); i += 2 {
				k, v := spec.Content[i], spec.Content[i+1]
				if k.Kind != yaml.ScalarNode || k.Value != key || k.Line != line || k.Column != column {
					continue
				}
				if v.Kind != yaml.ScalarNode || v.Tag != yaml.NodeTagNull || v.Value != "" || v.Style != 0 ||
					v.Anchor != "" || v.HeadComment != "" || v.LineComment != "" || v.FootComment != "" {
					return nil
				}
				return &spec.Content[i+1]
			}
		}
	}
	return nil
}

// mapValues returns the values of map m's keys named key, in order (none when m is not
// a map).
func mapValues(m *yaml.Node, key string) []*yaml.Node {
	var out []*yaml.Node
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			out = append(out, m.Content[i+1])
		}
	}
	return out
}
