package config

import (
	"encoding/json"
	"fmt"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The embedded schema (schema.yaml) as the tests read it.

// OpenAPIYAML returns the embedded schema as the YAML text it is written in.
func OpenAPIYAML() string {
	return schemaYAML
}

// OpenAPI returns a fresh copy of the schema Load validates the typed form against
// (sharedSchema), which the caller may change.
func OpenAPI() (*spec.Schema, error) {
	s, err := sharedSchema()
	if err != nil {
		return nil, err
	}
	// spec.Schema holds maps and pointers: copy through JSON.
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("config: copying the ResourceMerge schema: %w", err)
	}
	out := &spec.Schema{}
	if err := json.Unmarshal(b, out); err != nil {
		return nil, fmt.Errorf("config: copying the ResourceMerge schema: %w", err)
	}
	return out, nil
}
