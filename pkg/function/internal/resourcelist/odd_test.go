package resourcelist_test

// oddInputs are hand-made ResourceLists with what a byte-for-byte reader and writer
// can get wrong.
var oddInputs = map[string]string{
	"plain": `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
  data:
    k: v
`,
	"comments": `# head of the list
apiVersion: config.kubernetes.io/v1 # line
kind: ResourceList
items:
- # a comment where the item starts
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a # the name
    # before annotations
    annotations:
      config.kubernetes.io/merge-source: dest
  data:
    # head of k
    k: v # line of k

    # after a blank line
    l: w
    # foot of the map, inside the item
    m: x
- apiVersion: v1
  # comment in the middle
  kind: ConfigMap
  metadata:
    name: b
    annotations:
      config.kubernetes.io/merge-source: original
  data:
    k: v
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: b
    annotations:
      config.kubernetes.io/merge-source: updated
  data:
    k: v2 # upstream's comment
functionConfig:
  # fc comment
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: fc
  data:
    mode: 3way
# foot of the list
`,
	"foot comments on items": `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
  data:
    k: v
    # foot inside
    z: w
  # foot of data
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: b
`,
	"odd scalars": `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: odd
    annotations:
      config.kubernetes.io/merge-source: dest
      a.example.com/empty: ""
      a.example.com/json: '{"a": [1, 2, {"b": null}]}'
  data:
    literal: |
      line one
        indented
      last
    keep: |+
      kept


    strip: >-
      folded text that goes on and on and on and on and on and on and on and on and on and on and on past eighty columns
    indicator: |2
        starts with spaces
    long: "a double quoted string that is long enough to be folded by an emitter with a width limit of eighty columns, really"
    escapes: "tab\there \u00e9 \x01 \\ \""
    single: 'it''s'
    bools: [yes, no, on, off, true, False]
    nums: [0x1F, 0o17, 1e3, .inf, -.Inf, .nan, 012, +1, 1_000]
    nulls: [~, null, Null, ""]
    date: 2001-12-14t21:59:43.10-05:00
    colon: "a: b"
    hash: "a #b"
    dash: "- x"
    star: '*x'
    unicode: "日本語 ✓"
    multiline plain: this is a plain
      scalar on two lines
    emptymap: {}
    emptyseq: []
    flow: {a: 1, b: [x, y], c: {d: e}}
    ? complex key
    : value
    tagged: !!str 123
    binary: !!binary aGVsbG8=
- apiVersion: v1
  kind: List
  metadata:
    name: anchors
  base: &base
    x: 1
    y: [1, 2]
  derived:
    <<: *base
    z: 3
  again: *base
`,
	"wide seqindent": `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: w
      annotations:
        internal.config.kubernetes.io/seqindent: wide
        config.kubernetes.io/merge-source: dest
    spec:
      template:
        spec:
          containers:
            - name: a
              image: a:1
              args:
                - x
                - y
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: w
      annotations:
        internal.config.kubernetes.io/seqindent: compact
        config.kubernetes.io/merge-source: updated
    spec:
      template:
        spec:
          containers:
          - name: a
            image: a:2
          - name: b
            image: b:1
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: w
      annotations:
        config.kubernetes.io/merge-source: original
    spec:
      template:
        spec:
          containers:
          - name: a
            image: a:1
`,
	"kpt annotations and results": `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: Service
  metadata:
    name: s
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'dest/s.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'dest/s.yaml'
      internal.config.kubernetes.io/seqindent: 'compact'
      internal.config.kubernetes.io/id: '1'
      config.k8s.io/id: '1'
  spec:
    ports:
    - port: 80
- apiVersion: v1
  kind: Service
  metadata:
    name: s
    annotations:
      config.kubernetes.io/index: '1'
      config.kubernetes.io/path: 'multi.yaml'
      internal.config.kubernetes.io/index: '1'
      internal.config.kubernetes.io/path: 'multi.yaml'
      internal.config.kubernetes.io/id: '2'
      config.k8s.io/id: '2'
- kind: NoAnnotations
  metadata:
    annotations: {}
- kind: NoMetadata
functionConfig:
  apiVersion: fn.krm-merge.dev/v1alpha1
  kind: ResourceMerge
  metadata:
    name: m
  spec:
    destPath: dest
    originalPath: original
    updatedPath: updated
results:
- message: from an earlier function
  severity: info
`,
	"bad role": `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
    annotations:
      config.kubernetes.io/merge-source: sideways
`,
	"wrong items": `apiVersion: config.kubernetes.io/v1alpha1
kind: ResourceList
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: fc
  data:
    mode: 2way
items:

- kind: A
  metadata:
    name: x
    annotations:
      config.kubernetes.io/merge-source: src
-
  kind: A
  metadata:
    name: x
    annotations:
      config.kubernetes.io/merge-source: dest
- just a string
- [a, list]
- null
`,
	"mismatched kpt annotations": `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- kind: A
  metadata:
    name: a
- kind: B
  metadata:
    name: b
    annotations:
      config.kubernetes.io/path: 'x.yaml'
      internal.config.kubernetes.io/path: 'y.yaml'
- kind: C
  metadata:
    name: c
    annotations:
      config.kubernetes.io/index: '1'
      internal.config.kubernetes.io/index: '2'
`,
	"aliases across items": `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: &m
    name: a
    annotations:
      config.kubernetes.io/merge-source: dest
  data: &d
    k: v
- apiVersion: v1
  kind: ConfigMap
  metadata: *m
  data: *d
- &whole
  apiVersion: v1
  kind: Secret
  metadata:
    name: s
- *whole
`,
}
