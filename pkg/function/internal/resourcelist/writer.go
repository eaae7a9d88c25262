package resourcelist

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"runtime"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/function/internal/yamlenc"
)

// outRunItems is the number of items encoded as one run.
const outRunItems = 64

// sentinel stands for the items while the list's head and tail are encoded.
const sentinel = "krm-merge-resourcelist-items-7f3a9c"

// Write writes l as kyaml's kio.ByteWriter{KeepReaderAnnotations: true} writes a
// wrapped ResourceList, with two differences: an item that reads as an input item
// keeps that item's input bytes, and a changed one its input bytes around its changes
// (keep.go: the bytes read as kyaml's would); and a scalar yaml.v3 would write as
// text it cannot read back is written double-quoted (yamlenc.MakeReadable), where
// kyaml's writer writes output no parser reads. It changes l.Items as that writer
// changes its copies of them (empty annotations and metadata are cleared; unreadable
// scalars double-quoted) and drops its references to them once written, so memory is
// returned while the output streams. Errors: the encoder's and w's, as kyaml's writer
// returns them, naming the item.
func Write(w io.Writer, l *List) error {
	items := l.Items
	for _, it := range items {
		if err := yaml.ClearEmptyAnnotations(it); err != nil {
			return err
		}
	}
	if l.aliases { // items may share nodes: made readable here, not on all cores
		for _, it := range items {
			yamlenc.MakeReadable(it.YNode())
		}
	}
	if len(items) == 0 || hasFootComment(items[len(items)-1].YNode()) {
		if !l.aliases {
			for _, it := range items {
				yamlenc.MakeReadable(it.YNode())
			}
		}
		return kyamlWrite(w, l)
	}
	head, tail, err := frame(l)
	if err != nil {
		return kyamlWrite(w, l)
	}
	// Runs of items, each ending after an item without foot comments: a foot comment
	// can be written where the next item starts, so such an item stays with its
	// successor.
	type run struct{ from, to int }
	var runs []run
	for i := 0; i < len(items); {
		j := i + 1
		for j < len(items) && (j-i < outRunItems || hasFootComment(items[j-1].YNode())) {
			j++
		}
		runs = append(runs, run{i, j})
		i = j
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.Write(head); err != nil {
		return err
	}
	// Encode runs on all cores, write them in order; at most `window` runs in flight.
	window := 2 * runtime.GOMAXPROCS(0)
	type done struct {
		buf *bytes.Buffer
		err error
	}
	slots := make([]chan done, len(runs))
	for k := range slots {
		slots[k] = make(chan done, 1)
	}
	sem := make(chan struct{}, window)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for k, r := range runs {
			select {
			case sem <- struct{}{}:
			case <-stop:
				return
			}
			go func(k int, r run) {
				var buf bytes.Buffer
				err := encodeRun(&buf, items[r.from:r.to], r.from, l.in, !l.aliases)
				slots[k] <- done{&buf, err}
			}(k, r)
		}
	}()
	for k, r := range runs {
		d := <-slots[k]
		<-sem
		if d.err != nil {
			return d.err
		}
		if _, err := bw.Write(d.buf.Bytes()); err != nil {
			return err
		}
		for i := r.from; i < r.to; i++ {
			items[i] = nil
		}
	}
	for _, t := range tail {
		if _, err := bw.Write(t); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// kyamlWrite is kyaml's own writer, for what the runs cannot do.
func kyamlWrite(w io.Writer, l *List) error {
	return kio.ByteWriter{
		Writer:                w,
		KeepReaderAnnotations: true,
		FunctionConfig:        l.FunctionConfig,
		Results:               l.Results,
		WrappingKind:          l.Kind,
		WrappingAPIVersion:    l.APIVersion,
	}.Write(l.Items)
}

// listDoc builds the document kio.ByteWriter encodes for a wrapped list.
func listDoc(l *List, items []*yaml.Node) *yaml.Node {
	list := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "apiVersion"},
		{Kind: yaml.ScalarNode, Value: l.APIVersion},
		{Kind: yaml.ScalarNode, Value: "kind"},
		{Kind: yaml.ScalarNode, Value: l.Kind},
		{Kind: yaml.ScalarNode, Value: "items"}, {Kind: yaml.SequenceNode, Content: items},
	}}
	if l.FunctionConfig != nil {
		list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "functionConfig"}, l.FunctionConfig.YNode())
	}
	if l.Results != nil {
		list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "results"}, l.Results.YNode())
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{list}}
}

// frame encodes the list with one placeholder item and returns the text before it and
// the text after it, in pieces to write in order. A functionConfig yamlenc writes
// (functionConfigText) is encoded by it, not in the frame's document: yaml.v3's
// emitter keeps every event of a document, so a functionConfig holding megabytes of
// inline resources would cost it seconds.
func frame(l *List) (head []byte, tail [][]byte, err error) {
	doc := listDoc(l, []*yaml.Node{{Kind: yaml.ScalarNode, Value: sentinel}})
	fcText, fast := functionConfigText(l.FunctionConfig)
	if fast {
		list := doc.Content[0]
		for i := 0; i+1 < len(list.Content); i += 2 {
			if list.Content[i].Value == "functionConfig" {
				list.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Value: fcSentinel}
			}
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if err := enc.Encode(doc); err != nil {
		return nil, nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, nil, err
	}
	out := buf.Bytes()
	mark := []byte("\n- " + sentinel + "\n")
	i := bytes.Index(out, mark)
	if i < 0 || bytes.Count(out, []byte(sentinel)) != 1 || !bytes.HasSuffix(out[:i+1], []byte("\nitems:\n")) {
		return nil, nil, fmt.Errorf("resourcelist: unexpected list frame")
	}
	head, rest := out[:i+1], out[i+len(mark):]
	if fast {
		fcMark := []byte("\nfunctionConfig: " + fcSentinel + "\n")
		j := bytes.Index(out, fcMark) - (i + len(mark)) // in rest, which starts a line
		if j < -1 || bytes.Count(out, []byte(fcSentinel)) != 1 {
			return nil, nil, fmt.Errorf("resourcelist: unexpected list frame")
		}
		tail = append([][]byte{rest[:j+1], []byte("functionConfig:\n")}, fcText...)
		return head, append(tail, rest[j+len(fcMark):]), nil
	}
	return head, [][]byte{rest}, nil
}

// fcSentinel stands for the functionConfig while the frame is encoded without it.
const fcSentinel = "krm-merge-resourcelist-function-config-5e1b2d"

// functionConfigText returns the lines yaml.v3 writes for fc as the value of the list's
// functionConfig key (after "functionConfig:\n"), through yamlenc, in pieces to write in
// order (yamlenc.ItemOnAllCores: its long lists written on all cores), and true; false
// when yamlenc declines it or fc is not a non-empty block map (the frame's encoder then
// writes it). A block map's lines are the same as a value and as a list item
// (yamlenc.AppendItem), indented by two, but for the item's leading "- ".
func functionConfigText(fc *yaml.RNode) ([][]byte, bool) {
	if fc == nil {
		return nil, false
	}
	n := fc.YNode()
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 || n.Style&yaml.FlowStyle != 0 {
		return nil, false
	}
	b, ok := yamlenc.ItemOnAllCores(n)
	if !ok || len(b) == 0 || !bytes.HasPrefix(b[0], []byte("- ")) {
		return nil, false
	}
	b[0][0] = ' '
	return b, true
}

// encodeRun writes items (output items first, first+1, ...) as the lines of a list's
// items (without the `items:` line) to buf: each item through yamlenc.AppendItem,
// which writes kyaml's bytes for the items it accepts (no comments, anchors or flow
// collections, among others) about 30 times faster, and the others through yaml.v3
// (encodeV3). An item with foot comments goes to yaml.v3 together with its successor,
// as a foot comment may be written where the next item starts. An item encoded alone
// is written with its input bytes where in keeps them (inputs.kept). With fix, each
// item is first made readable (yamlenc.MakeReadable; items share no node).
func encodeRun(buf *bytes.Buffer, items []*yaml.RNode, first int, in *inputs, fix bool) error {
	out := buf.AvailableBuffer()
	for i := 0; i < len(items); {
		if fix {
			yamlenc.MakeReadable(items[i].YNode())
		}
		start := len(out)
		if b, ok := yamlenc.AppendItem(out, items[i].YNode()); ok {
			out = b
			if k := in.kept(first+i, out[start:]); k != nil {
				out = append(out[:start], k...)
			}
			i++
			continue
		}
		j := i + 1
		for j < len(items) && hasFootComment(items[j-1].YNode()) {
			j++
			if fix {
				yamlenc.MakeReadable(items[j-1].YNode())
			}
		}
		var v3 bytes.Buffer
		if err := encodeV3(&v3, items[i:j]); err != nil {
			return itemError(items[i], first+i, err)
		}
		enc := v3.Bytes()
		if j == i+1 {
			if k := in.kept(first+i, enc); k != nil {
				enc = k
			}
		}
		out = append(out, enc...)
		i = j
	}
	buf.Write(out)
	return nil
}

// itemError names the output item (index i, its path annotation, kind and name) in a
// write error.
func itemError(it *yaml.RNode, i int, err error) error {
	loc := fmt.Sprintf("output item %d", i)
	if k := it.GetKind(); k != "" {
		loc += " " + k
	}
	if n := it.GetName(); n != "" {
		loc += " " + n
	}
	if p := it.GetAnnotations()[kioutil.PathAnnotation]; p != "" {
		loc = p + ": " + loc
	}
	return fmt.Errorf("%s: writing: %w", loc, err)
}

// encodeV3 encodes items with kyaml's encoder (yaml.v3) as the items of a list and
// writes their lines (without the `items:` line) to buf.
func encodeV3(buf *bytes.Buffer, items []*yaml.RNode) error {
	nodes := make([]*yaml.Node, len(items))
	for i, it := range items {
		nodes[i] = it.YNode()
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "items"}, {Kind: yaml.SequenceNode, Content: nodes},
	}}}}
	enc := yaml.NewEncoder(buf)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("items:\n")) {
		return fmt.Errorf("resourcelist: unexpected item run encoding")
	}
	buf.Next(len("items:\n"))
	return nil
}

// hasFootComment reports whether any node of n has a foot comment.
func hasFootComment(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	if n.FootComment != "" {
		return true
	}
	for _, c := range n.Content {
		if hasFootComment(c) {
			return true
		}
	}
	return false
}
