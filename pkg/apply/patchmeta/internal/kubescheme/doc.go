// Package kubescheme builds kubectl's scheme as far as apply uses it: every group and
// version of k8s.io/api that client-go's kubernetes/scheme registers (kubectl's own
// k8s.io/kubectl/pkg/scheme installs that scheme), built without client-go.
//
// Only the patch-metadata generator (../../gen) and the parity tests import it; the
// krm-merge binary never links k8s.io/api (about 14 MB of generated code).
package kubescheme
