package apply

import (
	"reflect"
	"testing"
)

// The plan lists changes, additions, deletions and reorders with live and proposed values.
func TestPlan(t *testing.T) {
	live := `apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"v1","kind":"Service","metadata":{"annotations":{},"name":"web"},"spec":{"ports":[{"name":"http","port":80},{"name":"https","port":443}],"selector":{"app":"web","old":"x"}}}'
spec:
  clusterIP: 10.0.0.1
  ports:
  - {name: http, port: 80, protocol: TCP}
  - {name: https, port: 443, protocol: TCP}
  selector: {app: web, old: x}
`
	config := `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - {name: https, port: 443}
  - {name: http, port: 80, targetPort: 8080}
  - {name: metrics, port: 9090}
  selector: {app: web2}
`
	res := mustApply(t, live, config)
	want := []string{
		"add spec.ports[port=80].targetPort",
		"add spec.ports[port=9090]",
		"reorder spec.ports",
		"change spec.selector.app",
		"delete spec.selector.old",
	}
	if got := planLines(res.Plan); !reflect.DeepEqual(got, want) {
		t.Errorf("plan\n got %v\nwant %v", got, want)
	}
	for _, c := range res.Plan {
		if c.Path.String() == "spec.selector.app" && (c.Current != "web" || c.Proposed != "web2") {
			t.Errorf("values %v -> %v", c.Current, c.Proposed)
		}
	}
	out := jsonOf(t, res.Object)
	mustGet(t, out, "spec", "clusterIP")
	if got := names(t, out, "spec", "ports"); !reflect.DeepEqual(got, []string{"https", "http", "metrics"}) {
		t.Errorf("ports order %v", got)
	}
}
