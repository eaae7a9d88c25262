package patchmeta_test

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/krm-merge/krm-merge/pkg/apply/patchmeta"
	"github.com/krm-merge/krm-merge/pkg/apply/patchmeta/internal/kubescheme"
)

// The embedded table must be what the generator makes from the k8s.io/api in go.mod;
// after a bump, run `go generate ./pkg/apply/patchmeta`.
func TestTableIsCurrent(t *testing.T) {
	want, err := kubescheme.Table()
	if err != nil {
		t.Fatal(err)
	}
	wantBytes, err := kubescheme.Encode(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("table.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, wantBytes) {
		t.Fatal("table.json.gz is stale: run `go generate ./pkg/apply/patchmeta`")
	}
}

// Every kind of kubectl's scheme is in the table, and nothing else is.
func TestKindsAreTheSchemes(t *testing.T) {
	s := kubescheme.New()
	n := 0
	for gvk := range s.AllKnownTypes() {
		n++
		if _, ok, err := patchmeta.ForKind(gvk.Group, gvk.Version, gvk.Kind); !ok || err != nil {
			t.Errorf("%s: not in the table (%v)", gvk, err)
		}
	}
	if _, ok, _ := patchmeta.ForKind("monitoring.coreos.com", "v1", "ServiceMonitor"); ok {
		t.Error("a custom resource kind is in the table")
	}
	if _, ok, _ := patchmeta.ForKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition"); ok {
		t.Error("CustomResourceDefinition is in the table; kubectl's scheme does not register it")
	}
	t.Logf("%d kinds", n)
}

// Every field of every kind answers as strategicpatch.PatchMetaFromStruct answers for the
// Go type: struct and slice lookups, patch strategies, merge keys, element kinds and the
// error messages, for each JSON name, its upper-cased form and a name no type has.
func TestParityWithPatchMetaFromStruct(t *testing.T) {
	s := kubescheme.New()
	p := &parity{t: t, seen: map[reflect.Type]bool{}}
	for gvk, rt := range s.AllKnownTypes() {
		ours, ok, err := patchmeta.ForKind(gvk.Group, gvk.Version, gvk.Kind)
		if !ok || err != nil {
			t.Fatalf("%s: not in the table (%v)", gvk, err)
		}
		p.walk(gvk.String(), strategicpatch.PatchMetaFromStruct{T: rt}, ours)
	}
	t.Logf("%d types, %d field lookups compared", len(p.seen), p.lookups)
	if p.lookups < 10000 {
		t.Fatalf("only %d lookups compared; the walk lost the types", p.lookups)
	}
}

type parity struct {
	t       *testing.T
	seen    map[reflect.Type]bool
	lookups int
}

func (p *parity) walk(path string, theirs strategicpatch.PatchMetaFromStruct, ours strategicpatch.LookupPatchMeta) {
	if p.seen[theirs.T] || p.t.Failed() {
		return
	}
	p.seen[theirs.T] = true
	if theirs.Name() != ours.Name() {
		p.t.Errorf("%s: Name %q, want %q", path, ours.Name(), theirs.Name())
		return
	}
	st := theirs.T
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	keys := []string{"noSuchField"}
	if st.Kind() == reflect.Struct {
		for i := 0; i < st.NumField(); i++ {
			f := st.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			keys = append(keys, name, strings.ToUpper(name))
		}
		// fields of embedded structs (ObjectMeta and TypeMeta are inlined)
		keys = append(keys, "name", "kind", "apiVersion", "labels", "Labels")
	}
	for _, key := range keys {
		p.lookups++
		at := path + "." + key
		tSub, tPM, tErr := theirs.LookupPatchMetadataForStruct(key)
		oSub, oPM, oErr := ours.LookupPatchMetadataForStruct(key)
		if !p.same(at, "struct", tPM, tErr, oPM, oErr) {
			return
		}
		if tErr == nil {
			p.walk(at, tSub.(strategicpatch.PatchMetaFromStruct), oSub)
		}
		tSub, tPM, tErr = theirs.LookupPatchMetadataForSlice(key)
		oSub, oPM, oErr = ours.LookupPatchMetadataForSlice(key)
		if !p.same(at, "slice", tPM, tErr, oPM, oErr) {
			return
		}
		if tErr == nil {
			p.walk(at+"[]", tSub.(strategicpatch.PatchMetaFromStruct), oSub)
		}
	}
}

func (p *parity) same(at, lookup string, tPM strategicpatch.PatchMeta, tErr error, oPM strategicpatch.PatchMeta, oErr error) bool {
	if fmt.Sprint(tErr) != fmt.Sprint(oErr) {
		p.t.Errorf("%s (%s lookup): error %v, want %v", at, lookup, oErr, tErr)
		return false
	}
	if !reflect.DeepEqual(tPM.GetPatchStrategies(), oPM.GetPatchStrategies()) || tPM.GetPatchMergeKey() != oPM.GetPatchMergeKey() {
		p.t.Errorf("%s (%s lookup): strategies %q key %q, want %q key %q", at, lookup,
			oPM.GetPatchStrategies(), oPM.GetPatchMergeKey(), tPM.GetPatchStrategies(), tPM.GetPatchMergeKey())
		return false
	}
	return true
}
