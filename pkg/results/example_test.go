package results_test

import (
	"errors"
	"fmt"
	"log"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// A 3-way field conflict as the function reports it: a warning on the dest item with
// resourceRef, file and field.path, the three values in the message, currentValue
// dest's and proposedValue the winner's. Under onConflict: error (fails true) the
// same conflict is an error without a proposed value.
func ExampleFieldConflict() {
	original := yaml.MustParse("spec: {replicas: 1}\n")
	updated := yaml.MustParse("spec: {replicas: 2}\n")
	dest := yaml.MustParse(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: prod}
spec: {replicas: 5}
`)
	res, err := merge.ThreeWay(original, updated, dest, merge.Options{})
	if err != nil {
		log.Fatal(err)
	}
	conflicts := res.Conflicts
	c := conflicts[0]
	at := results.At{Location: vocab.Location{Resource: vocab.ResourceRef(dest), File: "deploy.yaml"}, Path: c.Path.String()}
	r := results.FieldConflict(at, c, false)
	fmt.Println(r)
	b, err := yaml.Marshal(r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(b))
	fmt.Println(results.FieldConflict(at, c, true))
	// Output:
	// [warning] apps/v1/Deployment/prod/web spec.replicas: conflict: changed on both sides (original 1, updated 2, dest 5); updated wins
	// message: 'conflict: changed on both sides (original 1, updated 2, dest 5); updated wins'
	// severity: warning
	// resourceRef:
	//   apiVersion: apps/v1
	//   kind: Deployment
	//   name: web
	//   namespace: prod
	// field:
	//   path: spec.replicas
	//   currentValue: "5"
	//   proposedValue: "2"
	// file:
	//   path: deploy.yaml
	// tags:
	//   dest: "5"
	//   original: "1"
	//   updated: "2"
	// [error] apps/v1/Deployment/prod/web spec.replicas: conflict: changed on both sides (original 1, updated 2, dest 5); onConflict is error, so nothing is written
}

// The info result that heads every run's results.
func ExampleSummary() {
	fmt.Println(results.Summary("3way", vocab.Counts{Merged: 12, Added: 1, Deleted: 1, Kept: 3, Conflicts: 2}))
	// Output:
	// [info]: 3way merge: 12 merged, 1 added, 1 deleted, 3 kept, 2 conflicts
}

// Bad input is a *vocab.ItemError naming the resource, file and field; FromError turns it
// (alone, joined with errors.Join, or inside a framework.Results) into error results,
// as the function writes them.
func ExampleFromError() {
	err := errors.Join(
		&vocab.ItemError{
			Location: vocab.Location{
				Resource: &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, NameMeta: yaml.NameMeta{Name: "settings"}},
				File:     "dest/settings.yaml",
			},
			Field: "metadata.annotations.config.kubernetes.io/merge-source",
			Msg:   `role "src" is not a role of mode 3way; valid roles: original, updated, dest`,
		},
		errors.New("something without a place"),
	)
	fmt.Println(err)
	fmt.Println("---")
	for _, r := range results.FromError(err) {
		fmt.Println(r.Severity, r.File != nil, r.Field != nil, r.Message)
	}
	// Output:
	// dest/settings.yaml: v1 ConfigMap settings: metadata.annotations.config.kubernetes.io/merge-source: role "src" is not a role of mode 3way; valid roles: original, updated, dest
	// something without a place
	// ---
	// error true true role "src" is not a role of mode 3way; valid roles: original, updated, dest
	// error false false something without a place
}
