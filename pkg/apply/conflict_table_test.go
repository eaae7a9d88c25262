package apply

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	sigsyaml "sigs.k8s.io/yaml"
)

// mergeItem and retainKeysMergeItem are the schema of strategicpatch's own tests
// (MergeItem and RetainKeysMergeItem in k8s.io/apimachinery v0.37.2,
// pkg/util/strategicpatch/patch_test.go), transcribed: a test file cannot be imported.
type mergeItem struct {
	Name                  string               `json:"name,omitempty"`
	Value                 string               `json:"value,omitempty"`
	Other                 string               `json:"other,omitempty"`
	MergingList           []mergeItem          `json:"mergingList,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	NonMergingList        []mergeItem          `json:"nonMergingList,omitempty"`
	MergingIntList        []int                `json:"mergingIntList,omitempty" patchStrategy:"merge"`
	NonMergingIntList     []int                `json:"nonMergingIntList,omitempty"`
	MergeItemPtr          *mergeItem           `json:"mergeItemPtr,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	SimpleMap             map[string]string    `json:"simpleMap,omitempty"`
	ReplacingItem         runtime.RawExtension `json:"replacingItem,omitempty" patchStrategy:"replace"`
	JSONItem              struct{ Raw []byte } `json:"jsonItem,omitempty"`
	RetainKeysMap         retainKeysMergeItem  `json:"retainKeysMap,omitempty" patchStrategy:"retainKeys"`
	RetainKeysMergingList []mergeItem          `json:"retainKeysMergingList,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name"`
}

type retainKeysMergeItem struct {
	Name           string            `json:"name,omitempty"`
	Value          string            `json:"value,omitempty"`
	Other          string            `json:"other,omitempty"`
	SimpleMap      map[string]string `json:"simpleMap,omitempty"`
	MergingIntList []int             `json:"mergingIntList,omitempty" patchStrategy:"merge"`
	MergingList    []mergeItem       `json:"mergingList,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	NonMergingList []mergeItem       `json:"nonMergingList,omitempty"`
}

// conflictCase is one case of testdata/strategicpatch-conflicts.yaml.
type conflictCase struct {
	Description string      `json:"description"`
	Source      string      `json:"source"`
	Original    interface{} `json:"original"`
	Modified    interface{} `json:"modified"`
	Current     interface{} `json:"current"`
	Conflicts   []string    `json:"conflicts"`
}

// TestStrategicPatchConflictTable: on every three-way case of strategicpatch's own tests
// that expects a conflict with overwrite=false (30 cases at v0.37.2), with that test's
// schema, the overwrite=false check refuses the object and lists the fields worked out
// by hand in the testdata, with no unplaced reason; strategicpatch itself must report
// the conflict on the transcribed values (a check of the transcription).
func TestStrategicPatchConflictTable(t *testing.T) {
	raw, err := os.ReadFile("testdata/strategicpatch-conflicts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Cases []conflictCase `json:"cases"`
	}
	if err := sigsyaml.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	if len(table.Cases) != 30 {
		t.Fatalf("%d cases in the testdata, want strategicpatch's 30", len(table.Cases))
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(mergeItem{})
	if err != nil {
		t.Fatal(err)
	}
	agree := 0
	for _, c := range table.Cases {
		o, _ := json.Marshal(c.Original)
		m, _ := json.Marshal(c.Modified)
		cur, _ := json.Marshal(c.Current)
		if _, err := strategicpatch.CreateThreeWayMergePatch(o, m, cur, meta, false); !mergepatch.IsConflict(err) {
			t.Errorf("%s: strategicpatch reports %v, not a conflict: transcription error?", c.Description, err)
			continue
		}
		patch, err := strategicpatch.CreateThreeWayMergePatch(o, m, cur, meta, true)
		if err != nil {
			t.Fatalf("%s: %v", c.Description, err)
		}
		merged, err := strategicpatch.StrategicMergePatchUsingLookupPatchMeta(cur, patch, meta)
		if err != nil {
			t.Fatalf("%s: %v", c.Description, err)
		}
		var result map[string]interface{}
		if err := json.Unmarshal(merged, &result); err != nil {
			t.Fatal(err)
		}
		ce := noOverwriteConflicts(meta, o, m, cur, result)
		if ce == nil {
			t.Errorf("%s: accepted; strategicpatch refuses it", c.Description)
			continue
		}
		got := []string{}
		for _, f := range ce.Fields {
			got = append(got, f.Path.String())
		}
		if !reflect.DeepEqual(got, c.Conflicts) || ce.Reason != "" {
			t.Errorf("%s: conflicts %q (reason %q), want %q", c.Description, got, ce.Reason, c.Conflicts)
			continue
		}
		agree++
	}
	t.Logf("%d/%d of strategicpatch's conflict cases refused with the expected fields", agree, len(table.Cases))
}
