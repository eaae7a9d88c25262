package config_test

import (
	"errors"
	"fmt"
	"log"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// The functionConfig of a ResourceList, in the typed form: a fn.krm-merge.dev/v1alpha1
// ResourceMerge with the keys under spec, here path roles, dest winning conflicts and a
// mergeKeys entry. Load fills every key the functionConfig leaves out with its default.
func ExampleLoad() {
	rl := yaml.MustParse(`apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: []
functionConfig:
  apiVersion: fn.krm-merge.dev/v1alpha1
  kind: ResourceMerge
  metadata:
    name: upgrade
  spec:
    originalPath: ./upstream/v1
    updatedPath: upstream/v2/
    destPath: .
    onConflict: dest
    mergeKeys:
    - group: monitoring.coreos.com
      kind: ServiceMonitor
      path: spec.endpoints
      listType: map
      keys: [port]
`)
	cfg, err := config.Load(rl.Field("functionConfig").Value)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("mode:", cfg.Mode)
	fmt.Println("roles by path:", cfg.ByPath(), cfg.OriginalPath, cfg.UpdatedPath, cfg.DestPath)
	fmt.Println("onConflict:", cfg.OnConflict)
	fmt.Println("roleAnnotation:", cfg.RoleAnnotation)
	fmt.Println("associativeKeys:", cfg.AssociativeKeys)
	for _, o := range cfg.MergeKeys {
		fmt.Println("mergeKeys:", o.Group, o.Kind, o.Path, o.List.Type, o.List.Keys)
	}
	// Output:
	// mode: 3way
	// roles by path: true upstream/v1 upstream/v2 .
	// onConflict: dest
	// roleAnnotation: config.kubernetes.io/merge-source
	// associativeKeys: [mountPath devicePath ip type topologyKey name containerPort]
	// mergeKeys: monitoring.coreos.com ServiceMonitor [spec endpoints] map [port]
}

// The ConfigMap form, as `kpt fn eval DIR --exec krm-merge -- mode=2way srcPath=new
// destPath=.` makes it: every value is a string.
func ExampleLoad_configMap() {
	fc := yaml.MustParse(`apiVersion: v1
kind: ConfigMap
metadata: {name: fn-config}
data:
  mode: 2way
  srcPath: new
  destPath: .
  associativeKeys: name, port
  keepSources: "true"
`)
	cfg, err := config.Load(fc)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cfg.Mode, cfg.SrcPath, cfg.DestPath, cfg.AssociativeKeys, cfg.KeepSources)
	// Output:
	// 2way new . [name port] true
}

// A functionConfig with problems: Load reports each, as an *Error with the field's path
// (for a result's field.path), the value and, for enums, the valid values; type errors
// in the typed form come from its OpenAPI schema. (An unknown or repeated key is
// reported alone: the typed form is not decoded further.)
func ExampleLoad_validationError() {
	fc := yaml.MustParse(`apiVersion: fn.krm-merge.dev/v1alpha1
kind: ResourceMerge
metadata: {name: upgrade}
spec:
  mode: 3-way
  mergeOnPath: "yes"
  originalPath: ../upstream
`)
	_, err := config.Load(fc)
	var list config.Errors
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Printf("%s: %q valid=%v\n", e.Field, e.Value, e.Valid)
		}
	}
	fmt.Println(err)
	// Output:
	// spec.mergeOnPath: "yes" valid=[]
	// spec.mode: "3-way" valid=[3way 2way apply]
	// spec.originalPath: "../upstream" valid=[]
	// functionConfig: spec.mergeOnPath in body must be of type boolean: "string"
	// functionConfig: mode "3-way" is invalid; valid values: 3way, 2way, apply; did you mean "3way"?
	// functionConfig: originalPath "../upstream" leaves the package root; paths are relative to the package root and stay inside it
}

// Validate checks a Config built or changed in Go, as Load checks its own result: start
// from Defaults and set what differs.
func ExampleConfig_Validate() {
	cfg := config.Defaults()
	cfg.Mode = vocab.TwoWay
	cfg.OriginalPath = "upstream" // a 3-way key
	fmt.Println(cfg.Validate())
	// Output:
	// functionConfig: originalPath does not apply in 2way mode (it selects the original role of 3way mode); 2way mode selects roles by path with srcPath and destPath
}
