package cluster

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
)

// BenchmarkRemoteInputToFrame measures what the hop between nodes adds to
// input → frame: one Pong 1v1 room on n1 (30 wakes a second, as served),
// alice seated on n1 and bob through n2's handle over an in-process NATS
// server. Each iteration submits one input for each player, alternately,
// and waits for the frame that acknowledges it where that player's
// session would read it (n1's room for alice, n2's handle for bob). It
// reports both players' p50 and p99 in ms, and the NATS messages and
// bytes a second the room cost each node.
//
//	go test -run '^$' -bench RemoteInputToFrame -benchtime 600x ./cluster/
func BenchmarkRemoteInputToFrame(b *testing.B) {
	url := natstest.Start(b)
	games := game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
		c := pong.DefaultConfig(m)
		c.PointsToWin = 1 << 20 // nobody defends; the match must outlast the run
		return c
	}}}
	ctx := b.Context()
	node := func(name string) (*Node, *lobby.Rooms) {
		n, err := Connect(url, name, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(n.Close)
		rs := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: games, Node: name, Room: game.RoomConfig{Countdown: -1}})
		links, stop, err := n.ServeRooms(rs, games)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(stop)
		rs.SetRemoteRooms(links)
		return n, rs
	}
	n1, rs1 := node("n1")
	n2, rs2 := node("n2")
	r1, err := rs1.Create("pong", "1v1", false)
	if err != nil {
		b.Fatal(err)
	}
	rs2.SetRemote("n1", []lobby.RoomInfo{r1.Info()}) // the directory's part
	r2, err := rs2.Find(r1.ID())
	if err != nil {
		b.Fatal(err)
	}
	alice, bob := game.Player{ID: "alice", Name: "alice"}, game.Player{ID: "bob", Name: "bob"}
	if _, err := r1.Join(ctx, alice, 0); err != nil {
		b.Fatal(err)
	}
	if _, err := r2.Join(ctx, bob, 1); err != nil {
		b.Fatal(err)
	}
	_ = r1.SetReady(ctx, alice.ID, true)
	_ = r2.SetReady(ctx, bob.ID, true)
	for fr, _ := r2.Latest(); fr.Phase != game.Playing; fr, _ = r2.Latest() {
		time.Sleep(10 * time.Millisecond)
	}
	// waitAck waits for the frame that acknowledges seq on slot, as
	// the session reading h would see it.
	waitAck := func(h *lobby.Room, slot int, seq uint32) time.Duration {
		start := time.Now()
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		for {
			fr, ch := h.Latest()
			if fr.Acks[slot] >= seq {
				return time.Since(start)
			}
			select {
			case <-ch:
			case <-c.Done():
				b.Fatalf("no frame acknowledged input %d of slot %d", seq, slot)
			}
		}
	}
	s1, s2 := n1.Stats(), n2.Stats()
	began := time.Now()
	var local, remote []time.Duration
	b.ResetTimer()
	for i := range b.N {
		seq := uint32(i + 1)
		dir := int8(1 - 2*(i%2))
		// A little apart, as keys come, so each input meets the room's
		// wakes at a different phase.
		time.Sleep(time.Duration(i%7) * 3 * time.Millisecond)
		r1.Submit(alice.ID, game.Input{Slot: 0, Seq: seq, Action: dir})
		local = append(local, waitAck(r1, 0, seq))
		time.Sleep(time.Duration(i%5) * 4 * time.Millisecond)
		r2.Submit(bob.ID, game.Input{Slot: 1, Seq: seq, Action: dir})
		remote = append(remote, waitAck(r2, 1, seq))
	}
	b.StopTimer()
	secs := time.Since(began).Seconds()
	e1, e2 := n1.Stats(), n2.Stats()
	pct := func(d []time.Duration, p int) float64 {
		slices.Sort(d)
		return float64(d[(len(d)-1)*p/100]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(local, 50), "local-p50-ms")
	b.ReportMetric(pct(local, 99), "local-p99-ms")
	b.ReportMetric(pct(remote, 50), "remote-p50-ms")
	b.ReportMetric(pct(remote, 99), "remote-p99-ms")
	b.ReportMetric(float64(e1.OutMsgs-s1.OutMsgs)/secs, "owner-out-msgs/s")
	b.ReportMetric(float64(e1.OutBytes-s1.OutBytes)/secs, "owner-out-B/s")
	b.ReportMetric(float64(e2.OutMsgs-s2.OutMsgs)/secs, "edge-out-msgs/s")
	b.ReportMetric(float64(e2.OutBytes-s2.OutBytes)/secs, "edge-out-B/s")
}
