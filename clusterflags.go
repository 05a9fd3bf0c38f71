package main

import (
	"errors"
	"fmt"
	"strings"
)

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
	if strings.ContainsAny(*node, " \t\n") || len(*node) > 64 {
		return fmt.Errorf("--node %q: a node's name is at most 64 characters without spaces", *node)
	}
	return nil
}
