package apply

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1alpha1 "k8s.io/api/admissionregistration/v1alpha1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	internalv1alpha1 "k8s.io/api/apiserverinternal/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	appsv1beta1 "k8s.io/api/apps/v1beta1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	authenticationv1 "k8s.io/api/authentication/v1"
	authenticationv1alpha1 "k8s.io/api/authentication/v1alpha1"
	authenticationv1beta1 "k8s.io/api/authentication/v1beta1"
	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1alpha1 "k8s.io/api/certificates/v1alpha1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	coordinationv1 "k8s.io/api/coordination/v1"
	coordinationv1alpha2 "k8s.io/api/coordination/v1alpha2"
	coordinationv1beta1 "k8s.io/api/coordination/v1beta1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	discoveryv1beta1 "k8s.io/api/discovery/v1beta1"
	eventsv1 "k8s.io/api/events/v1"
	eventsv1beta1 "k8s.io/api/events/v1beta1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	flowcontrolv1beta1 "k8s.io/api/flowcontrol/v1beta1"
	flowcontrolv1beta2 "k8s.io/api/flowcontrol/v1beta2"
	flowcontrolv1beta3 "k8s.io/api/flowcontrol/v1beta3"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	networkingv1 "k8s.io/api/networking/v1"
	networkingv1beta1 "k8s.io/api/networking/v1beta1"
	nodev1 "k8s.io/api/node/v1"
	nodev1alpha1 "k8s.io/api/node/v1alpha1"
	nodev1beta1 "k8s.io/api/node/v1beta1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1alpha1 "k8s.io/api/rbac/v1alpha1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	storagev1alpha1 "k8s.io/api/storage/v1alpha1"
	storagev1beta1 "k8s.io/api/storage/v1beta1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	storagemigrationv1beta1 "k8s.io/api/storagemigration/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// Strategy is the patch kind kubectl client-side apply uses for an object.
type Strategy string

const (
	// StrategicMerge is a strategic merge patch with patch strategies and merge keys
	// read from the Go type's struct tags (strategicpatch.NewPatchMetaFromStruct), used
	// for every kind kubectl's scheme knows (k8s.io/api).
	StrategicMerge Strategy = "strategic merge patch"
	// JSONMerge is an RFC 7386 JSON merge patch (lists are replaced whole), which kubectl
	// falls back to for kinds its scheme does not know: custom resources, and also
	// CustomResourceDefinition and APIService, whose types are not in k8s.io/api.
	JSONMerge Strategy = "JSON merge patch"
)

// Schema is how kubectl patches one kind.
type Schema struct {
	// GVK is the group, version and kind the schema was looked up for.
	GVK schema.GroupVersionKind
	// Strategy is StrategicMerge for kinds of the built-in scheme, else JSONMerge.
	Strategy Strategy
	// Meta gives per-field patch strategies and merge keys (StrategicMerge only; nil
	// for JSONMerge).
	Meta strategicpatch.LookupPatchMeta
}

// builtin is kubectl's scheme as far as apply uses it: every group and version of
// k8s.io/api that client-go's kubernetes/scheme registers (kubectl's own
// k8s.io/kubectl/pkg/scheme installs that scheme). Built without client-go.
var builtin = newScheme()

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	builder := runtime.SchemeBuilder{
		admissionregistrationv1.AddToScheme, admissionregistrationv1alpha1.AddToScheme, admissionregistrationv1beta1.AddToScheme,
		internalv1alpha1.AddToScheme,
		appsv1.AddToScheme, appsv1beta1.AddToScheme, appsv1beta2.AddToScheme,
		authenticationv1.AddToScheme, authenticationv1alpha1.AddToScheme, authenticationv1beta1.AddToScheme,
		authorizationv1.AddToScheme, authorizationv1beta1.AddToScheme,
		autoscalingv1.AddToScheme, autoscalingv2.AddToScheme,
		batchv1.AddToScheme, batchv1beta1.AddToScheme,
		certificatesv1.AddToScheme, certificatesv1alpha1.AddToScheme, certificatesv1beta1.AddToScheme,
		coordinationv1.AddToScheme, coordinationv1alpha2.AddToScheme, coordinationv1beta1.AddToScheme,
		corev1.AddToScheme,
		discoveryv1.AddToScheme, discoveryv1beta1.AddToScheme,
		eventsv1.AddToScheme, eventsv1beta1.AddToScheme,
		extensionsv1beta1.AddToScheme,
		flowcontrolv1.AddToScheme, flowcontrolv1beta1.AddToScheme, flowcontrolv1beta2.AddToScheme, flowcontrolv1beta3.AddToScheme,
		lifecyclev1alpha1.AddToScheme,
		networkingv1.AddToScheme, networkingv1beta1.AddToScheme,
		nodev1.AddToScheme, nodev1alpha1.AddToScheme, nodev1beta1.AddToScheme,
		policyv1.AddToScheme, policyv1beta1.AddToScheme,
		rbacv1.AddToScheme, rbacv1alpha1.AddToScheme, rbacv1beta1.AddToScheme,
		resourcev1.AddToScheme, resourcev1alpha3.AddToScheme, resourcev1beta1.AddToScheme, resourcev1beta2.AddToScheme,
		schedulingv1.AddToScheme, schedulingv1alpha3.AddToScheme, schedulingv1beta1.AddToScheme,
		storagev1.AddToScheme, storagev1alpha1.AddToScheme, storagev1beta1.AddToScheme,
		storagemigrationv1.AddToScheme, storagemigrationv1beta1.AddToScheme,
	}
	if err := builder.AddToScheme(s); err != nil {
		panic(fmt.Sprintf("apply: building the Kubernetes scheme: %v", err))
	}
	return s
}

// SchemaFor returns how kubectl client-side apply patches objects of apiVersion and
// kind (the local config's): a strategic merge patch with the patch metadata of the
// k8s.io/api type when kubectl's scheme has the kind, else a JSON merge patch
// (kubectl's patcher falls back to it when scheme.Scheme.New reports the kind not
// registered). Errors: an apiVersion that does not parse (e.g. "a/b/c").
func SchemaFor(apiVersion, kind string) (*Schema, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("apiVersion %q: %v", apiVersion, err)
	}
	gvk := gv.WithKind(kind)
	obj, err := builtin.New(gvk)
	switch {
	case runtime.IsNotRegisteredError(err):
		return &Schema{GVK: gvk, Strategy: JSONMerge}, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %v", gvk, err)
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(obj)
	if err != nil {
		return nil, fmt.Errorf("%s: reading patch metadata: %v", gvk, err)
	}
	return &Schema{GVK: gvk, Strategy: StrategicMerge, Meta: meta}, nil
}

// listMeta describes one list field for pairing its elements: the element schema, the
// merge key ("" when none) and whether it is a set of primitives (patch strategy merge
// without a key, e.g. metadata.finalizers).
type listMeta struct {
	elem     strategicpatch.LookupPatchMeta
	mergeKey string
	set      bool
}

// sliceMeta looks up the list field key of a struct schema; the zero listMeta when the
// schema is nil or does not know the field.
func sliceMeta(m strategicpatch.LookupPatchMeta, key string) listMeta {
	if m == nil {
		return listMeta{}
	}
	elem, pm, err := m.LookupPatchMetadataForSlice(key)
	if err != nil {
		return listMeta{}
	}
	lm := listMeta{elem: elem, mergeKey: pm.GetPatchMergeKey()}
	for _, s := range pm.GetPatchStrategies() {
		if s == "merge" && lm.mergeKey == "" {
			lm.set = true
		}
	}
	if lm.mergeKey != "" {
		// a keyed list only merges when its strategy says merge
		merge := false
		for _, s := range pm.GetPatchStrategies() {
			merge = merge || s == "merge"
		}
		if !merge {
			lm.mergeKey = ""
		}
	}
	return lm
}

// structMeta looks up the map or struct field key of a struct schema; nil when unknown.
func structMeta(m strategicpatch.LookupPatchMeta, key string) strategicpatch.LookupPatchMeta {
	if m == nil {
		return nil
	}
	sub, _, err := m.LookupPatchMetadataForStruct(key)
	if err != nil {
		return nil
	}
	return sub
}

// heuristicKeys are tried, in order, to pair the elements of a list the schema does not
// key (custom resources, atomic lists) in the projection and the plan: a key is used
// when every element of both lists is a map carrying it with unique values. Pairing
// there is cosmetic (comments, readable paths); the values always come from the patch.
var heuristicKeys = []string{"name", "mountPath", "devicePath", "ip", "type", "topologyKey", "containerPort", "uid", "key", "id"}
