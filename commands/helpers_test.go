package commands_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/termarena/termarena/commands"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
)

// Fingerprints of the test players.
const (
	alice = "SHA256:alice"
	bob   = "SHA256:bob"
	carol = "SHA256:carol"
	dave  = "SHA256:dave"
)

// world is a real store in a temp dir and a real room directory, with the
// service and the commands' deps over them.
type world struct {
	t     *testing.T
	store *bolt.Store
	rooms *lobby.Rooms
	deps  commands.Deps
	start time.Time
}

func newWorld(t *testing.T) *world {
	t.Helper()
	start := time.Date(2026, 11, 22, 13, 51, 0, 0, time.UTC)
	st, err := bolt.Open(filepath.Join(t.TempDir(), "termarena.db"), bolt.Options{Now: func() time.Time { return start }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	rooms := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	return &world{t: t, store: st, rooms: rooms, start: start, deps: commands.Deps{Service: service.New(st, rooms).WithClock(func() time.Time { return start })}}
}

func (w *world) login(fp, name string) {
	w.t.Helper()
	if _, _, err := w.store.Login(context.Background(), fp, "ssh-ed25519", name); err != nil {
		w.t.Fatal(err)
	}
}

// rankedWin records a ranked pong-1v1 match winner beat loser 5:3, each
// moving 20 points and left established at ± 80, with a replay when
// replay is set.
func (w *world) rankedWin(winner, loser string, replay bool) uint64 {
	w.t.Helper()
	return w.rankedWinDev(winner, loser, replay, 80)
}

// rankedWinDev is rankedWin leaving both players at ± dev.
func (w *world) rankedWinDev(winner, loser string, replay bool, dev float64) uint64 {
	w.t.Helper()
	m, err := w.store.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: "pong-1v1", Ranked: true, Room: "r1", Start: w.start.Add(13 * time.Minute),
		Duration: 32500 * time.Millisecond, Players: []store.MatchPlayer{
			{Fingerprint: winner, Slot: 0, Place: 1, Score: 5},
			{Fingerprint: loser, Slot: 1, Place: 2, Score: 3},
		}}, Rate: func(cur []store.Rating) ([]store.Rating, error) {
		cur[0].Deviation, cur[1].Deviation = dev, dev
		cur[0].Rating += 20
		cur[0].Games++
		cur[0].Wins++
		cur[1].Rating -= 20
		cur[1].Games++
		cur[1].Losses++
		return cur, nil
	}})
	if err != nil {
		w.t.Fatal(err)
	}
	if replay {
		if err := w.store.PutReplay(context.Background(), m.ID, []byte("replay bytes")); err != nil {
			w.t.Fatal(err)
		}
	}
	return m.ID
}

// result is what a command did.
type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, f commands.Func, d commands.Deps, who commands.Caller, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := f(context.Background(), d, who, args, &out, &errOut)
	return result{code, out.String(), errOut.String()}
}
