package config

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// The accepted functionConfig forms (docs/function.md, "functionConfig").
const (
	// ConfigMapAPIVersion and ConfigMapKind identify the ConfigMap form, which
	// `kpt fn eval ... -- key=value`, a Kptfile's configMap and a kustomize fn.yaml produce.
	ConfigMapAPIVersion = "v1"
	ConfigMapKind       = "ConfigMap"
)

// Defaults returns the configuration of a run without functionConfig: mode 3way,
// roleAnnotation config.kubernetes.io/merge-source, onConflict updated, schema
// kubernetes, associativeKeys schema.DefaultAssociativeKeys (a copy), valueMerge true, no paths, no
// inline sources, mergeOnPath and keepSources false (docs/function.md, "functionConfig"
// table).
func Defaults() *Config {
	return &Config{
		Mode:            vocab.ThreeWay,
		RoleAnnotation:  vocab.DefaultRoleAnnotation,
		OnConflict:      vocab.UpdatedWins,
		Schema:          SchemaKubernetes,
		AssociativeKeys: append([]string(nil), schema.DefaultAssociativeKeys()...),
		ValueMerge:      true,
	}
}

// Load reads and validates a ResourceList's functionConfig (docs/function.md, "functionConfig"
// and "Choosing roles"). It never changes fc.
//
// Input, one of:
//   - nil, a null node or an empty map: Defaults();
//   - a v1 ConfigMap: the keys under data, string values. Booleans are "true" or
//     "false"; associativeKeys is comma-separated ("name, port" is ["name", "port"]).
//     A value YAML would read as another type (keepSources: true) is taken as written;
//   - a fn.krm-merge.dev/v1alpha1 ResourceMerge: the keys under spec with native types
//     (booleans, a list of strings for associativeKeys), plus spec.original,
//     spec.updated and spec.src, lists of inline resources. It is first validated
//     against OpenAPI(), so type errors name the field, e.g.
//     `spec.mergeOnPath in body must be of type boolean: "string"`.
//
// metadata is ignored in both forms (kpt and kustomize annotate it). Absent keys take
// their defaults (Keys()).
//
// Output: a Config with every field filled. Paths are cleaned ("./dest" and "dest/" are
// "dest"); an empty path is unset. Inline resources are deep copies, in order; a list
// given empty ([]) is a non-nil empty slice, an absent one nil.
//
// Errors: nil or Errors (one *Error per problem, each with the field path; Error()
// starts with "functionConfig:"). [contract] marks rules docs/function.md states; the others
// are this package's reading of it where it is silent (kyaml's behaviour or what a kpt
// or kustomize user would expect):
//   - [contract] another apiVersion/kind (the message names both accepted forms), or a
//     functionConfig that is not a map;
//   - [contract] an unknown key (at the top level, under data or under spec), with the
//     valid keys; a key given twice;
//   - [contract] a value outside an enum (mode, onConflict, schema, and booleans in the
//     ConfigMap), with the valid values;
//   - [contract] in the typed form, a value of the wrong type, or an inline resource
//     without apiVersion, kind or metadata.name (from the schema, naming the field);
//   - roleAnnotation that is not a valid Kubernetes annotation key;
//   - a path key that is absolute, leaves the package root ("../x", or `u\..\..` with
//     backslashes read as separators, as package roles reads them) or holds a control
//     character (roles.CheckPath);
//   - associativeKeys empty, with an empty key, a comma or whitespace in a key, or a key
//     listed twice;
//   - mergeKeys and fieldRules (rules.go): not a list (in the ConfigMap form: text that
//     is not a YAML or JSON list), empty, an entry that is not a map or has an unknown
//     or repeated key, a missing kind/path/listType (mergeKeys) or paths/policy
//     (fieldRules), an unknown listType or policy (with the valid values), listType map
//     without keys or keys with another listType, a mergeKeys path with selectors, a
//     fieldRules path that does not parse or uses a positional selector, a bad
//     labelSelector; each naming the field, e.g. "spec.mergeKeys[0].listType";
//   - mergeKeys or fieldRules in apply mode;
//   - [contract, "Modes"] role keys of another mode: srcPath or spec.src in 3way or
//     apply mode; originalPath, updatedPath, spec.original or spec.updated in 2way mode;
//     originalPath or spec.original in apply mode (the original is the dest's
//     last-applied-configuration annotation); and onConflict in 2way mode (a 2-way merge
//     has no conflicts: the key would be silently ignored);
//   - inline sources together with any *Path key (docs/function.md gives inline sources
//     their own dest rule: every input item without a role), or with mergeOnPath (inline
//     resources have no file path);
//   - path selection without every path key of its mode (3way: originalPath,
//     updatedPath, destPath, as kyaml filters.Merge3; 2way: srcPath, destPath; apply:
//     updatedPath, destPath), or 3way inline sources without both spec.original and
//     spec.updated (an empty list is given as []);
//   - two role keys naming the same directory. Nested directories are accepted: an item
//     takes the role of the most specific directory it lies under (package roles), so
//     destPath "." with originalPath "upstream/old" and updatedPath "upstream/new" makes
//     the rest of the package dest.
//
// Problems with several keys are only checked when every key is valid on its own.
func Load(fc *yaml.RNode) (*Config, error) {
	cfg := Defaults()
	node := rootNode(fc)
	if node == nil || (node.Kind == yaml.ScalarNode && node.Tag == yaml.NodeTagNull) {
		return cfg, nil
	}
	if node.Kind != yaml.MappingNode {
		return nil, Errors{{Message: fmt.Sprintf("must be a map (a %s); got a %s",
			strings.Join(acceptedForms(), " or a "), nodeKindName(node))}}
	}
	if len(node.Content) == 0 {
		return cfg, nil
	}
	if bounds.HasAlias(node) {
		expanded, err := deAnchor(node)
		if err != nil {
			return nil, Errors{{Message: oneLine(fmt.Sprintf("cannot expand YAML aliases: %v", err))}}
		}
		node = expanded
	}

	l := &loader{cfg: cfg, present: map[string]bool{}}
	apiVersion, kind := scalarValue(mapValue(node, "apiVersion")), scalarValue(mapValue(node, "kind"))
	switch {
	case apiVersion == ConfigMapAPIVersion && kind == ConfigMapKind:
		l.prefix = "data"
		l.loadConfigMap(node)
	case apiVersion == APIVersion && kind == Kind:
		l.prefix = "spec"
		l.loadTyped(node)
	default:
		field := "kind"
		if kind == ConfigMapKind || kind == Kind {
			field = "apiVersion"
		}
		l.fail(field, apiVersion+" "+kind, acceptedForms(),
			"apiVersion %q, kind %q is not accepted; accepted: %s", apiVersion, kind,
			strings.Join(acceptedForms(), ", "))
	}
	if len(l.errs) == 0 {
		cfg.validate(l)
	}
	if len(l.errs) > 0 {
		return nil, l.errs
	}
	return cfg, nil
}

// acceptedForms names the accepted apiVersion/kind pairs.
func acceptedForms() []string {
	return []string{ConfigMapAPIVersion + " " + ConfigMapKind, APIVersion + " " + Kind}
}

// loader accumulates one Load's result and problems.
type loader struct {
	cfg *Config
	// prefix is "data" or "spec": where the keys live in this form.
	prefix string
	// present records the keys present in the functionConfig.
	present map[string]bool
	errs    Errors
}

// fail records a problem.
// The message is kept to one line, so that each line of Errors.Error() is one problem.
func (l *loader) fail(field, value string, valid []string, format string, args ...interface{}) {
	l.errs = append(l.errs, &Error{Field: field, Value: value, Valid: valid, Message: oneLine(fmt.Sprintf(format, args...))})
}

// oneLine joins the lines of s (e.g. a YAML parser's multi-line error) with spaces.
func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " ")
}

// field returns the path of a key in this form, e.g. "data.mode".
func (l *loader) field(key string) string {
	return l.prefix + "." + key
}

// given reports whether the functionConfig holds key (reporter).
func (l *loader) given(key string) bool { return l.present[key] }

// failed reports whether a problem was found (reporter).
func (l *loader) failed() bool { return len(l.errs) > 0 }

// loadConfigMap reads the ConfigMap form.
func (l *loader) loadConfigMap(node *yaml.Node) {
	l.checkTopLevel(node, []string{"apiVersion", "kind", "metadata", "data"})
	data := mapValue(node, "data")
	if data == nil || (data.Kind == yaml.ScalarNode && data.Tag == yaml.NodeTagNull) {
		return
	}
	if data.Kind != yaml.MappingNode {
		l.fail("data", "", nil, "data must be a map of string values; got a %s", nodeKindName(data))
		return
	}
	for _, kv := range l.keys(data) {
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
		switch name {
		case KeyMergeOnPath, KeyKeepSources, KeyPlan, KeyValueMerge:
			if s != "true" && s != "false" {
				l.fail(l.field(name), s, validBools, "%s %q is invalid; valid values: %s", name, s, strings.Join(validBools, ", "))
				continue
			}
			l.setBool(name, s == "true")
		case KeyMergeKeys:
			l.setMergeKeys(value)
		case KeyFieldRules:
			l.setFieldRules(value)
		case KeyAssociativeKeys:
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

// loadTyped reads the typed ResourceMerge form.
func (l *loader) loadTyped(node *yaml.Node) {
	l.checkTopLevel(node, []string{"apiVersion", "kind", "metadata", "spec"})
	specNode := mapValue(node, "spec")
	var pairs [][2]*yaml.Node
	if specNode != nil && specNode.Kind == yaml.MappingNode {
		pairs = l.keys(specNode)
	}
	if len(l.errs) > 0 {
		// Unknown or repeated keys: a repeated key would also fail decoding below.
		return
	}

	b, err := yaml.NewRNode(node).MarshalJSON()
	if err != nil {
		l.fail("", "", nil, "cannot read the %s: %v", Kind, err)
		return
	}
	var data interface{}
	if err := json.Unmarshal(b, &data); err != nil {
		l.fail("", "", nil, "cannot read the %s: %v", Kind, err)
		return
	}
	schemaErrs, err := validateTyped(data)
	if err != nil {
		l.fail("", "", nil, "%v", err)
		return
	}
	l.errs = append(l.errs, schemaErrs...)

	// Values of a wrong type were reported by the schema: skip them here.
	var spec map[string]interface{}
	if m, ok := data.(map[string]interface{}); ok {
		spec, _ = m["spec"].(map[string]interface{})
	}
	for _, kv := range pairs {
		name := kv[0].Value
		v := spec[name]
		switch name {
		case KeyMergeOnPath, KeyKeepSources, KeyPlan, KeyValueMerge:
			if b, ok := v.(bool); ok {
				l.setBool(name, b)
			}
		case KeyAssociativeKeys:
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
		case KeyOriginal, KeyUpdated, KeySrc:
			l.setInline(name, kv[1])
		case KeyMergeKeys:
			l.setMergeKeys(kv[1])
		case KeyFieldRules:
			l.setFieldRules(kv[1])
		default:
			if s, ok := v.(string); ok {
				l.setString(name, s)
			}
		}
	}
}

// checkTopLevel reports unknown and repeated top-level keys.
func (l *loader) checkTopLevel(node *yaml.Node, allowed []string) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		k := node.Content[i]
		if seen[k.Value] {
			l.fail(k.Value, k.Value, nil, "top-level key %q is given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		if contains(allowed, k.Value) {
			continue
		}
		hint := ""
		if _, ok := lookupKey(k.Value); ok {
			hint = fmt.Sprintf("; functionConfig keys go under %s", l.prefix)
		}
		l.fail(k.Value, k.Value, allowed, "unknown top-level key %q; valid keys: %s%s",
			k.Value, strings.Join(allowed, ", "), hint)
	}
}

// keys returns the key/value pairs of the data or spec map whose keys are known, in
// order, and reports unknown and repeated keys.
func (l *loader) keys(m *yaml.Node) [][2]*yaml.Node {
	typed := l.prefix == "spec"
	valid := keyNames(typed)
	seen := map[string]bool{}
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		name := k.Value
		if k.Kind != yaml.ScalarNode {
			l.fail(l.prefix, "", valid, "%s has a key that is not a string; valid keys: %s", l.prefix, strings.Join(valid, ", "))
			continue
		}
		if seen[name] {
			l.fail(l.field(name), name, nil, "key %q is given twice", name)
			continue
		}
		seen[name] = true
		doc, known := lookupKey(name)
		if !known || (doc.TypedOnly && !typed) {
			msg := fmt.Sprintf("unknown key %q; valid keys: %s", name, strings.Join(valid, ", "))
			if s := suggest(name, valid); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			if known {
				msg += fmt.Sprintf(" (inline %s, %s and %s need the typed %s %s form)",
					KeyOriginal, KeyUpdated, KeySrc, APIVersion, Kind)
			}
			l.fail(l.field(name), name, valid, "%s", msg)
			continue
		}
		l.present[name] = true
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out
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
			l.cfg.OnConflict = vocab.ConflictPolicy(s)
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
	if contains(valid, s) {
		return true
	}
	msg := fmt.Sprintf("%s %q is invalid; valid values: %s", name, s, strings.Join(valid, ", "))
	if sug := suggest(s, valid); sug != "" {
		msg += fmt.Sprintf("; did you mean %q?", sug)
	}
	l.fail(l.field(name), s, valid, "%s", msg)
	return false
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

// setInline copies the resources of spec.original, spec.updated or spec.src. Problems
// with the list or its items were reported by the schema.
func (l *loader) setInline(name string, list *yaml.Node) {
	if list.Kind != yaml.SequenceNode {
		return
	}
	out := make([]*yaml.RNode, 0, len(list.Content))
	for _, item := range list.Content {
		if item.Kind != yaml.MappingNode {
			return
		}
		out = append(out, yaml.NewRNode(item).Copy())
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

// Role keys of each mode (docs/function.md, "Modes" and "Choosing roles").
var (
	// allPathKeys is in the order of every mode's list below: sources, then dest.
	allPathKeys   = []string{KeyOriginalPath, KeyUpdatedPath, KeySrcPath, KeyDestPath}
	allInlineKeys = []string{KeyOriginal, KeyUpdated, KeySrc}
	modePathKeys  = map[vocab.Mode][]string{
		vocab.ThreeWay: {KeyOriginalPath, KeyUpdatedPath, KeyDestPath},
		vocab.TwoWay:   {KeySrcPath, KeyDestPath},
		vocab.Apply:    {KeyUpdatedPath, KeyDestPath},
	}
	modeInlineKeys = map[vocab.Mode][]string{
		vocab.ThreeWay: {KeyOriginal, KeyUpdated},
		vocab.TwoWay:   {KeySrc},
		vocab.Apply:    {KeyUpdated},
	}
	keyRole = map[string]vocab.Role{
		KeyOriginalPath: vocab.Original, KeyUpdatedPath: vocab.Updated, KeyDestPath: vocab.Dest, KeySrcPath: vocab.Src,
		KeyOriginal: vocab.Original, KeyUpdated: vocab.Updated, KeySrc: vocab.Src,
	}
)

// modesWith names the modes whose key list holds k, e.g. "3way and apply modes".
func modesWith(table map[vocab.Mode][]string, k string) string {
	var modes []string
	for _, m := range validModes {
		if contains(table[vocab.Mode(m)], k) {
			modes = append(modes, m)
		}
	}
	if len(modes) == 1 {
		return modes[0] + " mode"
	}
	return joinAnd(modes, "") + " modes"
}

// joinAnd joins "a", "b", "c" as "a, b and c", each with prefix.
func joinAnd(items []string, prefix string) string {
	p := prefixed(prefix, items)
	if len(p) <= 1 {
		return strings.Join(p, "")
	}
	return strings.Join(p[:len(p)-1], ", ") + " and " + p[len(p)-1]
}

// prefixed returns items with prefix prepended to each.
func prefixed(prefix string, items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = prefix + s
	}
	return out
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

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// deAnchor returns a copy of n with every alias replaced by what it names (and YAML
// merge keys applied), leaving n unchanged. yaml.v3 first decodes the text, which
// refuses alias bombs ("excessive aliasing"), so the expansion is bounded.
func deAnchor(n *yaml.Node) (*yaml.Node, error) {
	text, err := yaml.NewRNode(n).String()
	if err != nil {
		return nil, err
	}
	var probe interface{}
	if err := yaml.Unmarshal([]byte(text), &probe); err != nil {
		return nil, err
	}
	c, err := yaml.Parse(text)
	if err != nil {
		return nil, err
	}
	if err := c.DeAnchor(); err != nil {
		return nil, err
	}
	return rootNode(c), nil
}

// rootNode returns fc's node, looking through a document node; nil for none.
func rootNode(fc *yaml.RNode) *yaml.Node {
	if fc == nil {
		return nil
	}
	n := fc.YNode()
	for n != nil && n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	return n
}

// mapValue returns the value of key in mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// scalarValue returns a scalar node's text, or "" for nil or a non-scalar.
func scalarValue(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// nodeKindName names a node's kind for messages.
func nodeKindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "map"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	case yaml.ScalarNode:
		if n.Tag == yaml.NodeTagNull {
			return "null"
		}
		return "scalar"
	default:
		return "document"
	}
}
