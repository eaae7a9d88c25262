package merge_test

// The differential tests' generator (differential_test.go): nodes built from Go values,
// and realistic resources (Deployments, StatefulSets, Services, ConfigMaps, a custom
// kind) from a seeded random source.

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func nScalar(v any) *yaml.Node {
	switch x := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagNull, Value: "null"}
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: x}
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: strconv.Itoa(x)}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagBool, Value: strconv.FormatBool(x)}
	case *yaml.Node:
		return x
	}
	panic(fmt.Sprintf("nScalar: %T", v))
}

// nMap builds a mapping from alternating names and values; a nil *yaml.Node value
// (not an untyped nil, which is a null) leaves the field out.
func nMap(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
	for i := 0; i+1 < len(kv); i += 2 {
		if n, ok := kv[i+1].(*yaml.Node); ok && n == nil {
			continue
		}
		m.Content = append(m.Content, nScalar(kv[i].(string)), nScalar(kv[i+1]))
	}
	return m
}

func nSeq(items ...any) *yaml.Node {
	s := &yaml.Node{Kind: yaml.SequenceNode, Tag: yaml.NodeTagSeq}
	for _, it := range items {
		s.Content = append(s.Content, nScalar(it))
	}
	return s
}

type gen struct {
	r   *rand.Rand
	seq int // makes new names unique within a case
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) intn(n int) int { return g.r.IntN(n) }

func (g *gen) pick(s ...string) string {
	return s[g.r.IntN(len(s))]
}

func (g *gen) fresh(prefix string) string {
	g.seq++
	return fmt.Sprintf("%s-%d", prefix, g.seq)
}

// maybe returns n with probability p, else an absent (*yaml.Node)(nil).
func (g *gen) maybe(p float64, n func() *yaml.Node) *yaml.Node {
	if g.chance(p) {
		return n()
	}
	return nil
}

func (g *gen) some(min, max int, f func(i int) *yaml.Node) *yaml.Node {
	s := nSeq()
	n := min + g.intn(max-min+1)
	for i := 0; i < n; i++ {
		s.Content = append(s.Content, f(i))
	}
	return s
}

var containerNames = []string{"app", "sidecar", "proxy", "metrics", "cache", "worker", "logger", "agent"}

func (g *gen) container(i int) *yaml.Node {
	name := containerNames[i%len(containerNames)]
	return nMap(
		"name", name,
		"image", fmt.Sprintf("registry.example.com/%s:1.%d.%d", name, g.intn(30), g.intn(10)),
		"args", g.maybe(0.4, func() *yaml.Node {
			return g.some(1, 3, func(j int) *yaml.Node {
				return nScalar(g.pick("--verbose", "--port=8080", "--config=/etc/app", "-v=2", "serve"))
			})
		}),
		"command", g.maybe(0.2, func() *yaml.Node { return nSeq("/bin/"+name, "run") }),
		"ports", g.maybe(0.6, func() *yaml.Node {
			return g.some(1, 3, func(j int) *yaml.Node {
				return nMap("containerPort", 8080+j*10+g.intn(3), "name", fmt.Sprintf("p%d", j),
					"protocol", g.maybe(0.5, func() *yaml.Node { return nScalar(g.pick("TCP", "UDP")) }))
			})
		}),
		"env", g.maybe(0.6, func() *yaml.Node {
			return g.some(1, 4, func(j int) *yaml.Node {
				return nMap("name", []string{"LOG_LEVEL", "PORT", "MODE", "REGION", "DEBUG"}[j], "value", g.pick("info", "debug", "8080", "eu-west-1", "true"))
			})
		}),
		"volumeMounts", g.maybe(0.4, func() *yaml.Node {
			return g.some(1, 3, func(j int) *yaml.Node {
				return nMap("name", fmt.Sprintf("vol%d", j), "mountPath", fmt.Sprintf("/data/%d", j),
					"readOnly", g.maybe(0.3, func() *yaml.Node { return nScalar(true) }))
			})
		}),
		"resources", g.maybe(0.6, func() *yaml.Node {
			return nMap("limits", nMap("cpu", g.pick("500m", "1", "2"), "memory", g.pick("128Mi", "256Mi", "1Gi")),
				"requests", g.maybe(0.7, func() *yaml.Node { return nMap("cpu", g.pick("100m", "250m"), "memory", g.pick("64Mi", "128Mi")) }))
		}),
		"imagePullPolicy", g.maybe(0.3, func() *yaml.Node { return nScalar(g.pick("Always", "IfNotPresent")) }),
	)
}

func (g *gen) podTemplate(app string) *yaml.Node {
	return nMap(
		"metadata", nMap(
			"creationTimestamp", g.maybe(0.3, func() *yaml.Node { return nScalar(nil) }),
			"labels", nMap("app", app),
			"annotations", g.maybe(0.3, func() *yaml.Node { return nMap("prometheus.io/scrape", "true") }),
		),
		"spec", nMap(
			"serviceAccountName", g.maybe(0.4, func() *yaml.Node { return nScalar(app) }),
			"initContainers", g.maybe(0.2, func() *yaml.Node {
				return nSeq(nMap("name", "init", "image", "busybox:1.36", "command", nSeq("sh", "-c", "true")))
			}),
			"containers", g.some(1, 3, g.container),
			"volumes", g.maybe(0.4, func() *yaml.Node {
				return g.some(1, 3, func(j int) *yaml.Node {
					return nMap("name", fmt.Sprintf("vol%d", j), "configMap", nMap("name", fmt.Sprintf("%s-cm%d", app, j)))
				})
			}),
			"nodeSelector", g.maybe(0.3, func() *yaml.Node { return nMap("kubernetes.io/os", "linux") }),
			"tolerations", g.maybe(0.2, func() *yaml.Node {
				return nSeq(nMap("key", "dedicated", "operator", "Equal", "value", app, "effect", "NoSchedule"))
			}),
			"topologySpreadConstraints", g.maybe(0.15, func() *yaml.Node {
				return nSeq(nMap("maxSkew", 1, "topologyKey", "topology.kubernetes.io/zone", "whenUnsatisfiable", "DoNotSchedule",
					"labelSelector", nMap("matchLabels", nMap("app", app))))
			}),
		),
	)
}

func (g *gen) metadata(name string, custom bool) *yaml.Node {
	return nMap(
		"name", name,
		"namespace", g.maybe(0.5, func() *yaml.Node { return nScalar(g.pick("default", "prod", "kube-system")) }),
		"labels", g.maybe(0.7, func() *yaml.Node {
			return nMap("app", name, "tier", g.maybe(0.5, func() *yaml.Node { return nScalar(g.pick("web", "backend")) }))
		}),
		"annotations", g.maybe(0.4, func() *yaml.Node { return nMap("owner", g.pick("team-a", "team-b")) }),
		"finalizers", g.maybe(map[bool]float64{true: 0.5, false: 0.1}[custom], func() *yaml.Node {
			return g.some(1, 3, func(j int) *yaml.Node {
				return nScalar([]string{"example.com/protect", "kubernetes.io/pvc-protection", "foregroundDeletion"}[j])
			})
		}),
		"ownerReferences", g.maybe(map[bool]float64{true: 0.4, false: 0.1}[custom], func() *yaml.Node {
			return g.some(1, 2, func(j int) *yaml.Node {
				// the same name twice, different uids: kyaml keys by name, we by uid
				return nMap("apiVersion", "example.com/v1", "kind", "Owner", "name", g.pick("parent", "parent", "other"),
					"uid", fmt.Sprintf("uid-%d-%d", j, g.intn(1000)), "controller", g.maybe(0.5, func() *yaml.Node { return nScalar(j == 0) }))
			})
		}),
	)
}

func (g *gen) resource() *yaml.Node {
	name := g.pick("web", "api", "db", "cache", "queue")
	switch k := g.intn(10); {
	case k < 3:
		return nMap("apiVersion", "apps/v1", "kind", "Deployment", "metadata", g.metadata(name, false),
			"spec", nMap(
				"replicas", g.maybe(0.8, func() *yaml.Node { return nScalar(1 + g.intn(5)) }),
				"selector", nMap("matchLabels", nMap("app", name)),
				"strategy", g.maybe(0.4, func() *yaml.Node {
					return nMap("type", "RollingUpdate", "rollingUpdate", nMap("maxSurge", g.pick("25%", "1"), "maxUnavailable", 0))
				}),
				"template", g.podTemplate(name)))
	case k < 4:
		return nMap("apiVersion", "apps/v1", "kind", "StatefulSet", "metadata", g.metadata(name, false),
			"spec", nMap(
				"serviceName", name,
				"replicas", nScalar(1+g.intn(3)),
				"selector", nMap("matchLabels", nMap("app", name)),
				"template", g.podTemplate(name),
				"volumeClaimTemplates", g.maybe(0.6, func() *yaml.Node {
					return nSeq(nMap("metadata", nMap("name", "data"), "spec", nMap("accessModes", nSeq("ReadWriteOnce"),
						"resources", nMap("requests", nMap("storage", g.pick("1Gi", "10Gi"))))))
				})))
	case k < 5:
		return nMap("apiVersion", "v1", "kind", "Service", "metadata", g.metadata(name, false),
			"spec", nMap(
				"type", g.maybe(0.5, func() *yaml.Node { return nScalar(g.pick("ClusterIP", "NodePort")) }),
				"selector", nMap("app", name),
				"ports", g.some(1, 3, func(j int) *yaml.Node {
					return nMap("name", fmt.Sprintf("port%d", j), "port", 80+j, "targetPort", 8080+j,
						"protocol", g.maybe(0.6, func() *yaml.Node { return nScalar(g.pick("TCP", "TCP", "UDP")) }))
				})))
	case k < 6:
		data := func() *yaml.Node {
			return nMap("config.yaml", "key: value\n", "LOG_LEVEL", g.pick("info", "debug"), "feature.enabled", g.pick("true", "false"))
		}
		var d any = data()
		if g.chance(0.4) {
			d = nil // ingress-nginx ships `data: null`
		}
		return nMap("apiVersion", "v1", "kind", "ConfigMap", "metadata", g.metadata(name, false), "data", d)
	default:
		return g.widget(name)
	}
}

// widget is a custom resource: no schema, so lists are keyed by the associative keys.
func (g *gen) widget(name string) *yaml.Node {
	return nMap("apiVersion", "example.com/v1", "kind", "Widget", "metadata", g.metadata(name, true),
		"spec", nMap(
			"size", nScalar(g.intn(10)),
			"mode", g.maybe(0.5, func() *yaml.Node { return nScalar(g.pick("fast", "safe")) }),
			"items", g.some(1, 4, func(j int) *yaml.Node { // keyed by name
				return nMap("name", fmt.Sprintf("item%d", j), "value", g.pick("a", "b", "c"),
					"tags", g.maybe(0.3, func() *yaml.Node { return nSeq("x", g.pick("y", "z")) }),
					"limits", g.maybe(0.3, func() *yaml.Node { return nMap("max", g.intn(100)) }))
			}),
			"mounts", g.maybe(0.5, func() *yaml.Node { // keyed by mountPath
				return g.some(1, 3, func(j int) *yaml.Node {
					return nMap("mountPath", fmt.Sprintf("/mnt/%d", j), "readOnly", g.chance(0.5))
				})
			}),
			"hosts", g.maybe(0.4, func() *yaml.Node { // keyed by ip
				return g.some(1, 3, func(j int) *yaml.Node {
					return nMap("ip", fmt.Sprintf("10.0.0.%d", j+1), "hostnames", nSeq(fmt.Sprintf("h%d.local", j)))
				})
			}),
			"columns", g.maybe(0.5, func() *yaml.Node { // additionalPrinterColumns: type repeats, name unique
				return g.some(2, 4, func(j int) *yaml.Node {
					return nMap("name", []string{"Ready", "Age", "Status", "Phase"}[j], "type", g.pick("string", "string", "date"),
						"jsonPath", fmt.Sprintf(".status.c%d", j))
				})
			}),
			"spread", g.maybe(0.3, func() *yaml.Node { // keyed by topologyKey
				return nSeq(nMap("topologyKey", "zone", "maxSkew", 1+g.intn(2)))
			}),
			"steps", g.maybe(0.5, func() *yaml.Node { // no key: atomic
				return g.some(1, 3, func(j int) *yaml.Node { return nMap("run", g.pick("build", "test", "deploy"), "retries", g.intn(3)) })
			}),
			"tags", g.maybe(0.4, func() *yaml.Node { return nSeq("alpha", g.pick("beta", "gamma")) }),
			"config", g.maybe(0.6, func() *yaml.Node {
				return nMap("logging", nMap("level", g.pick("info", "warn"), "format", "json"),
					"timeouts", g.maybe(0.5, func() *yaml.Node { return nMap("read", 30, "write", 30) }))
			}),
		))
}
