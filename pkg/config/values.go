package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/parallel"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// This file reads the values of both forms into the Config (functionConfig.Default
// calls configMapValues or typedValues), checking each value on its own as it is set;
// pathProblem is shared with Validate. The mergeKeys and fieldRules tables are read in
// rules.go.

// configMapValues reads the values under data, as written: each a string (a value
// YAML reads as another type taken as its text).
func (l *loader) configMapValues() {
	for _, kv := range l.pairs {
		name, value := kv[0].Value, kv[1]
		if value.Kind != yaml.ScalarNode {
			l.fail(l.field(name), "", nil, "%s must be a string; got a %s (ConfigMap data values are strings%s)",
				name, nodeKindName(value), listHint(name))
			continue
		}
		s := value.Value
		if value.Tag == yaml.NodeTagNull {
			s = ""
		}
		switch {
		case boolKey(name):
			if s != "true" && s != "false" {
				l.fail(l.field(name), s, validBools, "%s %q is invalid; valid values: %s", name, s, strings.Join(validBools, ", "))
				continue
			}
			l.setBool(name, s == "true")
		case name == KeyMergeKeys:
			l.setMergeKeys(value)
		case name == KeyFieldRules:
			l.setFieldRules(value)
		case name == KeyAssociativeKeys:
			var list []string
			if strings.TrimSpace(s) != "" {
				list = strings.Split(s, ",")
				for i := range list {
					list[i] = strings.TrimSpace(list[i])
				}
			}
			l.setAssociativeKeys(list)
		default:
			l.setString(name, s)
		}
	}
}

// listHint tells a ConfigMap user how to write associativeKeys.
func listHint(name string) string {
	if name == KeyAssociativeKeys {
		return `; write a list as "mountPath,name"`
	}
	if name == KeyMergeKeys || name == KeyFieldRules {
		return "; write the table as YAML or JSON text, e.g. " + strconvQuote(tableExample(name))
	}
	return ""
}

// typedValues reads the values under spec, as the schema saw them.
func (l *loader) typedValues() {
	// Values of a wrong type were reported by the schema: skip them here.
	var spec map[string]interface{}
	if m, ok := l.data.(map[string]interface{}); ok {
		spec, _ = m["spec"].(map[string]interface{})
	}
	for _, kv := range l.pairs {
		name := kv[0].Value
		v := spec[name]
		switch {
		case boolKey(name):
			if b, ok := v.(bool); ok {
				l.setBool(name, b)
			}
		case name == KeyAssociativeKeys:
			items, ok := v.([]interface{})
			if !ok {
				continue
			}
			list := make([]string, 0, len(items))
			for _, item := range items {
				s, ok := item.(string)
				if !ok {
					list = nil
					break
				}
				list = append(list, s)
			}
			if list != nil {
				l.setAssociativeKeys(list)
			}
		case name == KeyOriginal || name == KeyUpdated || name == KeySrc:
			l.setInline(name, kv[1])
		case name == KeyMergeKeys:
			l.setMergeKeys(kv[1])
		case name == KeyFieldRules:
			l.setFieldRules(kv[1])
		default:
			if s, ok := v.(string); ok {
				l.setString(name, s)
			}
		}
	}
}

// setString sets a string-valued key, checking its value.
func (l *loader) setString(name, s string) {
	switch name {
	case KeyMode:
		if l.checkEnum(name, s, validModes) {
			l.cfg.Mode = vocab.Mode(s)
		}
	case KeyOnConflict:
		if l.checkEnum(name, s, validConflicts) {
			l.cfg.OnConflict = ConflictPolicy(s)
		}
	case KeySchema:
		if l.checkEnum(name, s, validSchemas) {
			l.cfg.Schema = SchemaSource(s)
		}
	case KeyRoleAnnotation:
		if msg := checkAnnotationKey(s); msg != "" {
			l.fail(l.field(name), s, nil, "roleAnnotation %q is not a valid annotation key: %s", s, msg)
			return
		}
		l.cfg.RoleAnnotation = s
	case KeyOriginalPath, KeyUpdatedPath, KeyDestPath, KeySrcPath:
		p, ok := l.cleanPath(name, s)
		if ok {
			*l.pathField(name) = p
		}
	}
}

// checkEnum reports whether s is one of valid, and records a problem if not.
func (l *loader) checkEnum(name, s string, valid []string) bool {
	if slices.Contains(valid, s) {
		return true
	}
	msg := fmt.Sprintf("%s %q is invalid; valid values: %s", name, s, strings.Join(valid, ", "))
	if sug := suggest(s, valid); sug != "" {
		msg += fmt.Sprintf("; did you mean %q?", sug)
	}
	l.fail(l.field(name), s, valid, "%s", msg)
	return false
}

// boolKey reports whether the key name takes a boolean (its entry in the keys' table).
func boolKey(name string) bool {
	k, ok := lookupKey(name)
	return ok && k.Type == "boolean"
}

// setBool sets a boolean key.
func (l *loader) setBool(name string, b bool) {
	switch name {
	case KeyMergeOnPath:
		l.cfg.MergeOnPath = b
	case KeyKeepSources:
		l.cfg.KeepSources = b
	case KeyPlan:
		l.cfg.Plan = b
	case KeyValueMerge:
		l.cfg.ValueMerge = b
	case KeyShowSecretValues:
		l.cfg.ShowSecretValues = b
	}
}

// setAssociativeKeys checks and sets associativeKeys.
func (l *loader) setAssociativeKeys(list []string) {
	f := l.field(KeyAssociativeKeys)
	if len(list) == 0 {
		l.fail(f, "", nil, "associativeKeys must list at least one key; leave it out for the defaults (%s)",
			strings.Join(schema.DefaultAssociativeKeys(), ", "))
		return
	}
	ok := true
	seen := map[string]bool{}
	for _, k := range list {
		switch {
		case strings.TrimSpace(k) == "":
			l.fail(f, k, nil, "associativeKeys has an empty key")
			ok = false
		case strings.ContainsAny(k, ", \t\r\n"):
			l.fail(f, k, nil, "associativeKeys key %q contains a comma or whitespace", k)
			ok = false
		case seen[k]:
			l.fail(f, k, nil, "associativeKeys lists %q twice", k)
			ok = false
		}
		seen[k] = true
	}
	if ok {
		l.cfg.AssociativeKeys = list
	}
}

// setInline sets the copies of the resources of spec.original, spec.updated or
// spec.src (inlineCopies; a list holding anything but maps is not taken). Problems with
// the list or its items were reported by the schema.
func (l *loader) setInline(name string, list *yaml.Node) {
	if l.copies == nil {
		l.copies = copyInline(l.pairs)
	}
	out := l.copies.of(list)
	if out == nil {
		return
	}
	switch name {
	case KeyOriginal:
		l.cfg.Original = out
	case KeyUpdated:
		l.cfg.Updated = out
	case KeySrc:
		l.cfg.Src = out
	}
}

// inlineCopies are the copies of the inline resource lists, made in the background
// (copyInline) while the rest of the functionConfig is read.
type inlineCopies struct {
	done     chan struct{}
	lists    map[*yaml.Node][]*yaml.RNode
	panicked any
}

// copyInline starts copying the resources of the inline lists among pairs (spec's keys
// and values) whose elements are all maps, on all cores (each copy only reads its
// resource), and returns at once.
func copyInline(pairs [][2]*yaml.Node) *inlineCopies {
	c := &inlineCopies{done: make(chan struct{}), lists: map[*yaml.Node][]*yaml.RNode{}}
	var lists []*yaml.Node
	for _, kv := range pairs {
		if isInlineKey(kv[0].Value) && kv[1].Kind == yaml.SequenceNode &&
			!slices.ContainsFunc(kv[1].Content, func(n *yaml.Node) bool { return n.Kind != yaml.MappingNode }) {
			lists = append(lists, kv[1])
		}
	}
	go func() {
		defer close(c.done)
		defer func() { c.panicked = recover() }()
		for _, list := range lists {
			out := make([]*yaml.RNode, len(list.Content))
			parallel.ForEach(len(out), 16, func(i int) { out[i] = yaml.NewRNode(list.Content[i]).Copy() })
			c.lists[list] = out
		}
	}()
	return c
}

// of waits for the copies and returns list's, nil when list was not copied. A panic
// while copying is raised here, on the caller's goroutine.
func (c *inlineCopies) of(list *yaml.Node) []*yaml.RNode {
	<-c.done
	if c.panicked != nil {
		panic(c.panicked)
	}
	return c.lists[list]
}

// pathField returns the Config field a *Path key sets.
func (l *loader) pathField(name string) *string {
	switch name {
	case KeyOriginalPath:
		return &l.cfg.OriginalPath
	case KeyUpdatedPath:
		return &l.cfg.UpdatedPath
	case KeyDestPath:
		return &l.cfg.DestPath
	default:
		return &l.cfg.SrcPath
	}
}

// cleanPath cleans a role directory (docs/function.md, "Choosing roles": "dest", "./dest"
// and "dest/" name the same directory) as roles.Clean does, a backslash being a
// separator. "" stays "" (unset). A path pathProblem refuses is a problem.
func (l *loader) cleanPath(name, p string) (string, bool) {
	if p == "" {
		return "", true
	}
	if msg := pathProblem(name, p); msg != "" {
		l.fail(l.field(name), p, nil, "%s", msg)
		return "", false
	}
	return roles.Clean(p), true
}

// pathProblem is the message for path key name set to p when roles.CheckPath refuses
// p (a control character; absolute; leaving the package root, backslashes read as
// separators, as package roles reads them), else "". The loader and Validate share it.
func pathProblem(name, p string) string {
	switch f := roles.CheckPath(p); f {
	case "":
		return ""
	case roles.PathControl:
		return fmt.Sprintf("%s %q %s; a path key names a directory of the package, e.g. %q", name, p, f, "dest")
	case roles.PathAbsolute:
		return fmt.Sprintf("%s %q %s; paths are relative to the package root, e.g. %q", name, p, f, "dest")
	default:
		msg := fmt.Sprintf("%s %q %s; paths are relative to the package root and stay inside it", name, p, f)
		if strings.Contains(p, `\`) {
			msg += " (a backslash is a separator, as in the items' paths)"
		}
		return msg
	}
}

var (
	annotationNameRE   = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	annotationPrefixRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// checkAnnotationKey returns why key is not a valid Kubernetes annotation key (an
// optional DNS-subdomain prefix and "/", then a name of at most 63 characters), or "".
func checkAnnotationKey(key string) string {
	if key == "" {
		return "it is empty"
	}
	name := key
	if i := strings.LastIndex(key, "/"); i >= 0 {
		prefix := key[:i]
		name = key[i+1:]
		if len(prefix) > 253 || !annotationPrefixRE.MatchString(prefix) {
			return fmt.Sprintf("the prefix %q must be a DNS subdomain (lowercase letters, digits, '-' and '.', at most 253 characters)", prefix)
		}
	}
	if len(name) > 63 || !annotationNameRE.MatchString(name) {
		return fmt.Sprintf("the name %q must be at most 63 characters: letters, digits, '-', '_' and '.', "+
			"starting and ending with a letter or digit", name)
	}
	return ""
}

// suggest returns the entry of valid that s most likely meant: the same apart from
// case, '-', '_' and spaces; or "".
func suggest(s string, valid []string) string {
	norm := func(x string) string {
		return strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(x))
	}
	for _, v := range valid {
		if v != s && norm(v) == norm(s) {
			return v
		}
	}
	return ""
}
