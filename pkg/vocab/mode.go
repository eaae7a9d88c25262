package vocab

import "strings"

// Mode names the kind of merge a run performs (docs/function.md, "Modes"); its value is
// the functionConfig's mode and starts the run's summary ("3way merge: ...").
type Mode string

const (
	// ThreeWay merges the change from original to updated onto dest (kyaml merge3).
	ThreeWay Mode = "3way"
	// TwoWay merges src into dest (kyaml merge2).
	TwoWay Mode = "2way"
	// Apply merges the local config onto a live object as kubectl client-side apply
	// does (roles Config and Live).
	Apply Mode = "apply"
)

// Roles returns the mode's roles in the order messages list them: 3way original,
// updated, dest; 2way src, dest; apply updated (Config), dest (Live). nil for a value
// that is no mode.
func (m Mode) Roles() []Role {
	switch m {
	case ThreeWay:
		return []Role{Original, Updated, Dest}
	case TwoWay:
		return []Role{Src, Dest}
	case Apply:
		return []Role{Config, Live}
	}
	return nil
}

// Has reports whether r is one of the mode's roles (Roles).
func (m Mode) Has(r Role) bool {
	for _, x := range m.Roles() {
		if x == r {
			return true
		}
	}
	return false
}

// ParseRole returns the role a role annotation value names in mode m: one of m's
// Roles, or in apply mode also apply's own names "config" (Config: the role updated)
// and "live" (Live: the role dest). ok is false for a value that is no role of m
// (docs/function.md, "Choosing roles").
func (m Mode) ParseRole(value string) (r Role, ok bool) {
	if m == Apply {
		switch value {
		case ConfigName:
			return Config, true
		case LiveName:
			return Live, true
		}
	}
	r = Role(value)
	return r, m.Has(r)
}

// RoleNames lists the role annotation values of mode m in the order messages list
// them, each role's other name in parentheses: "original, updated, dest"; in apply
// mode "updated (or config), dest (or live)". Empty for a value that is no mode.
func (m Mode) RoleNames() string {
	roles := m.Roles()
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = string(r)
		if m == Apply {
			switch r {
			case Config:
				names[i] += " (or " + ConfigName + ")"
			case Live:
				names[i] += " (or " + LiveName + ")"
			}
		}
	}
	return strings.Join(names, ", ")
}

// Role is an item's part in a merge (docs/function.md, "Choosing roles"); its value is
// what the role annotation says and what the role's path key is named after
// (originalPath, updatedPath, destPath, srcPath).
type Role string

const (
	// None marks an item that passes through unchanged.
	None Role = ""
	// Original is the old upstream (3-way).
	Original Role = "original"
	// Updated is the new upstream (3-way).
	Updated Role = "updated"
	// Dest is the local copy the change is applied to (3-way, 2-way).
	Dest Role = "dest"
	// Src is what is merged into dest (2-way).
	Src Role = "src"
)

// Apply mode's roles are 3-way's updated and dest under their apply names: an item of
// the local config carries the role annotation value "config" or "updated" (or lies
// under updatedPath), a live object "live" or "dest" (destPath); ParseRole reads both
// names, and messages name the roles updated and dest in every mode.
const (
	// ConfigName and LiveName are apply mode's own role annotation values for Config
	// and Live.
	ConfigName = "config"
	LiveName   = "live"

	// Config is the local configuration kubectl apply would send: the role Updated.
	Config = Updated
	// Live is the object as the cluster holds it: the role Dest.
	Live = Dest
)
