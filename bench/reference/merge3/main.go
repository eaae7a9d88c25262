// Command merge3 is the benchmark's reference 3-way merge function, built the obvious
// way on kyaml: framework.Execute (through command.Build) around kio/filters.Merge3,
// which pairs original, updated and dest by the config.kubernetes.io/merge-source
// annotation. Identity ignores file paths (MergeOnPath off), as the roles live in
// different directories.
package main

import (
	"os"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/fn/framework/command"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
)

func main() {
	p := framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
		var err error
		rl.Items, err = filters.Merge3{Matcher: &filters.DefaultGVKNNMatcher{MergeOnPath: false}}.Filter(rl.Items)
		return err
	})
	if err := command.Build(p, command.StandaloneDisabled, false).Execute(); err != nil {
		os.Exit(1)
	}
}
