package apply

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The annotation is the config's JSON exactly as kubectl writes it: sorted keys,
// HTML-escaped by encoding/json, "annotations":{} added, the old annotation and host
// annotations left out, numbers as JSON numbers, and a trailing newline.
func TestLastAppliedBytes(t *testing.T) {
	config := yaml.MustParse(`kind: ConfigMap # comment
apiVersion: v1
metadata:
  name: c
  annotations:
    note: a<b & c>d
    config.kubernetes.io/path: cm.yaml
    kubectl.kubernetes.io/last-applied-configuration: stale
data:
  z: "1.0"
  a: é
binaryData: {}
immutable: false
`)
	res, err := Apply(yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"), config,
		Options{Ignore: func(k string) bool { return k == "config.kubernetes.io/path" }})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"v1","binaryData":{},"data":{"a":"é","z":"1.0"},"immutable":false,"kind":"ConfigMap","metadata":{"annotations":{"note":"a\u003cb \u0026 c\u003ed"},"name":"c"}}` + "\n"
	if res.LastApplied != want {
		t.Errorf("annotation\n got %q\nwant %q", res.LastApplied, want)
	}
	got := res.Object.GetAnnotations()[LastAppliedAnnotation]
	if got != want {
		t.Errorf("object's annotation %q", got)
	}
	// numbers: integers stay integers, whole floats read as integers (as kubectl reads
	// the JSON back), other floats keep their digits
	n, err := LastAppliedConfiguration(map[string]interface{}{"apiVersion": "v1", "kind": "X", "spec": map[string]interface{}{"a": int64(3), "b": 2.5}})
	if err != nil || n != `{"apiVersion":"v1","kind":"X","metadata":{"annotations":{}},"spec":{"a":3,"b":2.5}}`+"\n" {
		t.Errorf("numbers: %q %v", n, err)
	}
	v, err := toValue(yaml.MustParse("a: 2.0\nb: 1e3\nc: 0x10\n").YNode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := toJSON(v)
	if string(b) != `{"a":2,"b":1000,"c":16}` {
		t.Errorf("numbers read as %s", b)
	}
}
