package yamlenc_test

import (
	"fmt"
	"os"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/function/internal/yamlenc"
)

// AppendItem writes one item of a ResourceList's items list, "- " and all, as kyaml's
// encoder would, and declines (false, dst unchanged) what is outside its subset, such
// as a comment; the caller then encodes that item with yaml.v3.
func ExampleAppendItem() {
	var doc yaml.Node
	err := yaml.Unmarshal([]byte(`apiVersion: v1
kind: Service
metadata:
  name: web
  labels: {}
spec:
  ports:
  - port: 80
    targetPort: "8080"
  selector:
    app: web
`), &doc)
	if err != nil {
		panic(err)
	}
	out := []byte("items:\n")
	out, ok := yamlenc.AppendItem(out, doc.Content[0])
	if !ok {
		// Outside the subset: encode with kyaml's yaml.NewEncoder instead.
		panic("declined")
	}
	os.Stdout.Write(out)

	// A comment is outside the subset.
	doc.Content[0].Content[1].LineComment = "# the API group"
	_, ok = yamlenc.AppendItem(nil, doc.Content[0])
	fmt.Println(ok)
	// Output:
	// items:
	// - apiVersion: v1
	//   kind: Service
	//   metadata:
	//     name: web
	//     labels: {}
	//   spec:
	//     ports:
	//     - port: 80
	//       targetPort: "8080"
	//     selector:
	//       app: web
	// false
}
