package resourcelist

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/internal/metanode"
)

// Problem is an input item that kyaml's framework.Execute (and Process, which does what
// it does) would fail on, panic on, or change before any processor sees it, with no
// result saying where (CheckItems).
type Problem struct {
	// Item is the item's index in the list, in input order.
	Item int
	// Field is the field's path in the item ("metadata.annotations"; "" for the item).
	Field string
	// Msg says what is wrong and what would be right; values in it are quoted.
	Msg string
}

// CheckItems returns the first problem, in input order, among a ResourceList's items as
// read (before kyaml's annotation edits; items may be maps or anything else), nil when
// there is none:
//
//   - a malformed head (bounds.BadHead): kyaml's edits fail ("wrong node kind"), panic,
//     or drop or misread the field;
//   - an item whose internal and legacy path, index or id annotations
//     (internal.config.kubernetes.io/path and config.kubernetes.io/path, ...; id:
//     config.k8s.io/id) are both set and differ: kio's preprocessing fails;
//   - an item that uses the internal or the legacy host annotations where the first
//     item with any uses the other, or both: kio's reconciling, after the processor,
//     fails ("the annotation formatting in the input resources is not consistent").
//
// Read declines input with a problem, and the kyaml path of the command reports it as an
// error result (pkg/function/internal/inputcheck). Cost: each item's head.
func CheckItems(items []*yaml.Node) *Problem {
	first, firstFormat := -1, format{}
	for i, n := range items {
		if f := bounds.BadHead(n); f != nil {
			return &Problem{Item: i, Field: f.Field, Msg: f.Message()}
		}
		an := metanode.Annotations(unwrapDoc(n))
		if an == nil {
			continue
		}
		var f format
		for _, p := range legacyPairs {
			v, hasV := annotation(an, p.key)
			lv, hasLV := annotation(an, p.legacy)
			if v != "" && lv != "" && v != lv {
				return &Problem{Item: i, Field: "metadata.annotations." + p.legacy,
					Msg: fmt.Sprintf("%s %q and %s %q differ; they are one annotation in two formats, which kyaml keeps in step: "+
						"give both one value, or drop one", p.key, v, p.legacy, lv)}
			}
			f.internal = f.internal || hasV
			f.legacy = f.legacy || hasLV
		}
		switch {
		case !f.internal && !f.legacy:
		case first < 0:
			first, firstFormat = i, f
		case f != firstFormat:
			return &Problem{Item: i, Field: "metadata.annotations",
				Msg: fmt.Sprintf("uses %s where item %d uses %s; kyaml's framework needs one format on "+
					"every item that has any (kpt sets both)", f, first, firstFormat)}
		}
	}
	return nil
}

// format is which host annotations an item carries: the internal ones
// (internal.config.kubernetes.io/path, index, id), the legacy ones, or both.
type format struct{ internal, legacy bool }

func (f format) String() string {
	switch {
	case f.internal && f.legacy:
		return "both the internal and the legacy host annotations"
	case f.internal:
		return "the internal host annotations (internal.config.kubernetes.io/path, index, id)"
	}
	return "the legacy host annotations (config.kubernetes.io/path, index, config.k8s.io/id)"
}

// annotation returns the value of annotations map an's key (the last copy, as a decoder
// reads a repeated key) and whether the key is there.
func annotation(an *yaml.Node, key string) (string, bool) {
	v, found := "", false
	for i := 0; i+1 < len(an.Content); i += 2 {
		if an.Content[i].Value == key {
			v, found = an.Content[i+1].Value, true
		}
	}
	return v, found
}

// unwrapDoc returns the map a document node holds, else n.
func unwrapDoc(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return n.Content[0]
	}
	return n
}
