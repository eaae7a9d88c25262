package function_test

import (
	"strings"
	"testing"
)

// secretInput is a 3-way ResourceList in which a Secret's data.password and
// stringData.token changed on both sides, with the functionConfig's data lines fc.
func secretInput(fc string) string {
	secret := func(role, pw, token string) string {
		return "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: db\n    annotations: {config.kubernetes.io/merge-source: " + role + "}\n" +
			"  data: {password: " + pw + "}\n  stringData: {token: " + token + "}\n"
	}
	return rlHead + "items:\n" + secret("original", "T1JJR0lOQUw=", "orig-token") + secret("updated", "VVBEQVRFRA==", "upd-token") +
		secret("dest", "TE9DQUxQQVNT", "local-token") +
		"functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fc}\n  data: {" + fc + "}\n"
}

// A Secret's data and stringData values reached conflict results (message,
// currentValue, proposedValue) and plan lines, and so CI logs. They are redacted, with
// their length and the start of their hash so that a person can tell the sides differ;
// showSecretValues: true shows them.
func TestSecretValuesAreRedacted(t *testing.T) {
	raw := []string{"T1JJR0lOQUw=", "VVBEQVRFRA==", "TE9DQUxQQVNT", "orig-token", "upd-token", "local-token"}
	for _, fc := range []string{"", "plan: 'true'"} {
		rl, err := runStdin(t, secretInput(fc))
		if err != nil {
			t.Fatalf("%s: %v", fc, err)
		}
		res := resultsOf(rl)
		for _, v := range raw {
			if strings.Contains(res, v) {
				t.Errorf("%s: results print the Secret value %s:\n%s", fc, v, res)
			}
		}
		// "TE9DQUxQQVNT" is 12 bytes; sha256 of it starts 5d3d1f0e
		if !strings.Contains(res, "<redacted: 12 bytes, sha256:") || !strings.Contains(res, "data.password") {
			t.Errorf("%s: no redacted value for data.password:\n%s", fc, res)
		}
		// the output items keep the values
		if fc == "" && !strings.Contains(rl.MustString(), "password: VVBEQVRFRA==") {
			t.Errorf("the merged Secret lost its value:\n%s", rl.MustString())
		}
	}
	rl, err := runStdin(t, secretInput("showSecretValues: 'true'"))
	if err != nil {
		t.Fatal(err)
	}
	if res := resultsOf(rl); !strings.Contains(res, "TE9DQUxQQVNT") || strings.Contains(res, "redacted") {
		t.Errorf("showSecretValues: the values are not shown:\n%s", res)
	}
}
