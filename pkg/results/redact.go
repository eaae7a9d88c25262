package results

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/plan"
)

// A Secret's data and stringData values are credentials; results, plans and `pkg
// update`'s conflict lines end up in CI logs. Every function here that turns a value into
// text or a result's value (FieldConflict, ValueMerged, PlanChange, ApplyChange,
// ApplyRefusedField, and for pkg update RedactConflict and RedactChange) redacts them
// unless At.ShowSecretValues (the functionConfig's showSecretValues) is set: each
// scalar becomes Redacted's text, which keeps the length and the start of the hash, so a
// person can still tell that two sides differ. Keys (the field paths) are kept.

// IsSecret reports whether ref is a core v1 Secret (apiVersion v1, kind Secret).
func IsSecret(ref *yaml.ResourceIdentifier) bool {
	return ref != nil && ref.APIVersion == "v1" && ref.Kind == "Secret"
}

// secretPath says where a Secret's values are at path: under, when the path is in data
// or stringData (every scalar of the value is a credential); root, when the path is the
// resource itself (its data and stringData fields are).
func secretPath(path fieldpath.Path) (under, root bool) {
	if len(path) == 0 {
		return false, true
	}
	s := path[0]
	return s.Kind == fieldpath.Field && (s.Name == "data" || s.Name == "stringData"), false
}

// Redacted is the text that stands for a secret value v: "<redacted: 24 bytes,
// sha256:abcd1234>", the length of v and the first 8 hex digits of its SHA-256.
func Redacted(v string) string {
	sum := sha256.Sum256([]byte(v))
	return fmt.Sprintf("<redacted: %d bytes, sha256:%s>", len(v), hex.EncodeToString(sum[:4]))
}

// redactValue returns v (a plain value as Value gives it) with every scalar replaced
// by Redacted's text of it (nil stays nil: an absent value); maps keep their keys.
func redactValue(v interface{}) interface{} {
	switch x := v.(type) {
	case nil:
		return nil
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			out[k] = redactValue(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = redactValue(e)
		}
		return out
	case string:
		return Redacted(x)
	}
	return Redacted(fmt.Sprint(v))
}

// redactRoot redacts the data and stringData fields of a whole resource's plain value.
func redactRoot(v interface{}) interface{} {
	m, ok := v.(map[string]interface{})
	if !ok {
		return v
	}
	out := make(map[string]interface{}, len(m))
	for k, e := range m {
		if k == "data" || k == "stringData" {
			e = redactValue(e)
		}
		out[k] = e
	}
	return out
}

// redactNode returns a copy of n with every scalar replaced by Redacted's text of it
// (maps keep their keys; nil stays nil), or with only its data and stringData fields so
// redacted when root is set. n itself is not changed.
func redactNode(n *yaml.RNode, root bool) *yaml.RNode {
	if n.IsNil() {
		return n
	}
	c := n.Copy()
	var walk func(x *yaml.Node)
	walk = func(x *yaml.Node) {
		switch x.Kind {
		case yaml.ScalarNode:
			x.Value, x.Tag, x.Style = Redacted(x.Value), yaml.NodeTagString, 0
		case yaml.MappingNode:
			for i := 1; i < len(x.Content); i += 2 {
				walk(x.Content[i])
			}
		case yaml.SequenceNode, yaml.DocumentNode:
			for _, e := range x.Content {
				walk(e)
			}
		case yaml.AliasNode:
			if x.Alias != nil {
				a := *x.Alias
				x.Kind, x.Tag, x.Value, x.Content, x.Alias = a.Kind, a.Tag, a.Value, append([]*yaml.Node(nil), a.Content...), nil
				for i, e := range x.Content {
					cp := *e
					x.Content[i] = &cp
				}
				walk(x)
			}
		}
	}
	y := c.YNode()
	if !root {
		walk(y)
		return c
	}
	if y.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(y.Content); i += 2 {
			if k := y.Content[i].Value; k == "data" || k == "stringData" {
				walk(y.Content[i+1])
			}
		}
	}
	return c
}

// RedactConflict returns c with its values redacted (Original, Updated, Dest, Merged;
// a conflicting Part is dropped, so it is described by the redacted whole values) when
// ref is a Secret (IsSecret) and c is at or under its data or stringData, or is about
// the whole resource; else c as it is. For the text of `pkg update`'s conflict lines
// (ConflictText of it).
func RedactConflict(ref *yaml.ResourceIdentifier, c merge.Conflict) merge.Conflict {
	if !IsSecret(ref) {
		return c
	}
	under, root := secretPath(c.Path)
	if !under && !root {
		return c
	}
	c.Original, c.Updated, c.Dest, c.Merged = redactNode(c.Original, root), redactNode(c.Updated, root), redactNode(c.Dest, root), redactNode(c.Merged, root)
	c.Part = nil
	return c
}

// RedactChange is RedactConflict for a plan's field change: Current, Proposed and Base
// redacted (a reorder's element ids too).
func RedactChange(ref *yaml.ResourceIdentifier, c plan.Change) plan.Change {
	if !IsSecret(ref) {
		return c
	}
	under, root := secretPath(c.Path)
	switch {
	case under:
		c.Current, c.Proposed, c.Base = redactValue(c.Current), redactValue(c.Proposed), redactValue(c.Base)
	case root:
		c.Current, c.Proposed, c.Base = redactRoot(c.Current), redactRoot(c.Proposed), redactRoot(c.Base)
	}
	return c
}

// redactsAt reports whether results at a redact the values of a field at path.
func (a At) redactsAt(path fieldpath.Path) bool {
	if a.ShowSecretValues || !IsSecret(a.Resource) {
		return false
	}
	under, root := secretPath(path)
	return under || root
}
