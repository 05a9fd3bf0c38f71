package server_test

import (
	"io"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// lobbyAs opens a lobby session of name (a new key unless one is given)
// at 100×40 and waits for its welcome.
func lobbyAs(t *testing.T, h *harness, name string, key ...gossh.Signer) *sshtest.Term {
	t.Helper()
	k := sshtest.NewKey(t)
	if len(key) > 0 {
		k = key[0]
	}
	tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config(name, k)), 100, 40, "")
	tm.WaitFor(wait, "Welcome, "+name+"!")
	return tm
}

// say types a line into chat: t opens the input line, then the line, then
// enter, each once the one before has been read (a burst would read as a
// paste, whose enter is text).
func say(tm *sshtest.Term, line string) {
	tm.Type("t")
	tm.WaitFor(wait, "enter send")
	tm.Type(line)
	tm.WaitFor(wait, line)
	tm.Type("\r")
}

// roomOf waits for the live room where every name holds a seat.
func roomOf(t *testing.T, h *harness, names ...string) *lobby.Room {
	t.Helper()
	var room *lobby.Room
	waitUntil(t, "a room seating "+strings.Join(names, ", "), wait, func() bool {
		for _, r := range h.Rooms.All() {
			fr, _ := r.Latest()
			if fr == nil {
				continue
			}
			seated := 0
			for _, s := range fr.Seats {
				for _, n := range names {
					if s.Taken && s.Player.Name == n {
						seated++
					}
				}
			}
			if seated == len(names) {
				room = r
				return true
			}
		}
		return false
	})
	return room
}

// Ann challenges bob from lobby chat; bob sees the notice and accepts
// with y; both sit in one casual room, facing each other, and nobody else
// is in it.
func TestChallengeAcceptedSeatsBothInOneRoom(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ann, bob := lobbyAs(t, h, "ann"), lobbyAs(t, h, "bob")
	bob.WaitFor(wait, "ann (lobby)") // bob sees ann in the lobby's online line
	say(ann, "/challenge bob 1v1")
	ann.WaitFor(wait, "waiting for bob to answer")
	bob.WaitFor(wait, "ann challenges you: pong-1v1, casual", "y accept · n decline")
	// Once on the rooms page and once in chat: not a third time in the
	// notice line.
	if n := strings.Count(bob.Screen(), "ann challenges you"); n != 2 {
		t.Fatalf("bob's lobby shows the offer %d times, want 2 (its line, the chat pane):\n%s", n, bob.Screen())
	}
	bob.Type("y")
	r := roomOf(t, h, "ann", "bob")
	if r.Ranked != "" || r.Mode.Name != "1v1" || !r.Private {
		t.Fatalf("the challenge's room %s: ranked %q mode %s private %v; want a private casual 1v1", r.ID(), r.Ranked, r.Mode.Name, r.Private)
	}
	fr, _ := r.Latest()
	if fr.Seats[0].Player.Name != "ann" || fr.Seats[1].Player.Name != "bob" {
		t.Fatalf("seats %+v: want ann left and bob right", fr.Seats)
	}
	ann.WaitFor(wait, r.ID()+" · 1v1")
	bob.WaitFor(wait, r.ID()+" · 1v1")
}

// A challenge arrives during a casual game: bob accepts it with /accept
// in the room's chat and is taken from that room to the challenge's.
func TestChallengeAcceptedFromAGame(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ann, bob := lobbyAs(t, h, "ann"), lobbyAs(t, h, "bob")
	bob.Type("c")
	bob.Type("1\r")
	first := roomOf(t, h, "bob")
	bob.WaitFor(wait, first.ID())
	say(ann, "/challenge bob")
	bob.WaitFor(wait, "ann challenges you")
	say(bob, "/accept ann")
	r := roomOf(t, h, "ann", "bob")
	if r == first {
		t.Fatalf("ann was seated in bob's old room %s", r.ID())
	}
	bob.WaitFor(wait, r.ID()+" · 1v1")
}

// Bob declines (n): ann is told, and may not challenge bob again for a
// while.
func TestChallengeDeclined(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ann, bob := lobbyAs(t, h, "ann"), lobbyAs(t, h, "bob")
	say(ann, "/challenge bob")
	bob.WaitFor(wait, "ann challenges you")
	bob.Type("n")
	ann.WaitFor(wait, "bob declined your challenge")
	bob.WaitFor(wait, "You declined ann's challenge")
	say(ann, "/challenge bob")
	ann.WaitFor(wait, "bob declined your challenge lately")
	if n := h.Rooms.Count(); n != 0 {
		t.Fatalf("%d rooms after a declined challenge", n)
	}
}

// A muted player's challenge is refused and never reaches anyone.
func TestMutedPlayerCannotChallenge(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	h := start(t, t.TempDir(), server.DefaultConfig(), map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true})
	ann, bob := lobbyAs(t, h, "ann"), lobbyAs(t, h, "bob")
	if r := sshtest.Run(t, h.Addr, "ops", adminKey, "admin mute ann 5m spam"); r.Code != 0 {
		t.Fatalf("admin mute: %d %s", r.Code, r.Stderr)
	}
	ann.WaitFor(wait, "you are muted for")
	say(ann, "/challenge bob")
	ann.WaitFor(wait, "You are muted, so you can't challenge anyone")
	time.Sleep(300 * time.Millisecond) // a notice would have reached bob by now
	if scr := bob.Screen(); strings.Contains(scr, "challenges you") {
		t.Fatalf("bob was told of a muted player's challenge:\n%s", scr)
	}
}

// A challenger may send three challenges a minute: the fourth is refused,
// and bob heard of three.
func TestChallengesAreRateLimited(t *testing.T) {
	cfg := server.DefaultConfig()
	// The test types its hundred keys faster than anyone does: with the
	// menus drawn as soon as a key lands, within the key budget's first
	// second and a half, which would drop the last round's keys.
	cfg.MaxKeysPerSec = 1000
	h := start(t, t.TempDir(), cfg, nil)
	ann, bob := lobbyAs(t, h, "ann"), lobbyAs(t, h, "bob")
	for i := range lobby.DefaultChallengeRate {
		say(ann, "/challenge bob")
		ann.WaitFor(wait, "waiting for bob to answer")
		say(ann, "/cancel")
		waitUntil(t, "the challenge withdrawn", wait, func() bool {
			return strings.Count(ann.Screen(), "— You withdrew your challenge") == i+1
		})
	}
	say(ann, "/challenge bob")
	ann.WaitFor(wait, "You sent 3 challenges in the last 1m0s")
	waitUntil(t, "bob to hear of three withdrawn challenges", wait, func() bool {
		return strings.Count(bob.Screen(), "— ann withdrew their challenge") == lobby.DefaultChallengeRate
	})
	if n := strings.Count(bob.Screen(), "— ann challenges you to"); n != lobby.DefaultChallengeRate {
		t.Fatalf("bob was challenged %d times, want %d:\n%s", n, lobby.DefaultChallengeRate, bob.Screen())
	}
}

// An unanswered challenge expires: both sides are told, and the notice
// goes from bob's lobby.
func TestChallengeExpires(t *testing.T) {
	h := startLobby(t, t.TempDir(), server.DefaultConfig(), nil,
		lobby.Config{Challenge: lobby.ChallengeConfig{Expiry: 2 * time.Second}}, io.Discard)
	ann, bob := lobbyAs(t, h, "ann"), lobbyAs(t, h, "bob")
	say(ann, "/challenge bob")
	bob.WaitFor(wait, "y accept · n decline")
	ann.WaitFor(wait, "Your challenge to bob expired")
	bob.WaitFor(wait, "ann's challenge expired")
	if scr := bob.Screen(); strings.Contains(scr, "ann challenges you: pong") {
		t.Fatalf("the expired challenge is still offered:\n%s", scr)
	}
	say(bob, "/accept")
	bob.WaitFor(wait, "Nobody is challenging you now")
}

// A ranked challenge is a ranked match with the queue's rules: while ann
// and bob hold its seats neither can be challenged (cat is told why), a
// second terminal of ann's can neither challenge nor queue, and after it
// they may not play each other ranked again at once.
func TestRankedChallengeObeysOneRankedMatch(t *testing.T) {
	rc := lobby.RoomsConfig{Room: game.RoomConfig{Countdown: 30 * time.Second, Grace: 20 * time.Second}}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	annKey := sshtest.NewKey(t)
	ann, bob, cat := lobbyAs(t, h, "ann", annKey), lobbyAs(t, h, "bob"), lobbyAs(t, h, "cat")
	say(ann, "/challenge bob pong-1v1 ranked")
	ann.WaitFor(wait, "waiting for bob to answer")
	bob.WaitFor(wait, "ann challenges you: pong-1v1, ranked")
	bob.Type("y")
	room := rankedCountdown(t, h, ann, bob)
	if room.Seats["ann"] != 0 && len(room.Seats) != 2 {
		t.Fatalf("ranked room seats %v", room.Seats)
	}
	say(cat, "/challenge ann")
	cat.WaitFor(wait, "ann is playing a ranked match ("+room.ID()+")")
	ann2 := lobbyAs(t, h, "ann", annKey)
	say(ann2, "/challenge cat")
	ann2.WaitFor(wait, "You are playing a ranked pong-1v1 match in "+room.ID())
	ann2.Type("p")
	ann2.WaitFor(wait, "already playing a ranked pong-1v1 match, in "+room.ID())
	for _, r := range h.Rooms.All() {
		if r != room && r.Ranked != "" {
			t.Fatalf("a second ranked room %s while ann holds a seat in %s", r.ID(), room.ID())
		}
	}
	// The match ends (the server closes it); a ranked rematch by
	// challenge at once is refused, a casual one is not.
	room.Close()
	waitUntil(t, "the room to end", wait, func() bool { return h.Rooms.Count() == 0 })
	say(ann2, "/challenge bob ranked")
	ann2.WaitFor(wait, "You and bob played each other's last ranked match")
}

// The lobby's C dialog: ann picks bob from who is online, the mode, and
// ranked, and bob is offered exactly that.
func TestChallengeDialog(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ann, bob := lobbyAs(t, h, "ann"), lobbyAs(t, h, "bob")
	ann.WaitFor(wait, "bob (lobby)")
	ann.Type("?")
	ann.WaitFor(wait, "a  play anyone, unrated · C  challenge someone · y/n  answer one")
	ann.Type("?")
	ann.Type("C")
	ann.WaitFor(wait, "Challenge someone", "▸ bob (lobby)", "pong-1v1 ▸   casual")
	ann.Type("r")
	ann.WaitFor(wait, "pong-1v1 ▸   ranked (rated)")
	ann.Type("\r")
	bob.WaitFor(wait, "ann challenges you: pong-1v1, ranked")
	guest := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("g", nil)), 100, 40, "")
	guest.WaitFor(wait, "Welcome, guest-")
	guest.Type("C")
	guest.WaitFor(wait, "Guests can't challenge: connect with an SSH key.")
}

// In a room, y answers a challenge too (no game's key): bob goes from his
// light-cycle room to ann's challenge.
func TestChallengeAcceptedWithYInARoom(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ann := lobbyAs(t, h, "ann")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 40, "practice tron --level 1")
	first := roomOf(t, h, "bob")
	bob.WaitFor(wait, first.ID())
	say(ann, "/challenge bob 1v1")
	bob.WaitFor(wait, "ann challenges you to pong-1v1")
	bob.Type("y")
	r := roomOf(t, h, "ann", "bob")
	if r == first || r.Mode.Name != "1v1" {
		t.Fatalf("bob is in %s (%s), want the challenge's pong room", r.ID(), r.Mode.Name)
	}
	bob.WaitFor(wait, r.ID()+" · 1v1")
}

// The offer says "y accept · n decline" wherever the player reads it; on
// a menu page that takes no letters (the leaderboard here, the profile,
// the watch list, a queue) y answers it too, as on the rooms page.
// Found on the issue-21 tour: bob on the leaderboard pressed y and
// nothing happened.
func TestChallengeAcceptedWithYOnTheLeaderboard(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ann, bob := lobbyAs(t, h, "ann"), lobbyAs(t, h, "bob")
	bob.Type("L")
	bob.WaitFor(wait, "Leaderboard")
	say(ann, "/challenge bob 1v1")
	bob.WaitFor(wait, "ann challenges you to pong-1v1")
	bob.Type("y")
	r := roomOf(t, h, "ann", "bob")
	bob.WaitFor(wait, r.ID()+" · 1v1")
}
