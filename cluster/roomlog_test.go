package cluster

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/lobby"
)

// resumer records what the room log hands it.
type resumer struct {
	mu      sync.Mutex
	resumed map[string]time.Time
}

func (r *resumer) Resume(start lobby.MatchLog, _ []lobby.LogBatch) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.resumed == nil {
		r.resumed = map[string]time.Time{}
	}
	r.resumed[start.Room] = time.Now()
	return nil
}

func (r *resumer) RecordUnresumable(lobby.MatchLog, uint64) error { return nil }
func (r *resumer) Abandon(string)                                 {}

func (r *resumer) count() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.resumed) }

// countRequests counts the JetStream API requests every node makes
// (stream info, KV gets, consumer creation) from a connection of its own.
func countRequests(t *testing.T, url string) *atomic.Int64 {
	t.Helper()
	spy, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(spy.Close)
	var n atomic.Int64
	if _, err := spy.Subscribe("$JS.API.>", func(*nats.Msg) { n.Add(1) }); err != nil {
		t.Fatal(err)
	}
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	return &n
}

// The room log asks NATS nothing at rest, however many rooms the other
// nodes log: it watches their leases, and a node that dies without a
// word still has its matches resumed (each one once) within the lease's
// 2 s and a moment. Before, every node asked for the logs' subjects and
// each other node's lease four times a second: 28 requests a second in
// this test (n1 4 stream infos and 20 KV gets, n2 4 stream infos).
func TestRoomLogWatchesLeasesAndAsksNothingAtRest(t *testing.T) {
	const rooms = 5
	url := natstest.Start(t)
	requests := countRequests(t, url)
	n1, n2 := connect(t, url, "n1"), connect(t, url, "n2")
	l1, err := n1.RoomLog(LogTiming{})
	if err != nil {
		t.Fatal(err)
	}
	l2, err := n2.RoomLog(LogTiming{})
	if err != nil {
		t.Fatal(err)
	}
	var r1, r2 resumer
	stop1 := l1.Run(&r1)
	defer stop1()
	stop2 := l2.Run(&r2)
	for i := range rooms {
		room := lobby.RoomID(i+1, "n2")
		l2.MatchStarted(lobby.MatchLog{Room: room, Game: "pong", Mode: "1v1", Seed: uint64(i + 1), TickRate: 60, Start: time.Now()})
		l2.MatchBatch(room, lobby.LogBatch{Tick: 12, Hash: 7})
	}
	eventually(t, "n2 holds its rooms' leases", func() bool {
		for i := range rooms {
			if l1.Owner(t.Context(), lobby.RoomID(i+1, "n2")) != "n2" {
				return false
			}
		}
		return true
	})
	time.Sleep(time.Second) // past the watch's start and the Owner calls
	before, out := requests.Load(), n1.Stats().OutMsgs
	const window = 3 * time.Second
	time.Sleep(window)
	asked, sent := requests.Load()-before, n1.Stats().OutMsgs-out
	t.Logf("at rest with %d rooms logged on n2: %.1f JetStream requests a second from both nodes, n1 sends %.1f messages a second",
		rooms, float64(asked)/window.Seconds(), float64(sent)/window.Seconds())
	if asked != 0 {
		t.Errorf("at rest the nodes made %d JetStream requests in %v; want none", asked, window)
	}

	// n2 dies without a word: its connection goes, its leases lapse.
	died := time.Now()
	n2.Close()
	stop2()
	eventually(t, fmt.Sprintf("n1 resumes n2's %d matches", rooms), func() bool { return r1.count() == rooms })
	r1.mu.Lock()
	for room, at := range r1.resumed {
		t.Logf("%s resumed %v after n2 died", room, at.Sub(died).Round(time.Millisecond))
	}
	r1.mu.Unlock()
	time.Sleep(500 * time.Millisecond)
	if got := len(l1.Resumed()); got != rooms {
		t.Errorf("n1 resumed %d matches; want each of %d once", got, rooms)
	}
	if os.Getenv("TERMARENA_MEASURE") != "" {
		before, out = requests.Load(), n1.Stats().OutMsgs
		time.Sleep(window)
		t.Logf("n1 alone, owning %d rooms: %.1f JetStream requests a second, sends %.1f messages a second",
			rooms, float64(requests.Load()-before)/window.Seconds(), float64(n1.Stats().OutMsgs-out)/window.Seconds())
	}
}
