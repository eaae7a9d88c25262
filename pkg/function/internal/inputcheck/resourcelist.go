package inputcheck

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/function/internal/resourcelist"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// ResourceList reads the whole ResourceList from r (at most bounds.MaxInputBytes; a
// longer one is refused as a failed read is) and checks, before kyaml's framework
// reads it, what the framework would fail on or change with no result saying where
// (docs/function.md, "Bad input"): YAML that does not parse; a list of the wrong shape
// (checkList: the input not a map, `items` not a list, the list's apiVersion not a
// string, a ResourceList with neither items nor functionConfig or among other documents,
// a functionConfig holding an alias to an anchor outside it); an item repeating a key
// that kyaml's annotation edits would hide (checkRead); an item whose head or host
// annotations kyaml's edits fail on (resourcelist.CheckItems: a malformed apiVersion,
// kind, metadata, name, namespace, annotations or labels; legacy and internal path,
// index or id annotations that differ, or that differ in format between items). On
// success it returns a reader over the same bytes for the framework to process. On
// failure it writes to w a ResourceList with no items and one error result naming the
// place (the parser's position; the resource, file, item index and field), and returns
// the error, so the binary exits 1 and the host shows the result. A panic in the checks
// is such a failure too ("internal error").
func ResourceList(r io.Reader, w io.Writer) (_ io.Reader, err error) {
	defer func() {
		if x := recover(); x != nil { // the checks read hostile input: never a crash
			err = writeFailure(w, fmt.Errorf("internal error checking the ResourceList input: %s (please report this with the input)",
				scrub.String(fmt.Sprint(x))))
		}
	}()
	limit, err := bounds.MaxInputBytes()
	if err != nil {
		return nil, writeFailure(w, err)
	}
	data, err := bounds.ReadInput(r, limit, 0)
	if err != nil {
		return nil, writeFailure(w, fmt.Errorf("cannot read the ResourceList input: %w", err))
	}
	docs, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true, DisableUnwrapping: true}).Read()
	if err != nil {
		return nil, writeFailure(w, fmt.Errorf("malformed ResourceList input: %s", scrub.String(err.Error())))
	}
	items, err := checkList(docs, data)
	if err != nil {
		return nil, writeFailure(w, err)
	}
	if err := checkRead(items); err != nil {
		return nil, writeFailure(w, err)
	}
	heads := make([]*yaml.Node, len(items))
	for i, n := range items {
		heads[i] = n.YNode()
	}
	if p := resourcelist.CheckItems(heads); p != nil {
		it := inputItem(items[p.Item], p.Item)
		return nil, writeFailure(w, it.Errorf(p.Field, "items[%d]: %s", p.Item, p.Msg))
	}
	return bytes.NewReader(data), nil
}

// separator is kyaml's document separator (kio's splitDocuments, v0.21.2): a line that
// starts with ---.
var separator = regexp.MustCompile(`\n---.*\n`)

// checkList returns the items kyaml's ByteReader gives for the documents docs of data
// (read with DisableUnwrapping): a single document of kind ResourceList or List with
// items or a functionConfig is unwrapped (kyaml counts the documents between its
// separators, empty ones included), else every document is an item. Errors
// (*vocab.ItemError, field "items", "apiVersion" or "functionConfig"): a document
// that is not a map, when it is the only one; a list whose apiVersion or kind is not a
// string, whose items is not a list (kyaml reads a map's keys and values as items, and
// no items from a scalar or an alias) or whose functionConfig holds an alias to an
// anchor outside it (written back, the alias has no anchor); a document of kind
// ResourceList that kyaml would take for an item: with neither items nor
// functionConfig, or among other documents.
func checkList(docs []*yaml.RNode, data []byte) ([]*yaml.RNode, error) {
	count := 1 + len(separator.FindAllIndex(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), -1))
	if len(data) == 0 {
		count = 0
	}
	if len(docs) == 1 && count == 1 {
		root := docs[0].YNode()
		if root.Kind != yaml.MappingNode {
			return nil, &vocab.ItemError{Msg: fmt.Sprintf("the input is %s; it is a ResourceList: a map with "+
				"apiVersion: config.kubernetes.io/v1, kind: ResourceList, items and functionConfig", bounds.Describe(root))}
		}
		kind := kindOf(root)
		items, fc := docs[0].Field("items"), docs[0].Field("functionConfig")
		if kind == kio.ResourceListKind && items == nil && fc == nil {
			return nil, &vocab.ItemError{Field: "items", Msg: "the ResourceList has neither items nor functionConfig " +
				"(kyaml would read it as a resource): give items, `items: []` for none"}
		}
		if (kind == kio.ResourceListKind || kind == "List") && (items != nil || fc != nil) {
			return unwrap(docs[0], kind, items, fc)
		}
	}
	for i, d := range docs {
		isList := kindOf(d.YNode()) == kio.ResourceListKind
		if isList && len(docs) > 1 {
			return nil, &vocab.ItemError{Msg: fmt.Sprintf("document %d is a ResourceList among %d documents (kyaml "+
				"would read it as a resource); a ResourceList is the only document of the input", i, len(docs))}
		}
		if isList && count > 1 {
			return nil, &vocab.ItemError{Msg: fmt.Sprintf("the ResourceList is followed or preceded by a document "+
				"separator (---) with %d documents in all, so kyaml would read it as a resource; remove the separator", count)}
		}
	}
	return docs, nil
}

// kindOf is the value of n's kind field when n is a map and kind a scalar, else ""
// (kyaml's GetKind panics on a list).
func kindOf(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "kind" && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}

// unwrap checks a ResourceList's (or List's) own fields and returns its items.
func unwrap(doc *yaml.RNode, kind string, items, fc *yaml.MapNode) ([]*yaml.RNode, error) {
	the := "the " + kind + "'s "
	if f := bounds.BadHead(doc.YNode()); f != nil { // kyaml's reader edits the list's own annotations too
		msg := the + strings.TrimPrefix(f.Message(), "the item ")
		if f.Field == "apiVersion" { // an item's example does not fit the list
			msg = strings.Replace(msg, `a string such as "apps/v1"`, "a string: "+kio.ResourceListAPIVersion, 1)
		}
		return nil, &vocab.ItemError{Field: f.Field, Msg: msg}
	}
	var out []*yaml.RNode
	if items != nil {
		switch v := items.Value.YNode(); {
		case v.Kind == yaml.SequenceNode:
			for _, n := range v.Content {
				out = append(out, yaml.NewRNode(n))
			}
		case v.Kind == yaml.ScalarNode && v.ShortTag() == yaml.NodeTagNull:
		default:
			return nil, &vocab.ItemError{Field: "items", Msg: the + "items is " + bounds.Describe(v) +
				"; it is a list of KRM resources (`items: []` for none)"}
		}
	}
	if fc != nil {
		if a := bounds.AliasOutside(fc.Value.YNode()); a != "" {
			return nil, &vocab.ItemError{Field: "functionConfig", Msg: fmt.Sprintf("the functionConfig holds the alias *%s, "+
				"whose anchor is outside it: the functionConfig is written back as it came, and the alias would then have no "+
				"anchor; write the value out", a)}
		}
	}
	return out, nil
}

// inputItem is item n (at position i, from 0) of the input for an error message, as
// roles.NewItem gives it, but with no file where its head is malformed (kyaml's
// annotation reads panic on some shapes) or its path holds a control character (the
// message would carry it to a terminal).
func inputItem(n *yaml.RNode, i int) roles.Item {
	if bounds.BadHead(n.YNode()) != nil {
		return roles.Item{Node: n, Position: i}
	}
	it := roles.NewItem(n, i)
	if roles.CheckPath(it.File) == roles.PathControl {
		it.File, it.RelFile = "", ""
	}
	return it
}

// writeFailure writes a ResourceList with no items and err's error results
// (results.FromError: an ItemError names its resource, file and field; scrubbed for a
// terminal) to w, and returns them.
func writeFailure(w io.Writer, err error) error {
	rs := results.FromError(err)
	scrub.Results(rs)
	out := &kio.ByteWriter{Writer: w, WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion}
	b, merr := yaml.Marshal(rs)
	if merr == nil {
		out.Results, _ = yaml.Parse(string(b))
	}
	if werr := out.Write(nil); werr != nil {
		return fmt.Errorf("%v (and writing the error result failed: %v)", err, werr)
	}
	return rs
}
