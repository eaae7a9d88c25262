package patchmeta

//go:generate go run ./gen -o table.json.gz

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// Table is the generated data: the Go types the lookups can reach, as reflect shows them.
// It is exported only for the generator; callers use ForKind.
type Table struct {
	// Kinds maps "group/version/Kind" ("v1/Kind" for the core group is written "/v1/Kind")
	// to the index of the kind's root type in Types.
	Kinds map[string]int `json:"kinds"`
	// Types are the reachable types.
	Types []Type `json:"types"`
}

// Type is one Go type of k8s.io/api (or of what it embeds) as the lookups see it.
type Type struct {
	// Kind is reflect.Kind's String(): "struct", "ptr", "slice", "array", "map", "string", ...
	Kind string `json:"k"`
	// Name is reflect.Type's Name() (empty for unnamed types); used in error messages.
	Name string `json:"n,omitempty"`
	// Elem is the index of the element type of a pointer, slice, array or map; -1 otherwise.
	Elem int `json:"e"`
	// Fields are a struct's JSON fields in encoding/json's order (embedded structs flattened).
	Fields []Field `json:"f,omitempty"`
}

// Field is one JSON field of a struct, with its struct tags' patch metadata.
type Field struct {
	// JSON is the field's JSON name.
	JSON string `json:"j"`
	// Type is the index of the field's Go type.
	Type int `json:"t"`
	// Strategy is the raw patchStrategy tag ("merge", "retainKeys,merge", "replace" or "").
	Strategy string `json:"s,omitempty"`
	// MergeKey is the patchMergeKey tag.
	MergeKey string `json:"m,omitempty"`
}

//go:embed table.json.gz
var tableData []byte

var (
	loadOnce sync.Once
	loaded   *Table
	loadErr  error
)

func table() (*Table, error) {
	loadOnce.Do(func() {
		loaded, loadErr = Decode(tableData)
	})
	return loaded, loadErr
}

// Decode reads a gzip-compressed JSON Table (the format of table.json.gz). Errors: data
// that is not gzip, not a Table, or has a type index out of range.
func Decode(data []byte) (*Table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("patchmeta: table: %v", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("patchmeta: table: %v", err)
	}
	t := &Table{}
	if err := json.Unmarshal(raw, t); err != nil {
		return nil, fmt.Errorf("patchmeta: table: %v", err)
	}
	ok := func(i int) bool { return i >= 0 && i < len(t.Types) }
	for i, ty := range t.Types {
		if ty.Elem != -1 && !ok(ty.Elem) {
			return nil, fmt.Errorf("patchmeta: table: type %d: element %d out of range", i, ty.Elem)
		}
		for _, f := range ty.Fields {
			if !ok(f.Type) {
				return nil, fmt.Errorf("patchmeta: table: type %d field %q: type %d out of range", i, f.JSON, f.Type)
			}
		}
	}
	for k, i := range t.Kinds {
		if !ok(i) {
			return nil, fmt.Errorf("patchmeta: table: kind %s: type %d out of range", k, i)
		}
	}
	return t, nil
}

// KindKey is the Kinds key of a group, version and kind ("" group for the core group).
func KindKey(group, version, kind string) string { return group + "/" + version + "/" + kind }

// ForKind returns the patch metadata of the root type of group/version/kind, and false
// when kubectl's scheme (k8s.io/api at the version in go.mod) does not register the kind,
// in which case kubectl falls back to a JSON merge patch. Errors: only a corrupt
// embedded table.
func ForKind(group, version, kind string) (strategicpatch.LookupPatchMeta, bool, error) {
	t, err := table()
	if err != nil {
		return nil, false, err
	}
	return t.ForKind(group, version, kind)
}

// ForKind is the package-level ForKind over this table. It does not fail: the error
// is kept for the package-level function's signature.
func (t *Table) ForKind(group, version, kind string) (strategicpatch.LookupPatchMeta, bool, error) {
	i, ok := t.Kinds[KindKey(group, version, kind)]
	if !ok {
		return nil, false, nil
	}
	return Meta{t: t, i: i}, true, nil
}

// Meta is the patch metadata of one type of the table. It implements
// strategicpatch.LookupPatchMeta as strategicpatch.PatchMetaFromStruct does for the Go
// type itself (k8s.io/apimachinery/pkg/util/strategicpatch/meta.go and
// third_party/forked/golang/json/fields.go): pointers are followed, a JSON key matches its
// field exactly or else case-insensitively, and the errors read the same.
type Meta struct {
	t *Table
	i int
}

var _ strategicpatch.LookupPatchMeta = Meta{}

// LookupPatchMetadataForStruct returns the metadata of the field with JSON name key of
// this struct (or pointer to struct), and the field's patch strategies and merge key.
// Errors: this type is not a struct; the struct has no such field.
func (m Meta) LookupPatchMetadataForStruct(key string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	ty := m.t.Types[m.i]
	if ty.Kind == "ptr" {
		ty = m.t.Types[ty.Elem]
	}
	if ty.Kind != "struct" {
		return nil, strategicpatch.PatchMeta{}, fmt.Errorf("merging an object in json but data type is not struct, instead is: %s", ty.Kind)
	}
	var f *Field
	for i := range ty.Fields {
		ff := &ty.Fields[i]
		if ff.JSON == key {
			f = ff
			break
		}
		if f == nil && strings.EqualFold(ff.JSON, key) {
			f = ff
		}
	}
	if f == nil {
		return nil, strategicpatch.PatchMeta{}, fmt.Errorf("unable to find api field in struct %s for the json field %q", ty.Name, key)
	}
	var pm strategicpatch.PatchMeta
	pm.SetPatchStrategies(strings.Split(f.Strategy, ","))
	pm.SetPatchMergeKey(f.MergeKey)
	return Meta{t: m.t, i: f.Type}, pm, nil
}

// LookupPatchMetadataForSlice returns the metadata of the elements of the list field key
// of this struct, and the list field's patch strategies and merge key. Errors: those of
// LookupPatchMetadataForStruct; the field is not a slice, array or pointer; a slice of
// slices.
func (m Meta) LookupPatchMetadataForSlice(key string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	sub, pm, err := m.LookupPatchMetadataForStruct(key)
	if err != nil {
		return nil, strategicpatch.PatchMeta{}, err
	}
	ty := m.t.Types[sub.(Meta).i]
	var elem int
	switch ty.Kind {
	case "slice", "array":
		elem = ty.Elem
		if k := m.t.Types[elem].Kind; k == "slice" || k == "array" {
			return nil, strategicpatch.PatchMeta{}, errors.New("unexpected slice of slice")
		}
	case "ptr":
		elem = ty.Elem
		if k := m.t.Types[elem].Kind; k == "slice" || k == "array" {
			elem = m.t.Types[elem].Elem
		}
	default:
		return nil, strategicpatch.PatchMeta{}, fmt.Errorf("expected slice or array type, but got: %s", m.t.Types[m.i].Kind)
	}
	return Meta{t: m.t, i: elem}, pm, nil
}

// Name returns the type's reflect.Kind name, as PatchMetaFromStruct.Name does.
func (m Meta) Name() string { return m.t.Types[m.i].Kind }
