package kubescheme

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	forkedjson "k8s.io/apimachinery/third_party/forked/golang/json"

	"github.com/krm-merge/krm-merge/pkg/apply/patchmeta"
)

// Table builds the patch-metadata table of every kind New registers: each kind's root
// type and every type reachable from it through struct fields, pointers, slices, arrays
// and maps. A struct's fields, their types, patch strategies and merge keys come from
// forkedjson.LookupPatchMetadataForStruct, the function PatchMetaFromStruct calls, so the
// table answers as the Go types do. Errors: a type whose struct tags the lookup
// rejects, prefixed with its kind's key.
func Table() (*patchmeta.Table, error) {
	s := New()
	b := &builder{index: map[reflect.Type]int{}, t: &patchmeta.Table{Kinds: map[string]int{}}}
	gvks := s.AllKnownTypes()
	keys := make([]string, 0, len(gvks))
	byKey := map[string]reflect.Type{}
	for gvk, rt := range gvks {
		k := patchmeta.KindKey(gvk.Group, gvk.Version, gvk.Kind)
		keys = append(keys, k)
		byKey[k] = rt
	}
	sort.Strings(keys) // deterministic type numbering
	for _, k := range keys {
		i, err := b.add(byKey[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
		b.t.Kinds[k] = i
	}
	return b.t, nil
}

// Encode writes a table as patchmeta.Decode reads it: JSON, gzip-compressed, the same
// bytes for the same table. Errors: encoding/json's or gzip's.
func Encode(t *patchmeta.Table) ([]byte, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type builder struct {
	index map[reflect.Type]int
	t     *patchmeta.Table
}

func (b *builder) add(rt reflect.Type) (int, error) {
	if i, ok := b.index[rt]; ok {
		return i, nil
	}
	i := len(b.t.Types)
	b.index[rt] = i
	b.t.Types = append(b.t.Types, patchmeta.Type{Kind: rt.Kind().String(), Name: rt.Name(), Elem: -1})
	switch rt.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		e, err := b.add(rt.Elem())
		if err != nil {
			return 0, err
		}
		b.t.Types[i].Elem = e
	case reflect.Struct:
		for _, name := range jsonNames(rt, map[reflect.Type]bool{}) {
			ft, strategies, key, err := forkedjson.LookupPatchMetadataForStruct(rt, name)
			if err != nil {
				return 0, fmt.Errorf("%s.%s: %v", rt, name, err)
			}
			fi, err := b.add(ft)
			if err != nil {
				return 0, err
			}
			b.t.Types[i].Fields = append(b.t.Types[i].Fields, patchmeta.Field{
				JSON: name, Type: fi, Strategy: strings.Join(strategies, ","), MergeKey: key,
			})
		}
	}
	return i, nil
}

// jsonNames lists the JSON names of a struct's fields as encoding/json sees them, in its
// order (depth-first by field index, embedded structs without a tag name flattened), each
// name once.
func jsonNames(rt reflect.Type, seen map[reflect.Type]bool) []string {
	if seen[rt] {
		return nil
	}
	seen[rt] = true
	var names []string
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			names = append(names, jsonNames(ft, seen)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	out := names[:0]
	dup := map[string]bool{}
	for _, n := range names {
		if !dup[n] {
			dup[n] = true
			out = append(out, n)
		}
	}
	return out
}
