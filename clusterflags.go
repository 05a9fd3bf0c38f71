package main

import (
	"errors"
	"fmt"
	"strings"
)

// validNodeName: the name goes into room ids (r3@n2, which players type)
// and is the key of the node's claim on it in a NATS key-value bucket,
// which takes letters, digits and a few marks only. Host names fit.
func validNodeName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// checkCluster refuses --nats and --node that cannot make a cluster, before
// anything starts, and names the node after the host when --node is not
// given. Nodes share who is online and their rooms over NATS but keep
// players, ratings and bans in one database: with a bbolt file each, a
// player's rating and a ban would differ by node, so --nats needs
// --store postgres://….
func checkCluster(node *string, natsURL, storeURL string, hostname func() (string, error)) error {
	if natsURL == "" {
		if *node != "" {
			return errors.New("--node names a node of a cluster: it needs --nats")
		}
		return nil
	}
	if !strings.HasPrefix(natsURL, "nats://") && !strings.HasPrefix(natsURL, "tls://") {
		return fmt.Errorf("--nats (TERMARENA_NATS) wants a nats:// or tls:// URL, not %q", natsURL)
	}
	if !strings.HasPrefix(storeURL, "postgres://") && !strings.HasPrefix(storeURL, "postgresql://") {
		return errors.New("--nats needs --store postgres://…: the nodes of a cluster keep players, ratings and bans in one shared database (each node's own bbolt file would disagree)")
	}
	if *node == "" {
		h, err := hostname()
		if err != nil || h == "" {
			return fmt.Errorf("--node is not set and the host name cannot be read (%v): name this node with --node", err)
		}
		*node = h
	}
	if !validNodeName(*node) {
		return fmt.Errorf("--node %q: a node's name is 1 to 64 letters, digits, '.', '-' or '_' (it is part of room ids, r3@NAME, and of the key that keeps it unique)", *node)
	}
	return nil
}
