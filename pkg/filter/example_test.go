package filter_test

import (
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/filter"
)

// A kio.Pipeline that takes a new upstream release into a package directory, as
// `kpt fn eval pkg --exec krm-merge -- originalPath=original updatedPath=updated destPath=dest`
// does: kio.LocalPackageReadWriter reads every file (setting the path and index
// annotations path roles select on), the filter merges, and the same ReadWriter writes
// the merged dest/ files back and deletes the files no output item names, here those of
// original/ and updated/ (the sources are consumed; their empty directories stay).
func Example() {
	pkg, err := os.MkdirTemp("", "krm-merge-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(pkg)
	write := func(name, content string) {
		p := filepath.Join(pkg, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	// upstream v1, the release the local copy was made from
	write("original/app.yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: app
        image: app:1
`)
	// upstream v2: a new image, a sidecar and a new Service
	write("updated/app.yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: app
        image: app:2
      - name: proxy
        image: proxy:1
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - port: 80
`)
	// the local copy: scaled, with a comment
	write("dest/app.yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 5 # scaled for production
  template:
    spec:
      containers:
      - name: app
        image: app:1
`)

	cfg := config.Defaults()
	cfg.OriginalPath, cfg.UpdatedPath, cfg.DestPath = "original", "updated", "dest"
	merge := &filter.Filter{Config: cfg}
	rw := &kio.LocalPackageReadWriter{PackagePath: pkg}
	err = kio.Pipeline{
		Inputs:  []kio.Reader{rw},
		Filters: []kio.Filter{merge},
		Outputs: []kio.Writer{rw},
		// A merge may rightly leave no items (upstream deleted the only resource); without
		// this, kio.Pipeline would skip the write and leave the old files in place.
		ContinueOnEmptyResult: true,
	}.Execute()
	if err != nil {
		log.Fatal(err)
	}

	for _, r := range merge.Results {
		fmt.Println(r)
	}
	_ = filepath.WalkDir(pkg, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == pkg {
			return err
		}
		rel, _ := filepath.Rel(pkg, p)
		if d.IsDir() {
			fmt.Printf("%s/\n", rel)
			return nil
		}
		b, _ := os.ReadFile(p)
		fmt.Printf("%s:\n%s", rel, indent(string(b)))
		return nil
	})
	// Output:
	// [info]: 3way merge: 1 merged, 1 added, 0 deleted, 0 kept, 0 conflicts
	// dest/
	// dest/app.yaml:
	//   apiVersion: apps/v1
	//   kind: Deployment
	//   metadata:
	//     name: web
	//   spec:
	//     replicas: 5 # scaled for production
	//     template:
	//       spec:
	//         containers:
	//         - name: app
	//           image: app:2
	//         - name: proxy
	//           image: proxy:1
	//   ---
	//   apiVersion: v1
	//   kind: Service
	//   metadata:
	//     name: web
	//   spec:
	//     ports:
	//     - port: 80
	// original/
	// updated/
}

// Annotation roles on items held in memory, with no package directory: the role comes
// from config.kubernetes.io/merge-source, as kyaml's filters.Merge3 sets it. The dest
// changed the image too: its registry, which merges (valueMerge), and its tag, which
// upstream changed as well, so the merge reports a conflict on the tag; with
// onConflict=dest the local tag wins. Merged items keep dest's annotations, the role
// annotation included.
func ExampleFilter_Filter() {
	var items []*yaml.RNode
	for _, s := range []string{`apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations: {config.kubernetes.io/merge-source: original}
data:
  image: app:1
  level: info
`, `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations: {config.kubernetes.io/merge-source: updated}
data:
  image: app:2
  level: info
  timeout: 30s
`, `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations: {config.kubernetes.io/merge-source: dest}
data:
  image: mirror.example.com/app:1-hotfix # local mirror
  level: debug
`} {
		items = append(items, yaml.MustParse(s))
	}

	fc := yaml.MustParse(`apiVersion: v1
kind: ConfigMap
metadata: {name: merge}
data: {onConflict: dest}
`)
	merge, err := filter.New(fc)
	if err != nil {
		log.Fatal(err)
	}
	out, err := merge.Filter(items)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range merge.Results {
		fmt.Println(r)
	}
	for _, it := range out {
		fmt.Print(it.MustString())
	}
	// Output:
	// [info]: 3way merge: 1 merged, 0 added, 0 deleted, 0 kept, 1 conflicts
	// [warning] v1/ConfigMap/settings data.image: conflict: changed on both sides: the tag (original 1, updated 2, dest 1-hotfix); dest wins
	// [info] v1/ConfigMap/settings data.image: merged inside the image reference: from dest the repository (app -> mirror.example.com/app); changed on both sides: the tag, reported as a conflict
	// apiVersion: v1
	// kind: ConfigMap
	// metadata:
	//   name: settings
	//   annotations: {config.kubernetes.io/merge-source: dest}
	// data:
	//   image: mirror.example.com/app:1-hotfix # local mirror
	//   level: debug
	//   timeout: 30s
}

// A bad functionConfig is an error that names the resource and the field, as the
// function's error results do.
func ExampleNew() {
	fc := yaml.MustParse(`apiVersion: v1
kind: ConfigMap
metadata: {name: merge}
data: {mode: 3-way}
`)
	_, err := filter.New(fc)
	fmt.Println(err)
	// Output:
	// v1 ConfigMap merge: data.mode: functionConfig: mode "3-way" is invalid; valid values: 3way, 2way, apply; did you mean "3way"?
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}
