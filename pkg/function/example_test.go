package function_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// The function on a ResourceList, as the krm-merge binary runs it for a host (kpt fn
// eval, kustomize, a Kptfile pipeline): framework.Execute reads the list from stdin,
// Processor merges its items as its functionConfig says, and the list is written back
// with the merged items and the results. Here the roles come from the role annotation,
// the 3-way merge keeps the local replicas and takes the new image, and onConflict is
// left at its default.
func ExampleProcessor() {
	in := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: merge}
  data: {mode: 3way}
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    annotations: {config.kubernetes.io/merge-source: original}
  data: {image: "app:1", replicas: "1"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    annotations: {config.kubernetes.io/merge-source: updated}
  data: {image: "app:2", replicas: "1"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    annotations: {config.kubernetes.io/merge-source: dest}
  data: {image: "app:1", replicas: "5"} # scaled locally
`
	var out bytes.Buffer
	err := framework.Execute(function.Processor{}, &kio.ByteReadWriter{Reader: strings.NewReader(in), Writer: &out})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(out.String())
	// Output:
	// apiVersion: config.kubernetes.io/v1
	// kind: ResourceList
	// items:
	// - apiVersion: v1
	//   kind: ConfigMap
	//   metadata:
	//     name: settings
	//     annotations: {config.kubernetes.io/merge-source: dest}
	//   data: {image: "app:2", replicas: "5"} # scaled locally
	// functionConfig:
	//   apiVersion: v1
	//   kind: ConfigMap
	//   metadata: {name: merge}
	//   data: {mode: 3way}
	// results:
	// - message: '3way merge: 1 merged, 0 added, 0 deleted, 0 kept, 0 conflicts'
	//   severity: info
}

// Run is the function without the ResourceList: items and a loaded config in, the
// outcome (output items, results, counts, conflicts) out. Here the typed functionConfig
// carries the upstream releases inline (spec.original, spec.updated), as a kustomize
// transformer's config does, and every input item without a role is dest.
func ExampleRun() {
	cfg, err := function.LoadConfig(yaml.MustParse(`apiVersion: fn.krm-merge.dev/v1alpha1
kind: ResourceMerge
metadata: {name: upgrade}
spec:
  original:
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: settings}, data: {level: info}}
  updated:
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: settings}, data: {level: info, timeout: 30s}}
  - apiVersion: v1
    kind: Service
    metadata:
      name: web
    spec:
      ports:
      - port: 80
`))
	if err != nil {
		log.Fatal(err)
	}
	items := []*yaml.RNode{
		yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: debug # local\n"),
	}
	out, err := function.Run(items, cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", out.Counts)
	for _, it := range out.Items {
		fmt.Print(it.MustString(), "---\n")
	}
	// Output:
	// {Merged:1 Added:1 Deleted:0 Kept:0 StayedDeleted:0 Conflicts:0}
	// apiVersion: v1
	// kind: ConfigMap
	// metadata:
	//   name: settings
	// data:
	//   level: debug # local
	//   timeout: 30s
	// ---
	// apiVersion: v1
	// kind: Service
	// metadata:
	//   name: web
	// spec:
	//   ports:
	//   - port: 80
	// ---
}

// With onConflict: error any conflict fails the run: no outcome, and the error is a
// framework.Results whose first entry says how many conflicts there were, followed by
// one error result per conflict (Processor writes them with no items).
func ExampleRun_onConflictError() {
	items := []*yaml.RNode{
		yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  annotations: {config.kubernetes.io/merge-source: original}\ndata: {level: info}\n"),
		yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  annotations: {config.kubernetes.io/merge-source: updated}\ndata: {level: warn}\n"),
		yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  annotations: {config.kubernetes.io/merge-source: dest}\ndata: {level: debug}\n"),
	}
	cfg, err := function.LoadConfig(yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: merge}\ndata: {onConflict: error}\n"))
	if err != nil {
		log.Fatal(err)
	}
	out, err := function.Run(items, cfg)
	if out == nil {
		fmt.Println("no outcome")
	}
	if rs, ok := err.(framework.Results); ok {
		for _, r := range rs {
			fmt.Println(r)
		}
	}
	// Output:
	// no outcome
	// [error]: onConflict is error and the merge found 1 conflicts; nothing was written
	// [error] v1/ConfigMap/settings data.level: conflict: changed on both sides (original info, updated warn, dest debug); onConflict is error, so nothing is written
}

// Merge takes items whose roles the caller knows (here three trees read from files,
// as pkg update reads the releases and the package): no role annotations or role
// directories to decode. File is where results place an item; RelFile is what identity
// compares across the trees.
func ExampleMerge() {
	read := func(role vocab.Role, file, doc string, position int) roles.Item {
		return roles.Item{Node: yaml.MustParse(doc), Role: role, Position: position, File: file, RelFile: "app.yaml", RoleDir: "."}
	}
	items := []roles.Item{
		read(vocab.Original, "app.yaml (upstream v1)", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: info}\n", 0),
		read(vocab.Updated, "app.yaml (upstream v2)", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: warn}\n", 1),
		read(vocab.Dest, "app.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: debug}\n", 2),
	}
	cfg := config.Defaults()
	cfg.Mode, cfg.DestPath = vocab.ThreeWay, "."
	out, err := function.Merge(items, cfg)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range out.Conflicts {
		fmt.Printf("%s %s: %s\n", c.Item.File, c.Field.Path, c.Result.Message)
	}
	fmt.Print(out.Items[0].MustString())
	// Output:
	// app.yaml data.level: conflict: changed on both sides (original info, updated warn, dest debug); updated wins
	// apiVersion: v1
	// kind: ConfigMap
	// metadata: {name: settings}
	// data: {level: warn}
}

// A bad functionConfig: LoadConfig names the functionConfig resource and the field of
// each problem, as the function's error results do.
func ExampleLoadConfig() {
	_, err := function.LoadConfig(yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: merge}\ndata: {mode: 2way, onConflict: dest}\n"))
	fmt.Println(err)
	// Output:
	// v1 ConfigMap merge: data.onConflict: functionConfig: onConflict does not apply in 2way mode: a 2-way merge has no original, so no conflicts (src wins every field it sets); use it with 3way or apply mode
}
