package main

import (
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The cluster's compose file (deploy/cluster/compose.yaml) is checked
// where docker is not at hand: it parses, it has PostgreSQL, NATS with
// JetStream and three nodes, each node's environment names only flags the
// server has (and the README documents), and each gives what a node of a
// cluster needs: the shared store, NATS, a name of its own, the address it
// advertises and the same host key file as the others.
func TestClusterComposeFile(t *testing.T) {
	raw, err := os.ReadFile("deploy/cluster/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Command     []string          `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
			Ports       []string          `yaml:"ports"`
			Volumes     []string          `yaml:"volumes"`
		} `yaml:"services"`
		Volumes map[string]any `yaml:"volumes"`
	}
	if err := yaml.Unmarshal(raw, &f); err != nil {
		t.Fatalf("compose.yaml does not parse: %v", err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	fs, _, _ := flagSet(func(string) string { return "" }, io.Discard)
	if !strings.HasPrefix(f.Services["postgres"].Image, "postgres:") {
		t.Errorf("no PostgreSQL service: %+v", f.Services["postgres"])
	}
	if nats := f.Services["nats"]; !strings.HasPrefix(nats.Image, "nats:") || !slices.Contains(nats.Command, "-js") {
		t.Errorf("no NATS with JetStream (-js): %+v", nats)
	}
	names, adverts := map[string]bool{}, map[string]bool{}
	for _, name := range []string{"node1", "node2", "node3"} {
		s, ok := f.Services[name]
		if !ok {
			t.Errorf("no service %s", name)
			continue
		}
		for env := range s.Environment {
			flag := strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(env, "TERMARENA_")), "_", "-")
			if !strings.HasPrefix(env, "TERMARENA_") || fs.Lookup(flag) == nil {
				t.Errorf("%s: %s is no flag's variable", name, env)
			}
			if !strings.Contains(string(readme), "`"+env+"`") {
				t.Errorf("%s: %s is not in the README's flag table", name, env)
			}
		}
		e := s.Environment
		if !strings.HasPrefix(e["TERMARENA_STORE"], "postgres://") || !strings.Contains(e["TERMARENA_STORE"], "@postgres:") {
			t.Errorf("%s: TERMARENA_STORE %q is not the postgres service", name, e["TERMARENA_STORE"])
		}
		if e["TERMARENA_NATS"] != "nats://nats:4222" {
			t.Errorf("%s: TERMARENA_NATS %q is not the nats service", name, e["TERMARENA_NATS"])
		}
		if n := e["TERMARENA_NODE"]; n == "" || names[n] || !validNodeName(n) {
			t.Errorf("%s: TERMARENA_NODE %q is missing, repeated or not a node name", name, n)
		}
		names[e["TERMARENA_NODE"]] = true
		if a := e["TERMARENA_ADVERTISE"]; a == "" || adverts[a] {
			t.Errorf("%s: TERMARENA_ADVERTISE %q is missing or another node's", name, a)
		}
		adverts[e["TERMARENA_ADVERTISE"]] = true
		if !slices.Contains(s.Volumes, "./ssh_host_ed25519_key:/data/ssh_host_ed25519_key:ro") {
			t.Errorf("%s does not serve the shared host key: %v", name, s.Volumes)
		}
		if !slices.ContainsFunc(s.Ports, func(p string) bool { return strings.HasSuffix(p, ":2222") }) {
			t.Errorf("%s publishes no SSH port: %v", name, s.Ports)
		}
	}
	for _, v := range []string{"postgres", "nats", "node1", "node2", "node3"} {
		if _, ok := f.Volumes[v]; !ok {
			t.Errorf("no volume %s", v)
		}
	}
}
