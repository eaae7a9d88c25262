package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// Every MergeSettings field is the functionConfig key of its name (lower-case first
// letter), and its default is the one the keys' table gives, so that a merge setting is
// added in one struct and one table.
func TestMergeSettingsAreKeys(t *testing.T) {
	d := reflect.ValueOf(DefaultMergeSettings())
	typ := d.Type()
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name := string(unicode.ToLower(rune(f.Name[0]))) + f.Name[1:]
		k, ok := lookupKey(name)
		if !ok || k.TypedOnly {
			t.Errorf("MergeSettings.%s: no functionConfig key %q", f.Name, name)
			continue
		}
		var got string
		switch v := d.Field(i); v.Kind() {
		case reflect.Bool:
			got = "false"
			if v.Bool() {
				got = "true"
			}
		case reflect.String:
			got = v.String()
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.String {
				got = strings.Join(v.Interface().([]string), ",")
			} else if !v.IsNil() {
				got = "set"
			}
		}
		if got != k.Default {
			t.Errorf("DefaultMergeSettings().%s is %q; the keys' table's default is %q", f.Name, got, k.Default)
		}
	}
	if c := Defaults(); !reflect.DeepEqual(c.MergeSettings, DefaultMergeSettings()) {
		t.Errorf("Defaults().MergeSettings = %+v, want DefaultMergeSettings()", c.MergeSettings)
	}
}

// PkgUpdateDefaults differs from DefaultMergeSettings in onConflict alone.
func TestPkgUpdateDefaults(t *testing.T) {
	p, d := PkgUpdateDefaults(), DefaultMergeSettings()
	if p.OnConflict != MarkConflicts || d.OnConflict != UpdatedWins {
		t.Errorf("onConflict: pkg update %q, function %q", p.OnConflict, d.OnConflict)
	}
	p.OnConflict = d.OnConflict
	if !reflect.DeepEqual(p, d) {
		t.Errorf("PkgUpdateDefaults() = %+v, differs from %+v beyond onConflict", p, d)
	}
}

// MergeSettings.Config is Defaults with the settings; Validate is Config.Validate's.
func TestMergeSettingsConfigAndValidate(t *testing.T) {
	m := DefaultMergeSettings()
	m.OnConflict, m.Schema, m.MergeOnPath = DestWins, SchemaNone, true
	c := m.Config()
	want := Defaults()
	want.MergeSettings = m
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Config() = %+v, want %+v", c, want)
	}
	if err := m.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if err := PkgUpdateDefaults().Validate(); err != nil {
		t.Errorf("PkgUpdateDefaults().Validate: %v", err)
	}
	bad := MergeSettings{OnConflict: "ours", Schema: SchemaKubernetes}
	err := bad.Validate()
	var es Errors
	if !errors.As(err, &es) || len(es) != 3 || es[0].Field != KeyOnConflict || es[1].Field != KeyRoleAnnotation ||
		es[2].Field != KeyAssociativeKeys {
		t.Fatalf("Validate of %+v: %v", bad, err)
	}
	c = bad.Config()
	if err2 := c.Validate(); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("Config().Validate() = %v, want %v", err2, err)
	}
}

// Every boolean key of the table is read in both forms: given the opposite of its
// default, Load's Config differs from Defaults.
func TestEveryBooleanKeyIsRead(t *testing.T) {
	for _, k := range Keys() {
		if k.Type != "boolean" {
			continue
		}
		v := "true"
		if k.Default == "true" {
			v = "false"
		}
		for _, text := range []string{cm(k.Name, v), typed(k.Name + ": " + v)} {
			c := mustLoad(t, text)
			if reflect.DeepEqual(c, Defaults()) {
				t.Errorf("%s: %s read as the default", text, k.Name)
			}
		}
	}
}
