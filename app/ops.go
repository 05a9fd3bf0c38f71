package app

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/termarena/termarena/admin"
)

// Advertise sets the address (host:port) players reach this server at
// over SSH — main's --advertise, or what it derives from the listener —
// once the listener is open, before sessions are served: the web pages
// and the sessions' hints (how to rename) print it in their ssh commands, and in a cluster this node's sessions
// and rooms carry it to the other nodes, which name it when they send a
// player here ("connect to n2: ssh -p 2222 n2.example.com").
func (a *App) Advertise(addr string) {
	a.Web.Advertise(addr)
	a.Server.Advertise(addr)
	if a.Node != nil {
		a.Node.Advertise(addr)
		a.Lobby.Hub.SetSSH(addr)
	}
}

// shareStats answers the cluster's requests for this node's figures and
// labels its /metrics with the node's name; it returns how this node asks
// for every node's (admin stats --cluster). Nothing on a single node.
func (a *App) shareStats() (func(context.Context) ([]admin.NodeStats, error), error) {
	if a.Node == nil {
		return nil, nil
	}
	stop, err := a.Node.ServeStats(a.Metrics.Snapshot)
	if err != nil {
		return nil, err
	}
	a.stopShared = append(a.stopShared, stop)
	// Every node serves its own /metrics and Prometheus scrapes each (one
	// target a node): its series are that node's by their instance label.
	// termarena_node_info says which cluster node an instance is, for
	// joins (on(instance) group_left(node)) and dashboards by node name.
	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: "termarena_node_info", Help: "Always 1: the cluster node this server is (its --node).",
		ConstLabels: prometheus.Labels{"node": a.Node.Name()}})
	info.Set(1)
	if err := a.Metrics.Registry().Register(info); err != nil {
		return nil, fmt.Errorf("cluster: node metric: %w", err)
	}
	return a.Node.ClusterStats, nil
}
