package lobby

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
)

// faultyKind plays Pong under its own name ("faulty", ranked queue
// "faulty-1v1") with a bug: from game tick at, the method named by on
// panics ("Step", "Snapshot", "Hash", "Result", or "Standing" for the
// snapshot's score). With on "Setup" it is Setup that panics, once armed.
type faultyKind struct {
	pong.Kind
	on    string
	at    uint64
	armed *atomic.Bool
}

func (faultyKind) Name() string { return "faulty" }

func (k faultyKind) Modes() []game.Mode {
	ms := k.Kind.Modes()[:1] // 1v1
	ms[0].Ranked, ms[0].Key = "faulty-1v1", "x"
	return ms
}

func (k faultyKind) Setup(mode string) (game.Setup, error) {
	if k.on == "Setup" && k.armed.Load() {
		panic("test bug in Setup")
	}
	return k.Kind.Setup(mode)
}

func (k faultyKind) New(config []byte, seed uint64) (game.Game, error) {
	g, err := k.Kind.New(config, seed)
	if err != nil {
		return nil, err
	}
	return &faultyGame{Game: g, on: k.on, at: k.at}, nil
}

type faultyGame struct {
	game.Game
	on   string
	at   uint64
	tick uint64
}

func (g *faultyGame) bug(method string) {
	if g.on == method && g.tick >= g.at {
		panic(fmt.Sprintf("test bug in %s at tick %d", method, g.tick))
	}
}

func (g *faultyGame) Step(in []game.Input) { g.Game.Step(in); g.tick++; g.bug("Step") }
func (g *faultyGame) Hash() uint64         { g.bug("Hash"); return g.Game.Hash() }
func (g *faultyGame) Result() (game.Result, bool) {
	g.bug("Result")
	return g.Game.Result()
}
func (g *faultyGame) Snapshot() any {
	g.bug("Snapshot")
	s := g.Game.Snapshot()
	if g.on == "Standing" {
		return faultySnapshot{s.(game.Scorer)}
	}
	return s
}

type faultySnapshot struct{ game.Scorer }

func (faultySnapshot) Standing() []int { panic("test bug in Standing") }

// logBuffer is a slog destination tests can read while the server writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// faultyServices runs the lobby with Pong (first to 1) and a faulty game,
// four players with keys, logging to the returned buffer.
func faultyServices(t *testing.T, k faultyKind) (*Services, *bolt.Store, *logBuffer) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ fp, name string }{{"SHA256:aaa", "ann"}, {"SHA256:bbb", "ben"}, {"SHA256:ccc", "cat"}, {"SHA256:ddd", "dan"}} {
		if _, _, err := st.Login(context.Background(), p.fp, "ssh-ed25519", p.name); err != nil {
			t.Fatal(err)
		}
	}
	first := func(m pong.Mode) pong.Config {
		c := pong.DefaultConfig(m)
		c.PointsToWin = 1
		return c
	}
	if k.armed == nil {
		k.armed = new(atomic.Bool)
	}
	k.Kind = pong.Kind{Configure: func(m pong.Mode) pong.Config { c := pong.DefaultConfig(m); c.PointsToWin = 1000; return c }}
	logs := &logBuffer{}
	svc, err := Start(st, Config{Rooms: RoomsConfig{
		Room:  game.RoomConfig{Countdown: -1},
		Games: game.Catalog{pong.Kind{Configure: first}, k},
	}}, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(); st.Close() })
	return svc, st, logs
}

// seat joins players into r, in order, and readies them.
func seat(t *testing.T, r *Room, players ...game.Player) {
	t.Helper()
	for _, p := range players {
		if _, err := r.Join(context.Background(), p, -1); err != nil {
			t.Fatal(err)
		}
		if err := r.SetReady(context.Background(), p.ID, true); err != nil && r.Ranked == "" {
			t.Fatal(err)
		}
	}
}

var (
	ann = game.Player{ID: "SHA256:aaa", Name: "ann"}
	ben = game.Player{ID: "SHA256:bbb", Name: "ben"}
	cat = game.Player{ID: "SHA256:ccc", Name: "cat"}
	dan = game.Player{ID: "SHA256:ddd", Name: "dan"}
)

// A ranked match whose game panics, in any of the methods the room calls,
// ends alone: the log names the room, game, mode and tick with the stack;
// the match is recorded as aborted with no rating change and costs nobody
// a leave strike (both may queue again at once); the room counts as a
// panic; and a casual match in another room plays on to its result.
func TestPanickingRoomAbortsItsMatchAlone(t *testing.T) {
	for _, method := range []string{"Step", "Snapshot", "Hash", "Result"} {
		t.Run(method, func(t *testing.T) {
			svc, st, logs := faultyServices(t, faultyKind{on: method, at: 90})
			other, err := svc.Rooms.Create("pong", "1v1", false)
			if err != nil {
				t.Fatal(err)
			}
			seat(t, other, cat, dan)

			ta, err := svc.Matchmaker.Join("faulty-1v1", string(ann.ID), ann.Name, 1500)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Matchmaker.Join("faulty-1v1", string(ben.ID), ben.Name, 1500); err != nil {
				t.Fatal(err)
			}
			r := <-ta.Room()
			seat(t, r, ann, ben)
			waitFor(t, "the faulty room to end", func() bool {
				select {
				case <-r.Done():
					return true
				default:
					return false
				}
			})
			if fr, _ := r.Latest(); fr.Phase != game.Closed || !fr.Failed {
				t.Fatalf("the faulty room's last frame: phase %v, failed %v", fr.Phase, fr.Failed)
			}

			waitFor(t, "the aborted match to be recorded", func() bool { ms, _ := st.Matches(context.Background(), string(ann.ID), 10); return len(ms) == 1 })
			ms, _ := st.Matches(context.Background(), string(ann.ID), 10)
			if m := ms[0]; !m.Aborted || !m.Ranked || m.Mode != "faulty-1v1" || len(m.Players) != 2 || m.Players[0].Left || m.Players[1].Left || !m.Replay {
				t.Fatalf("recorded %+v", m)
			}
			// The replay is cut where the recorder last verified the
			// game (tick 60, a hash a second), before the bug struck.
			data, err := st.Replay(context.Background(), ms[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			rp, err := spectator.Decode(data)
			if err != nil || !rp.Aborted || rp.Ticks != 60 {
				t.Fatalf("the failed match's replay: %+v, %v", rp, err)
			}
			pb, err := spectator.NewPlayback(rp, svc.Rooms.Games())
			for err == nil && !pb.Done() {
				err = pb.Step()
			}
			if err != nil {
				t.Fatalf("the failed match's replay does not play to its cut: %v", err)
			}
			for _, p := range []game.Player{ann, ben} {
				if rt, found, _ := st.Rating(context.Background(), "faulty-1v1", string(p.ID)); found || rt.Games != 0 {
					t.Fatalf("the aborted match rated %s: %+v", p.Name, rt)
				}
				tk, err := svc.Matchmaker.Join("faulty-1v1", string(p.ID), p.Name, 1500)
				if err != nil {
					t.Fatalf("%s cannot queue again: %v", p.Name, err)
				}
				svc.Matchmaker.Leave(tk.ID)
			}
			if n := svc.Panics()[WorkerRoom]; n != 1 {
				t.Fatalf("room panics %d, want 1", n)
			}
			want := []string{"room panicked", "room=" + r.ID(), "game=faulty", "mode=faulty-1v1", "tick=", "test bug in " + method, "stack=", "faultyGame"}
			for _, w := range want {
				if !strings.Contains(logs.String(), w) {
					t.Fatalf("the log lacks %q:\n%s", w, logs.String())
				}
			}

			waitFor(t, "the other room's match to finish", func() bool { fr, _ := other.Latest(); return fr.Phase == game.Finished })
			waitFor(t, "its result to be saved", func() bool { o := other.Outcome(); return o != nil && o.MatchID != 0 })
		})
	}
}

// A game that panics on its config when a ranked match is made costs that
// match, not the queue: its players are told (their tickets deliver no
// room) and are out of the queue, the log says why, and the same queue
// goes on to make the next match.
func TestMatchmakerSkipsAMatchThatPanics(t *testing.T) {
	armed := new(atomic.Bool)
	svc, _, logs := faultyServices(t, faultyKind{on: "Setup", armed: armed})
	armed.Store(true)
	ta, err := svc.Matchmaker.Join("faulty-1v1", string(ann.ID), ann.Name, 1500)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := svc.Matchmaker.Join("faulty-1v1", string(ben.ID), ben.Name, 1500)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range []*Ticket{ta, tb} {
		if r := <-tk.Room(); r != nil {
			t.Fatalf("a match whose room panicked delivered room %s", r.ID())
		}
	}
	if !strings.Contains(logs.String(), "test bug in Setup") || svc.Panics()[WorkerMatchmaker] != 1 {
		t.Fatalf("matchmaker panics %d, log:\n%s", svc.Panics()[WorkerMatchmaker], logs.String())
	}
	armed.Store(false)
	tc, err := svc.Matchmaker.Join("faulty-1v1", string(cat.ID), cat.Name, 1500)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Matchmaker.Join("faulty-1v1", string(dan.ID), dan.Name, 1500); err != nil {
		t.Fatal(err)
	}
	if r := <-tc.Room(); r == nil {
		t.Fatal("the queue made no room for the next match")
	}
}

// A job whose writing panics (here the game's score, read for a match
// cut short) is logged and skipped; the writer goes on with the next:
// the casual match stopped with it is still recorded.
func TestResultsWriterSkipsAJobThatPanics(t *testing.T) {
	svc, st, logs := faultyServices(t, faultyKind{on: "Standing"})
	for _, c := range []struct {
		game string
		p    [2]game.Player
	}{{"faulty", [2]game.Player{ann, ben}}, {"pong", [2]game.Player{cat, dan}}} {
		r, err := svc.Rooms.Create(c.game, "1v1", false)
		if err != nil {
			t.Fatal(err)
		}
		seat(t, r, c.p[0], c.p[1])
		waitFor(t, c.game+" to play", func() bool { fr, _ := r.Latest(); return fr.Phase == game.Playing })
	}
	svc.Stop() // both matches are cut short: two aborted jobs
	if ms, _ := st.Matches(context.Background(), string(ann.ID), 10); len(ms) != 0 {
		t.Fatalf("the job that panicked was recorded: %+v", ms)
	}
	if ms, _ := st.Matches(context.Background(), string(cat.ID), 10); len(ms) != 1 || !ms[0].Aborted {
		t.Fatalf("the other match: %+v", ms)
	}
	if svc.Panics()[WorkerResults] != 1 || !strings.Contains(logs.String(), "test bug in Standing") {
		t.Fatalf("results panics %d, log:\n%s", svc.Panics()[WorkerResults], logs.String())
	}
}

// Replay pruning on a file with a damaged page of the replays bucket (bbolt
// panics on it: "page expected to be …") logs which bucket is damaged and
// leaves the server running: the rooms still play.
func TestPruningADamagedStoreLogsTheBucket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	st, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("replay "), 300) // the bucket gets pages of its own
	for range 20 {
		m, err := st.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: "casual-1v1", Start: time.Now().Add(-48 * time.Hour), Duration: time.Minute,
			Players: []store.MatchPlayer{{Name: "a", Slot: 0, Place: 1}, {Name: "b", Slot: 1, Place: 2}}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.PutReplay(context.Background(), m.ID, big); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	garblePage(t, path, "replays")
	if st, err = bolt.Open(path, bolt.Options{}); err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	svc, err := Start(st, Config{Rooms: RoomsConfig{Games: pongGames(nil)}}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(); st.Close() })
	svc.PruneReplays(st, Retention{KeepFor: time.Hour}, log)
	waitFor(t, "pruning to report the damage", func() bool { return strings.Contains(logs.String(), "bucket=replays") })
	r, err := svc.Rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	seat(t, r, ann, ben)
	waitFor(t, "a match to play after the damage was found", func() bool { fr, _ := r.Latest(); return fr.Phase == game.Playing })
}

// garblePage writes garbage over the root page of bucket in the closed
// database at path, as a bad sector would.
func garblePage(t *testing.T, path, bucket string) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pgid, size int64
	err = db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucket))
		if b == nil || b.Root() == 0 {
			return fmt.Errorf("bucket %q missing or inline", bucket)
		}
		pgid, size = int64(b.Root()), int64(db.Info().PageSize)
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	garbage := make([]byte, size)
	for i := range garbage {
		garbage[i] = byte(i*7 + 3)
	}
	if _, err := f.WriteAt(garbage, pgid*size); err != nil {
		t.Fatal(err)
	}
}

// A game that panics as its room is made (here its first Snapshot, taken
// on the creating goroutine: a session's, or the matchmaker's) fails that
// Create with an error, counted and logged as a room panic; the registry
// is not left locked, and other rooms are still made.
func TestRoomThatPanicsAtCreationIsAnError(t *testing.T) {
	svc, _, logs := faultyServices(t, faultyKind{on: "Snapshot", at: 0})
	if r, err := svc.Rooms.Create("faulty", "1v1", false); err == nil {
		t.Fatalf("made room %s of a game that panics", r.ID())
	}
	if svc.Panics()[WorkerRoom] != 1 || !strings.Contains(logs.String(), "room panicked while starting") {
		t.Fatalf("room panics %d, log:\n%s", svc.Panics()[WorkerRoom], logs.String())
	}
	if _, err := svc.Rooms.Create("pong", "1v1", false); err != nil {
		t.Fatalf("no room after the panic: %v", err)
	}
}
