package lobby

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	pongbot "github.com/termarena/termarena/game/pong/bot"
	"github.com/termarena/termarena/game/tron"
	tronbot "github.com/termarena/termarena/game/tron/bot"
	"github.com/termarena/termarena/store/bolt"
)

// journalSpy is a MatchJournal that keeps what it is told.
type journalSpy struct {
	mu      sync.Mutex
	starts  []MatchLog
	batches []LogBatch
	over    []string
}

func (j *journalSpy) MatchStarted(s MatchLog) {
	j.mu.Lock()
	j.starts = append(j.starts, s)
	j.mu.Unlock()
}
func (j *journalSpy) MatchBatch(_ string, b LogBatch) {
	j.mu.Lock()
	j.batches = append(j.batches, b)
	j.mu.Unlock()
}
func (j *journalSpy) MatchOver(room string) {
	j.mu.Lock()
	j.over = append(j.over, room)
	j.mu.Unlock()
}
func (j *journalSpy) MatchHandedOff(string) {}

func (j *journalSpy) seen() (starts []MatchLog, batches int, over []string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.starts), len(j.batches), slices.Clone(j.over)
}

func botRooms(t *testing.T, j MatchJournal, countdown time.Duration, bots bool) *Rooms {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cfg := RoomsConfig{Games: game.Catalog{pong.Kind{}}, Journal: j, Room: game.RoomConfig{Countdown: countdown}}
	if bots {
		cfg.Bots = map[string]bot.Maker{"pong": pongbot.New}
	}
	return NewRooms(ctx, cfg)
}

func waitFrame(t *testing.T, r *Room, what string, ok func(*game.Frame) bool) *game.Frame {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		fr, next := r.Latest()
		if ok(fr) {
			return fr
		}
		select {
		case <-next:
		case <-deadline:
			t.Fatalf("timed out waiting for %s: %+v", what, fr)
		}
	}
}

// A casual room whose free seat a bot took (b) is in the journal from its
// match's first countdown, the bot named with its level; another node
// resuming that log seats a bot of the level again at once (the person's
// seat waits in grace), and a node that runs no bots refuses the log.
// A countdown called off ends the log.
func TestJournalLogsBotRoomsFromTheCountdownAndResumeReseatsTheBots(t *testing.T) {
	ctx := context.Background()
	j := &journalSpy{}
	rs := botRooms(t, j, time.Hour, true) // a countdown that does not end
	r, err := rs.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	ann := game.Player{ID: "ann", Name: "ann"}
	if _, err := r.Join(ctx, ann, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.FillWithBots(r, 2); err != nil {
		t.Fatal(err)
	}
	if err := r.SetReady(ctx, "ann", true); err != nil {
		t.Fatal(err)
	}
	waitFrame(t, r, "the countdown", func(f *game.Frame) bool { return f.Phase == game.Countdown })
	var starts []MatchLog
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitFor("the match's start in the journal", func() bool { starts, _, _ = j.seen(); return len(starts) > 0 })
	start := starts[0]
	if len(starts) != 1 || start.Room != r.ID() || len(start.Roster) != 2 || start.Roster[0].ID != "ann" || start.Roster[1].ID != bot.Player(2, 1).ID {
		t.Fatalf("journal starts %+v; want one, of ann and a level-2 bot", starts)
	}

	// Another node takes the log (no batch: killed in the countdown).
	rs2 := botRooms(t, &journalSpy{}, 50*time.Millisecond, true)
	r2, err := rs2.Resume(start, nil)
	if err != nil {
		t.Fatal(err)
	}
	fr := waitFrame(t, r2, "the bot seated again", func(f *game.Frame) bool { return f.Seats[1].Connected })
	if fr.Seats[1].Player.ID != bot.Player(2, 1).ID || !fr.Seats[0].Taken || fr.Seats[0].Connected || fr.Tick != 0 {
		t.Fatalf("resumed seats %+v at tick %d; want ann held in grace, the bot back, tick 0", fr.Seats, fr.Tick)
	}
	if r2.botsIn() != 1 {
		t.Errorf("the resumed room counts %d bots; want 1 (a bot room)", r2.botsIn())
	}
	if _, err := r2.Join(ctx, ann, -1); err != nil {
		t.Fatal(err)
	}
	waitFrame(t, r2, "play against the bot", func(f *game.Frame) bool { return f.Phase == game.Playing && f.Tick > 30 })

	// A node that runs no bots cannot play it on: refused, and recorded
	// aborted, filed as practice as a match with a bot in it is.
	if _, err := botRooms(t, nil, time.Second, false).Resume(start, nil); !errors.Is(err, ErrUnresumable) {
		t.Fatalf("resumed a bot match on a node with no bots: %v", err)
	}
	st, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, _, err := st.Login(ctx, "ann", "ssh-ed25519", "ann"); err != nil {
		t.Fatal(err)
	}
	if m, err := NewResults(st, nil, nil).RecordUnresumable(ctx, rs.Games(), start, 0); err != nil || m.Mode != "practice-1v1" || !m.Aborted || m.Ranked || len(m.Players) != 2 {
		t.Fatalf("recorded %+v, %v; want an aborted practice-1v1 of ann and the bot", m, err)
	}

	// ann walks out in the countdown on the first node: called off.
	if err := r.Leave(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	waitFor("the log's end", func() bool { _, _, over := j.seen(); return slices.Contains(over, r.ID()) })
}

// A light-cycle practice match resumed from its log mid-match: the
// rebuilt game stands at the last batch's tick, the room is practice
// again (its level), its bots ride again at once, and the match plays on
// once the person is back.
func TestResumeAPracticeMatchMidMatchRidesItsBotsAgain(t *testing.T) {
	ctx := context.Background()
	j := &journalSpy{}
	newRooms := func(j MatchJournal) *Rooms {
		c, cancel := context.WithCancel(ctx)
		t.Cleanup(cancel)
		return NewRooms(c, RoomsConfig{Games: game.Catalog{tron.Kind{}}, Bots: map[string]bot.Maker{"tron": tronbot.New},
			Journal: j, Room: game.RoomConfig{Countdown: 50 * time.Millisecond}})
	}
	rs := newRooms(j)
	r, err := rs.CreatePractice("tron", "tron", 2)
	if err != nil {
		t.Fatal(err)
	}
	ann := game.Player{ID: "ann", Name: "ann"}
	if _, err := r.Join(ctx, ann, 0); err != nil {
		t.Fatal(err)
	}
	if err := r.SetReady(ctx, "ann", true); err != nil {
		t.Fatal(err)
	}
	var (
		starts []MatchLog
		n      int
	)
	for deadline := time.Now().Add(10 * time.Second); n < 3; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the journal has %d batches of the practice match, want 3", n)
		}
		starts, n, _ = j.seen()
	}
	j.mu.Lock()
	batches := slices.Clone(j.batches[:3])
	j.mu.Unlock()
	if len(starts) != 1 || starts[0].Practice != 2 {
		t.Fatalf("journal starts %+v; want one, of a level-2 practice room", starts)
	}

	r2, err := newRooms(nil).Resume(starts[0], batches)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Practice != 2 || ModeName(r2) != "practice-tron" {
		t.Errorf("resumed room filed as %q, level %d; want practice-tron, 2", ModeName(r2), r2.Practice)
	}
	fr := waitFrame(t, r2, "its bots riding again", func(f *game.Frame) bool {
		for _, s := range f.Seats[1:] {
			if s.Taken && !s.Connected {
				return false
			}
		}
		return true
	})
	if fr.Tick != batches[2].Tick || fr.Seats[0].Connected || !bot.IsBot(fr.Seats[1].Player.ID) {
		t.Fatalf("resumed at tick %d (want %d), seats %+v; want ann in grace and the bots back", fr.Tick, batches[2].Tick, fr.Seats)
	}
	if _, err := r2.Join(ctx, ann, -1); err != nil {
		t.Fatal(err)
	}
	waitFrame(t, r2, "play on", func(f *game.Frame) bool { return f.Phase != game.Countdown && f.Tick > batches[2].Tick })
}

// A match resumed into its countdown (its node died there) and handed
// off again before anyone played a tick leaves a log the next node
// resumes too: no batch at tick 0, which no log may hold.
func TestHandOffOfAMatchResumedIntoItsCountdownLeavesAResumableLog(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	j := &journalSpy{}
	cfg := RoomsConfig{Games: game.Catalog{pong.Kind{}}, Journal: j, Room: game.RoomConfig{Countdown: time.Hour}}
	rs := NewRooms(ctx, cfg)
	s := &Services{Rooms: rs, Results: NewResults(nil, nil, nil)}
	setup, err := pong.Kind{}.Setup("1v1")
	if err != nil {
		t.Fatal(err)
	}
	start := MatchLog{Room: "r1@n1", Game: "pong", Mode: "1v1", Config: setup.Config, Seed: 7, TickRate: 60, Start: time.Now(),
		Roster: []game.Player{{ID: "ann", Name: "ann"}, {ID: "bob", Name: "bob"}}}
	if _, err := rs.Resume(start, nil); err != nil {
		t.Fatal(err)
	}
	if got := s.HandOff(); len(got) != 1 {
		t.Fatalf("handed off %v; want the room", got)
	}
	j.mu.Lock()
	batches := slices.Clone(j.batches)
	j.mu.Unlock()
	cfg.Journal = nil
	r, err := NewRooms(ctx, cfg).Resume(start, batches)
	if err != nil {
		t.Fatalf("the handed-off log (batches at ticks %v) does not resume: %v", ticksOf(batches), err)
	}
	r.Close()
}
