package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/termarena/termarena/admin"
	"github.com/termarena/termarena/telemetry"
)

// subjectStats is asked for every node's figures (`admin stats
// --cluster`): each node answers with its own, on the asker's inbox.
const subjectStats = "termarena.stats"

// statsReply is a node's answer (version 1; fields are only added).
type statsReply struct {
	V     int             `json:"v"`
	Node  string          `json:"node"`
	SSH   string          `json:"ssh,omitempty"`
	Stats telemetry.Stats `json:"stats"`
}

// ServeStats answers the cluster's requests for this node's figures with
// snapshot until stop.
func (n *Node) ServeStats(snapshot func() telemetry.Stats) (stop func(), err error) {
	sub, err := n.nc.Subscribe(subjectStats, func(msg *nats.Msg) {
		b, _ := json.Marshal(statsReply{V: 1, Node: n.name, SSH: n.SSH(), Stats: snapshot()})
		if err := msg.Respond(b); err != nil {
			n.log.Warn("cluster: figures not sent to the node asking", "err", err)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: serve stats: %w", err)
	}
	return func() { _ = sub.Unsubscribe() }, nil
}

// ClusterStats asks every node for its figures and gathers the answers
// until ctx's deadline, or until every live node (its name claimed) has
// answered. A live node that has not answered by then is listed with nil
// Stats; nodes are in name order.
func (n *Node) ClusterStats(ctx context.Context) ([]admin.NodeStats, error) {
	live, err := n.liveNodes(ctx)
	if err != nil {
		return nil, err
	}
	inbox := n.nc.NewRespInbox()
	replies := make(chan *nats.Msg, 64)
	sub, err := n.nc.ChanSubscribe(inbox, replies)
	if err != nil {
		return nil, fmt.Errorf("cluster: ask for stats: %w", err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := n.nc.PublishRequest(subjectStats, inbox, nil); err != nil {
		return nil, fmt.Errorf("cluster: ask for stats: %w", err)
	}
	got := map[string]admin.NodeStats{}
	pending := len(live)
gather:
	for pending > 0 || len(live) == 0 {
		select {
		case <-ctx.Done():
			break gather
		case msg := <-replies:
			var r statsReply
			if err := json.Unmarshal(msg.Data, &r); err != nil || r.Node == "" {
				n.log.Warn("cluster: figures that do not read", "err", err)
				continue
			}
			key := nameKey(r.Node)
			if _, dup := got[key]; dup {
				continue
			}
			got[key] = admin.NodeStats{Node: r.Node, SSH: r.SSH, Stats: &r.Stats}
			if _, ok := live[key]; ok {
				pending--
			}
		}
	}
	for key, ssh := range live {
		if _, ok := got[key]; !ok {
			got[key] = admin.NodeStats{Node: key, SSH: ssh}
		}
	}
	out := make([]admin.NodeStats, 0, len(got))
	for _, s := range got {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b admin.NodeStats) int { return strings.Compare(nameKey(a.Node), nameKey(b.Node)) })
	return out, nil
}

// liveNodes lists the nodes whose names are claimed now (names.go), by
// key, with the address each advertises.
func (n *Node) liveNodes(ctx context.Context) (map[string]string, error) {
	kv := n.names.Load()
	if kv == nil {
		return nil, errors.New("cluster: this node has not claimed its name")
	}
	c, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	live := map[string]string{}
	keys, err := (*kv).ListKeys(c)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return live, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: list the nodes: %w", err)
	}
	for key := range keys.Keys() {
		live[key] = ""
		if e, err := (*kv).Get(c, key); err == nil {
			var claim nameClaim
			if json.Unmarshal(e.Value(), &claim) == nil {
				live[key] = claim.SSH
			}
		}
	}
	if errors.Is(c.Err(), context.DeadlineExceeded) {
		return nil, errors.New("cluster: list the nodes: NATS did not answer in time")
	}
	return live, nil
}
