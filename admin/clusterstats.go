package admin

import (
	"context"
	"fmt"
	"time"

	"github.com/termarena/termarena/telemetry"
)

// NodeStats is one node's figures in `admin stats --cluster`: Stats is
// nil for a node that is known to run (its name is claimed) but did not
// answer within the deadline.
type NodeStats struct {
	Node  string           `json:"node"`
	SSH   string           `json:"ssh,omitempty"` // the address it advertises
	Stats *telemetry.Stats `json:"stats,omitempty"`
}

// clusterStatsDeadline bounds the wait for the nodes' answers: a node
// slower than this is listed as not answering rather than holding up the
// others' figures.
const clusterStatsDeadline = time.Second

// runClusterStats is `admin stats --cluster`: a row per node, and the
// cluster's totals of what adds up.
func runClusterStats(r *runner, asJSON bool) int {
	if r.d.ClusterStats == nil {
		return r.fail("this server is a single node: admin stats has its figures")
	}
	ctx, cancel := context.WithTimeout(r.ctx, clusterStatsDeadline)
	defer cancel()
	nodes, err := r.d.ClusterStats(ctx)
	if err != nil {
		return r.fail("the cluster's figures: %v", err)
	}
	if asJSON {
		return r.writeJSON(struct {
			Nodes []NodeStats `json:"nodes"`
		}{nodes})
	}
	var t table
	t.row("NODE", "SESSIONS", "IN MATCHES", "ROOMS", "FRAMES/S", "TICK P99", "GOROUTINES", "RSS", "SSH")
	var sessions, inMatches, rooms, goroutines int
	var fps float64
	var rss uint64
	silent := 0
	for _, n := range nodes {
		s := n.Stats
		if s == nil {
			silent++
			t.row(n.Node, "not answering", "", "", "", "", "", "", sshOf(n.SSH))
			continue
		}
		late := fmt.Sprintf("%.2f ms", s.TickLatenessP99)
		if s.TickLatenessOver {
			late = fmt.Sprintf("over %.0f ms", s.TickLatenessP99)
		}
		t.row(n.Node, fmt.Sprint(s.Sessions), fmt.Sprint(s.PlayersInMatches), fmt.Sprint(s.Rooms), fmt.Sprintf("%.0f", s.FramesPerSecond),
			late, fmt.Sprint(s.Goroutines), fmt.Sprintf("%.1f MB", float64(s.RSSBytes)/1e6), sshOf(n.SSH))
		sessions, inMatches, rooms, goroutines = sessions+s.Sessions, inMatches+s.PlayersInMatches, rooms+s.Rooms, goroutines+s.Goroutines
		fps += s.FramesPerSecond
		rss += s.RSSBytes
	}
	total := fmt.Sprintf("%d nodes", len(nodes))
	if silent > 0 {
		total = fmt.Sprintf("%d of %d nodes", len(nodes)-silent, len(nodes))
	}
	t.row("total", fmt.Sprint(sessions), fmt.Sprint(inMatches), fmt.Sprint(rooms), fmt.Sprintf("%.0f", fps), "", fmt.Sprint(goroutines),
		fmt.Sprintf("%.1f MB", float64(rss)/1e6), total)
	t.write(r.out)
	if silent > 0 {
		fmt.Fprintf(r.out, "%d node(s) did not answer within %v: busy, cut off from NATS, or just stopped.\n", silent, clusterStatsDeadline)
	}
	return ExitOK
}

// sshOf is the address as the host:port players reach the node at.
func sshOf(addr string) string {
	if addr == "" {
		return "-"
	}
	return addr
}
