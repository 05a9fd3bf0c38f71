package server_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// buggyPong is Pong with a planted bug, registered as its own game
// ("buggy") in this test's catalogue only: its Step panics from game tick
// at onwards. No production build can reach it.
type buggyPong struct {
	pong.Kind
	at uint64
}

func (buggyPong) Name() string    { return "buggy" }
func (buggyPong) PlaysAs() string { return "pong" }

func (k buggyPong) Modes() []game.Mode {
	ms := k.Kind.Modes()[:1] // casual 1v1 only
	ms[0].Ranked = ""
	return ms
}

func (k buggyPong) New(config []byte, seed uint64) (game.Game, error) {
	g, err := k.Kind.New(config, seed)
	if err != nil {
		return nil, err
	}
	return &buggyGame{Game: g, at: k.at}, nil
}

type buggyGame struct {
	game.Game
	at, tick uint64
}

func (g *buggyGame) Step(in []game.Input) {
	g.Game.Step(in)
	g.tick++
	if g.tick >= g.at {
		panic(fmt.Sprintf("planted bug at tick %d", g.tick))
	}
}

// syncBuffer is the server's log, read by the test while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// A room whose game panics ends alone, through the real server: its two
// players read "The match ended because of a server error." in the lobby,
// still connected (they go on to open the create dialog), and its watcher
// is back at the room list with the same news; the match is recorded as
// aborted; the log has the room, game, mode and tick with the stack, and
// admin stats counts the panic; meanwhile a Pong match in another room
// plays on and ends with its result.
func TestPanickingRoomEndsAloneEndToEnd(t *testing.T) {
	logs := &syncBuffer{}
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second},
		Games: game.Catalog{
			pong.Kind{Configure: func(m pong.Mode) pong.Config {
				c := pong.DefaultConfig(m)
				c.PointsToWin = 3 // nobody defends: over in several seconds
				return c
			}},
			buggyPong{at: 30},
		},
	}
	adminKey := sshtest.NewKey(t)
	admins := map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true}
	h := startLogged(t, t.TempDir(), server.DefaultConfig(), admins, rc, logs)

	pongRoom, err := h.Rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	buggy, err := h.Rooms.Create("buggy", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	open := func(name, cmd string) (*sshtest.Term, gossh.Signer) {
		key := sshtest.NewKey(t)
		return sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config(name, key)), 80, 24, cmd), key
	}
	seat := func(room *lobby.Room, names ...string) []*sshtest.Term {
		var terms []*sshtest.Term
		for _, n := range names {
			tm, _ := open(n, "join "+room.ID())
			tm.WaitFor(wait, room.ID()+" · 1v1 · casual", n)
			terms = append(terms, tm)
		}
		return terms
	}
	players := seat(buggy, "alice", "bob")
	others := seat(pongRoom, "carol", "dave")
	for _, tm := range others {
		tm.Type("r")
	}
	waitUntil(t, "the Pong match to start", wait, func() bool { fr, _ := pongRoom.Latest(); return fr.Phase == game.Playing })
	eve, _ := open("eve", "spectate "+buggy.ID())
	eve.WaitFor(wait, "watching "+buggy.ID())

	for _, tm := range players {
		tm.Type("r")
	}
	for _, tm := range players {
		tm.WaitFor(wait, "The match ended because of a server error.")
	}
	if fr, _ := pongRoom.Latest(); fr.Phase != game.Playing {
		t.Fatalf("the Pong match was not in play when the other room failed: %v", fr.Phase)
	}
	eve.WaitFor(wait, "The match in "+buggy.ID()+" ended because of a server error.")

	// Back in the lobby, not disconnected: the lobby answers keys.
	for _, tm := range players {
		tm.Type("c")
		tm.WaitFor(wait, "New room")
	}

	line := ""
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "room panicked") {
			line = l
		}
	}
	for _, want := range []string{"level=ERROR", "room=" + buggy.ID(), "game=buggy", "mode=casual-1v1", "phase=playing", "tick=29", `panic="planted bug at tick 30"`, "buggyGame", "worker=room"} {
		if !strings.Contains(line, want) {
			t.Fatalf("the log line lacks %q:\n%s", want, logs.String())
		}
	}
	if i := strings.Index(line, "stack="); i > 0 {
		t.Logf("the log line, its stack cut short: %s…", line[:min(len(line), i+200)])
	}

	waitUntil(t, "the failed match to be recorded", wait, func() bool {
		r := sshtest.Run(t, h.Addr, "someone", sshtest.NewKey(t), "matches alice")
		return r.Code == 0 && strings.Contains(r.Stdout, "aborted")
	})
	stats := sshtest.Run(t, h.Addr, "admin", adminKey, "admin stats")
	if stats.Code != 0 || !strings.Contains(stats.Stdout, "panics recovered") || !strings.Contains(stats.Stdout, "1 (room 1)") {
		t.Fatalf("admin stats: %+v", stats)
	}

	// The other room's match plays on to its result.
	for _, tm := range others {
		tm.WaitFor(60*time.Second, "game over")
	}
	if fr, _ := pongRoom.Latest(); fr.Phase != game.Finished || fr.Result == nil {
		t.Fatalf("the Pong match: phase %v result %v", fr.Phase, fr.Result)
	}
}
