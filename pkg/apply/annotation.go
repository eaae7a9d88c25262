package apply

import (
	"encoding/json"
	"fmt"
)

// LastAppliedAnnotation is the annotation in which kubectl client-side apply keeps the
// configuration it applied last (k8s.io/api/core/v1.LastAppliedConfigAnnotation).
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// LastAppliedConfiguration returns the annotation value kubectl apply writes for a
// local config, byte for byte as kubectl's GetModifiedConfiguration(obj, false,
// unstructured.UnstructuredJSONScheme) makes it (k8s.io/kubectl/pkg/util/apply.go):
// the config without the annotation, with metadata.annotations set to a map of
// strings (an absent or malformed annotations map becomes {}), encoded as compact JSON
// by encoding/json (sorted keys, <, > and & escaped as \u003c, \u003e, \u0026) and ending
// in "\n".
//
// config is the config as a JSON value (map[string]interface{} from toValue); it is
// not changed. Errors: metadata that is not a map, a value encoding/json cannot encode.
func LastAppliedConfiguration(config map[string]interface{}) (string, error) {
	obj, err := withAnnotations(config, nil)
	if err != nil {
		return "", err
	}
	b, err := toJSON(obj)
	if err != nil {
		return "", err
	}
	return string(b) + "\n", nil
}

// modifiedConfiguration is what kubectl passes as "modified" to the patch computation:
// the config with the annotation set to lastApplied (GetModifiedConfiguration with
// annotate=true).
func modifiedConfiguration(config map[string]interface{}, lastApplied string) ([]byte, error) {
	obj, err := withAnnotations(config, &lastApplied)
	if err != nil {
		return nil, err
	}
	return toJSON(obj)
}

// withAnnotations returns a shallow copy of obj whose metadata.annotations is the
// config's string annotations without the last-applied one, plus lastApplied when not
// nil. Like unstructured.GetAnnotations, null values read as "" and a map that holds
// another non-string value reads as no annotations at all.
func withAnnotations(obj map[string]interface{}, lastApplied *string) (map[string]interface{}, error) {
	out := make(map[string]interface{}, len(obj)+1)
	for k, v := range obj {
		out[k] = v
	}
	meta := map[string]interface{}{}
	switch m := obj["metadata"].(type) {
	case map[string]interface{}:
		for k, v := range m {
			meta[k] = v
		}
	case nil:
	default:
		return nil, fmt.Errorf("metadata is a %s, not a map", kindOf(m))
	}
	annots := map[string]interface{}{}
	if a, ok := meta["annotations"].(map[string]interface{}); ok {
		valid := true
		for _, v := range a {
			if _, isString := v.(string); !isString && v != nil {
				valid = false // a map with another value reads as no annotations
			}
		}
		for k, v := range a {
			if valid {
				s, _ := v.(string) // null reads as "" (NestedNullCoercingStringMap)
				annots[k] = s
			}
		}
	}
	delete(annots, LastAppliedAnnotation)
	if lastApplied != nil {
		annots[LastAppliedAnnotation] = *lastApplied
	}
	meta["annotations"] = annots
	out["metadata"] = meta
	return out, nil
}

// originalConfiguration returns the live object's last-applied configuration
// (kubectl's GetOriginalConfiguration): nil when the annotation is absent, so nothing is
// deleted. Errors: the annotation is not a string, or not a JSON object (kubectl apply
// fails on such an object too).
func originalConfiguration(live map[string]interface{}) ([]byte, error) {
	meta, _ := live["metadata"].(map[string]interface{})
	annots, _ := meta["annotations"].(map[string]interface{})
	raw, ok := annots[LastAppliedAnnotation]
	if !ok {
		return nil, nil
	}
	s, ok := raw.(string)
	if !ok {
		return nil, fmt.Errorf("the annotation is a %s, not a string holding JSON", kindOf(raw))
	}
	if s == "" {
		return nil, nil
	}
	var m map[string]interface{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("the annotation is not a JSON object (%v); kubectl apply fails on this object too: fix the annotation or remove it (then nothing is deleted)", err)
	}
	if m == nil { // "null": no previous configuration
		return nil, nil
	}
	return []byte(s), nil
}

func kindOf(v interface{}) string {
	switch v.(type) {
	case map[string]interface{}:
		return "map"
	case []interface{}:
		return "list"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}
