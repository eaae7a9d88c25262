package pkgupdate

// The releases and the local copy of the onConflict mark tests: one conflict of each
// kind the markers hold.

var markV1 = release{tag: "v1", files: map[string]string{
	"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\ninfo:\n  description: the app\n",
	"deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: app
        image: app:1
        args: [--a, --b, --c, --d, --e]
`,
	"config.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  script: |\n    one\n    two\n    three\n    four\n    five\n  plain: x\n",
	"old.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: legacy\ndata:\n  a: b\n",
	"README.md":     "# App\n\nInstall it.\n\n## Usage\n\nRun it.\n\n## License\n\nApache-2.0\n",
	"docs/guide.md": "# Guide\n",
	"hack/run.sh*":  "#!/bin/sh\necho v1\n",
	"two.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\ndata:\n  a: b\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: second\ndata:\n  a: b\n",
}}

var markV2 = release{tag: "v2", files: map[string]string{
	"deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: app
        image: app:2
        args: [--a, --B, --c, --d, --e, --f]
`,
	"config.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  script: |\n    one\n    TWO\n    three\n    four\n    five\n    six\n  plain: y\n",
	"old.yaml":      "",
	"README.md":     "# App\n\nInstall it with kpt.\n\n## Usage\n\nRun it.\n\n## License\n\nApache-2.0\n",
	"docs/guide.md": "",
	"extra/new.md":  "# New in v2\n",
	"hack/run.sh*":  "#!/bin/sh\necho v2\n",
	"two.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\ndata:\n  a: b\n",
}}

// The local copies of the mark releases' files, with kpt's bookkeeping, each changed
// as the arguments say.
func deployLocal(replicas, image, args string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata: # kpt-merge: /web
  name: web
  annotations:
    internal.kpt.dev/upstream-identifier: 'apps|Deployment|default|web'
spec:
  replicas: ` + replicas + `
  template:
    spec:
      containers:
      - name: app
        image: ` + image + `
        args: ` + args + `
`
}

func configLocal(script string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /settings\n  name: settings\n  annotations:\n" +
		"    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|settings'\ndata:\n  script: |\n" + script + "  plain: x\n"
}

func legacyLocal(a string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /legacy\n  name: legacy\n  annotations:\n" +
		"    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|legacy'\ndata:\n  a: " + a + "\n"
}

// twoLocal is two.yaml with its second ConfigMap's data.a changed.
func twoLocal(a string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /first\n  name: first\n  annotations:\n" +
		"    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|first'\ndata:\n  a: b\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /second\n  name: second\n  annotations:\n" +
		"    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|second'\ndata:\n  a: " + a + "\n"
}

func readmeLocal(install string) string {
	return "# App\n\n" + install + "\n\n## Usage\n\nRun it.\n\n## License\n\nApache-2.0\n"
}

const v1Args = "[--a, --b, --c, --d, --e]"

// markLocal changes, on the local copy, what v2 changes, differently: one conflict of
// each kind.
var markLocal = map[string]string{
	"deploy.yaml": deployLocal("3 # one per zone", "mirror.example.com/app:1.1", "[--a, --L, --c, --d, --e]"),
	"config.yaml": configLocal("    zero\n    one\n    deux\n    three\n    four\n    five\n"),
	"old.yaml":    legacyLocal("ours"),
	"README.md":   readmeLocal("Install it with care."),
}
