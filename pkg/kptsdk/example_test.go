package kptsdk_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/GoogleContainerTools/kpt-functions-sdk/go/fn"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/kptsdk"
)

// input is a ResourceList as kpt would send it: three versions of one ConfigMap in a
// package's original/, updated/ and dest/ directories, and a ConfigMap functionConfig
// (what `kpt fn eval ... -- originalPath=original ...` makes).
const input = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: merge}
  data: {originalPath: original, updatedPath: updated, destPath: dest}
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    annotations: {internal.config.kubernetes.io/path: original/settings.yaml, internal.config.kubernetes.io/index: "0"}
  data: {image: "app:1", level: info}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    annotations: {internal.config.kubernetes.io/path: updated/settings.yaml, internal.config.kubernetes.io/index: "0"}
  data: {image: "app:2", level: info, timeout: 30s}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    annotations: {internal.config.kubernetes.io/path: dest/settings.yaml, internal.config.kubernetes.io/index: "0"}
  # local settings
  data:
    image: "app:1"
    level: debug # for the incident
`

// The main package of an SDK-based function that is nothing but krm-merge would be:
//
//	func main() {
//		if err := fn.AsMain(fn.ResourceListProcessorFunc(kptsdk.Processor{}.Process)); err != nil {
//			os.Exit(1)
//		}
//	}
//
// fn.AsMain reads stdin and calls fn.Run; here fn.Run gets the ResourceList literal.
// The original and updated items are consumed (path roles), the dest item is merged
// with its comments, and the results hold the summary.
func Example() {
	out, err := fn.Run(fn.ResourceListProcessorFunc(kptsdk.Processor{}.Process), []byte(input))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(out))
	// Output:
	// apiVersion: config.kubernetes.io/v1
	// kind: ResourceList
	// items:
	// - apiVersion: v1
	//   kind: ConfigMap
	//   metadata:
	//     name: settings
	//     annotations: {internal.config.kubernetes.io/path: dest/settings.yaml, internal.config.kubernetes.io/index: "0"}
	//   # local settings
	//   data:
	//     image: "app:2"
	//     level: debug # for the incident
	//     timeout: 30s
	// functionConfig:
	//   apiVersion: v1
	//   kind: ConfigMap
	//   metadata: {name: merge}
	//   data: {originalPath: original, updatedPath: updated, destPath: dest}
	// results:
	// - message: '3way merge: 1 merged, 0 added, 0 deleted, 0 kept, 0 conflicts'
	//   severity: info
}

// A function with its own purpose and functionConfig that merges first: it configures
// krm-merge in Go (Processor.Config), so its own functionConfig (kind Upgrade) is not
// read by the merge, then labels every merged item with the release it names. A failed
// merge stops it before its own step, with krm-merge's error results in rl.Results.
func ExampleProcessor_embedded() {
	cfg := config.Defaults()
	cfg.OriginalPath, cfg.UpdatedPath, cfg.DestPath = "original", "updated", "dest"
	merge := kptsdk.Processor{Config: cfg}

	upgrade := func(rl *fn.ResourceList) (bool, error) {
		release, _, err := rl.FunctionConfig.NestedString("spec", "release")
		if err != nil {
			return false, err
		}
		if ok, err := merge.Process(rl); !ok || err != nil {
			return false, err
		}
		for _, o := range rl.Items {
			if err := o.SetLabel("example.com/release", release); err != nil {
				return false, err
			}
		}
		return true, nil
	}

	in := strings.Replace(input, `  apiVersion: v1
  kind: ConfigMap
  metadata: {name: merge}
  data: {originalPath: original, updatedPath: updated, destPath: dest}
`, `  apiVersion: example.com/v1
  kind: Upgrade
  metadata: {name: upgrade}
  spec: {release: v2}
`, 1)
	out, err := fn.Run(fn.ResourceListProcessorFunc(upgrade), []byte(in))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(out))
	// Output:
	// apiVersion: config.kubernetes.io/v1
	// kind: ResourceList
	// items:
	// - apiVersion: v1
	//   kind: ConfigMap
	//   metadata:
	//     name: settings
	//     annotations: {internal.config.kubernetes.io/path: dest/settings.yaml, internal.config.kubernetes.io/index: "0"}
	//     labels:
	//       example.com/release: v2
	//   # local settings
	//   data:
	//     image: "app:2"
	//     level: debug # for the incident
	//     timeout: 30s
	// functionConfig:
	//   apiVersion: example.com/v1
	//   kind: Upgrade
	//   metadata: {name: upgrade}
	//   spec: {release: v2}
	// results:
	// - message: '3way merge: 1 merged, 0 added, 0 deleted, 0 kept, 0 conflicts'
	//   severity: info
}

// A failure: the dest changed the image too and onConflict is error. Process leaves the
// items as they were, appends one error result per conflict and fails, so fn.Run (and
// fn.AsMain) return an error and a host such as kpt leaves the package untouched.
func ExampleProcessor_conflict() {
	in := strings.Replace(input, "destPath: dest}", "destPath: dest, onConflict: error}", 1)
	in = strings.Replace(in, `    image: "app:1"
    level: debug`, `    image: "app:1-hotfix"
    level: debug`, 1)
	out, err := fn.Run(fn.ResourceListProcessorFunc(kptsdk.Processor{}.Process), []byte(in))
	fmt.Println("error:", err)
	rl, perr := fn.ParseResourceList(out)
	if perr != nil {
		log.Fatal(perr)
	}
	fmt.Println("items:", len(rl.Items))
	for _, r := range rl.Results {
		fmt.Println(r)
	}
	// Output:
	// error: [error]: onConflict is error and the merge found 1 conflicts; nothing was written
	//
	// [error] v1/ConfigMap/settings data.image: conflict: changed on both sides: the tag (original 1, updated 2, dest 1-hotfix); onConflict is error, so nothing is written
	// items: 3
	// [error]: onConflict is error and the merge found 1 conflicts; nothing was written
	// [error] v1/ConfigMap/settings data.image: conflict: changed on both sides: the tag (original 1, updated 2, dest 1-hotfix); onConflict is error, so nothing is written
}
