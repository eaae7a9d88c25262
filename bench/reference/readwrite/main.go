// Command readwrite is the benchmark's floor reference: a kyaml-framework function
// (command.Build, framework.Execute) that reads the ResourceList and writes it back,
// merging nothing.
package main

import (
	"os"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/fn/framework/command"
)

func main() {
	p := framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil })
	if err := command.Build(p, command.StandaloneDisabled, false).Execute(); err != nil {
		os.Exit(1)
	}
}
