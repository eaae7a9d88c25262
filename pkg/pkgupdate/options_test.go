package pkgupdate

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// The merges' config is the merge settings as they are, 3-way, no role keys (the
// trees give the roles); nil is the function's defaults.
func TestFunctionConfig(t *testing.T) {
	m := config.PkgUpdateDefaults()
	m.Schema, m.AssociativeKeys, m.ShowSecretValues = config.SchemaNone, []string{"id"}, true
	c := functionConfig(&m)
	if !reflect.DeepEqual(c.MergeSettings, m) || c.Mode != vocab.ThreeWay || c.ByPath() || c.Inline() {
		t.Errorf("functionConfig(%+v) = %+v", m, c)
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
	if d := functionConfig(nil); !reflect.DeepEqual(d.MergeSettings, config.DefaultMergeSettings()) {
		t.Errorf("functionConfig(nil) = %+v", d)
	}
}

// Update refuses invalid merge settings with config's errors, before it needs git.
func TestUpdateRefusesInvalidMergeSettings(t *testing.T) {
	_, err := Update(context.Background(), Options{Dir: t.TempDir(), Version: "v2", Merge: &config.MergeSettings{OnConflict: "ours"}})
	var es config.Errors
	if !errors.As(err, &es) || !strings.HasPrefix(err.Error(), "Options.Merge: functionConfig: ") || es[0].Field != config.KeyOnConflict {
		t.Errorf("Update with onConflict ours: %v", err)
	}
}
