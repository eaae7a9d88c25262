package results

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/plan"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// A core v1 Secret's data and stringData values are redacted wherever they become text
// (pkg update's conflict and plan lines use RedactConflict and RedactChange; results
// redact by At): the length and the hash's start, so equal values stay equal and
// different ones differ. Other fields of a Secret, and other kinds, are shown.
func TestRedaction(t *testing.T) {
	secret := &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "v1", Kind: "Secret"}, NameMeta: yaml.NameMeta{Name: "db"}}
	cm := &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, NameMeta: yaml.NameMeta{Name: "db"}}
	if got := Redacted("hunter2"); got != "<redacted: 7 bytes, sha256:f52fbd32>" {
		t.Errorf("Redacted = %s", got)
	}
	c := merge.Conflict{Path: fieldpath.Path{}.Field("data").Field("password"), Kind: merge.BothChanged,
		Original: yaml.NewScalarRNode("b3JpZw=="), Updated: yaml.NewScalarRNode("dXBk"), Dest: yaml.NewScalarRNode("bG9jYWw="), Winner: vocab.Updated}
	text := ConflictText(RedactConflict(secret, c), false)
	if strings.Contains(text, "dXBk") || strings.Count(text, "<redacted: ") != 3 {
		t.Errorf("conflict text %s", text)
	}
	if text := ConflictText(RedactConflict(cm, c), false); !strings.Contains(text, "dXBk") {
		t.Errorf("a ConfigMap's value redacted: %s", text)
	}
	if c.Updated.YNode().Value != "dXBk" {
		t.Error("RedactConflict changed the conflict's node")
	}
	label := c
	label.Path = fieldpath.Path{}.Field("metadata").Field("labels").Field("a")
	if text := ConflictText(RedactConflict(secret, label), false); !strings.Contains(text, "dXBk") {
		t.Errorf("a Secret's label redacted: %s", text)
	}
	ch := plan.Change{Op: plan.Added, Path: fieldpath.Path{}.Field("stringData"), Proposed: map[string]interface{}{"token": "abc"}}
	if text := ChangeText(RedactChange(secret, ch)); strings.Contains(text, "abc") || !strings.Contains(text, "token") {
		t.Errorf("change text %s", text)
	}
	at := At{Location: vocab.Location{Resource: secret}}
	r := FieldConflict(at, c, false)
	if strings.Contains(r.Message, "dXBk") || r.Field.ProposedValue != Redacted("dXBk") || r.Field.CurrentValue != Redacted("bG9jYWw=") {
		t.Errorf("result %s %v %v", r.Message, r.Field.CurrentValue, r.Field.ProposedValue)
	}
	at.ShowSecretValues = true
	if r := FieldConflict(at, c, false); r.Field.ProposedValue != "dXBk" {
		t.Errorf("ShowSecretValues: %v", r.Field.ProposedValue)
	}
}
