package lobby

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/game/tron"
)

func TestParseChallenge(t *testing.T) {
	c := game.Catalog{pong.Kind{}, tron.Kind{}}
	for _, tc := range []struct {
		args       string
		name       string
		game, mode string
		ranked     bool
		err        string
	}{
		{args: "bob", name: "bob", game: "pong", mode: "1v1"},
		{args: "bob 2v2", name: "bob", game: "pong", mode: "2v2"},
		{args: "bob pong-1v1 ranked", name: "bob", game: "pong", mode: "1v1", ranked: true},
		{args: "bob ranked pong-1v1", name: "bob", game: "pong", mode: "1v1", ranked: true},
		{args: "Bob RANKED", name: "Bob", game: "pong", mode: "1v1", ranked: true},
		{args: "bob tron", name: "bob", game: "tron", mode: "tron"},
		{args: "bob tron-ffa", name: "bob", game: "tron", mode: "tron-ffa", ranked: true}, // ranked only
		{args: "bob tron-ffa casual", name: "bob", game: "tron", mode: "tron-ffa"},        // Issue refuses it
		{args: "bob 1v1 unrated", name: "bob", game: "pong", mode: "1v1"},
		{args: "", err: "Whom?"},
		{args: "   ", err: "Whom?"},
		{args: "bob chess", err: `No mode "chess"`},
		{args: "bob 1v1 casual ranked", err: "not both"},
		{args: "bob 1v1 2v2", err: "Too many words"},
	} {
		name, spec, err := ParseChallenge(c, tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrChallenge) {
				t.Errorf("%q: err %v, want one saying %q", tc.args, err, tc.err)
			}
			continue
		}
		want := ChallengeSpec{Game: tc.game, Mode: tc.mode, Ranked: tc.ranked}
		if err != nil || name != tc.name || spec != want {
			t.Errorf("%q: %q %+v %v, want %q %+v", tc.args, name, spec, err, tc.name, want)
		}
	}
}

// challengeKit is a Challenges over real rooms and a matchmaker.
func challengeKit(t *testing.T, cfg ChallengeConfig) (*Challenges, *Matchmaker) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	rs := NewRooms(ctx, RoomsConfig{Games: game.Catalog{pong.Kind{}, tron.Kind{}}})
	mm, err := NewMatchmaker(rs, &Cooldowns{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return NewChallenges(cfg, rs, mm, nil), mm
}

func player(name string) game.Player { return game.Player{ID: game.PlayerID("id-" + name), Name: name} }

// The refusals a challenger reads before anyone is bothered.
func TestChallengeRefusals(t *testing.T) {
	cs, _ := challengeKit(t, ChallengeConfig{Rate: 2, Window: time.Hour})
	ann, bob, cat := cs.Open(player("ann")), cs.Open(player("bob")), cs.Open(player("cat"))
	if g := cs.Open(game.Player{ID: "g1", Name: "guest-1", Guest: true}); g != nil {
		t.Fatal("a guest got an inbox")
	}
	pong1 := ChallengeSpec{Game: "pong", Mode: "1v1"}
	for _, tc := range []struct {
		to   string
		spec ChallengeSpec
		want string
	}{
		{"ann", pong1, "can't challenge yourself"},
		{"dan", pong1, "Nobody named dan is online"},
		{"bob", ChallengeSpec{Game: "pong", Mode: "2v2", Ranked: true}, "needs 4 players"},
		{"bob", ChallengeSpec{Game: "tron", Mode: "tron-ffa"}, "ranked only"},
	} {
		if _, err := cs.Issue(ann, tc.to, tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: %v, want %q", tc.to, tc.spec, err, tc.want)
		}
	}
	if _, err := cs.Issue(ann, "BOB", pong1); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Issue(ann, "cat", pong1); err == nil || !strings.Contains(err.Error(), "already challenging bob") {
		t.Fatalf("a second challenge at once: %v", err)
	}
	if _, err := cs.Decline(bob, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Issue(ann, "bob", pong1); err == nil || !strings.Contains(err.Error(), "bob declined your challenge lately") {
		t.Fatalf("challenging again after a no: %v", err)
	}
	if _, err := cs.Issue(ann, "cat", pong1); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Cancel(ann); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Issue(ann, "cat", pong1); err == nil || !strings.Contains(err.Error(), "You sent 2 challenges in the last 1h0m0s") {
		t.Fatalf("a third challenge in the window: %v", err)
	}
	// Cat's inbox heard of the challenge and of its withdrawal.
	ev, inc, _ := cat.Take()
	if len(inc) != 0 || len(ev) != 2 || !strings.Contains(ev[0].Text, "ann challenges you") || !strings.Contains(ev[1].Text, "withdrew") {
		t.Fatalf("cat's inbox: %+v, incoming %v", ev, inc)
	}
}

// A challenge to someone whose last session closes is off, and the
// challenger is told.
func TestChallengeEndsWhenTheChallengedLeaves(t *testing.T) {
	cs, _ := challengeKit(t, ChallengeConfig{})
	ann, bob := cs.Open(player("ann")), cs.Open(player("bob"))
	bob2 := cs.Open(player("bob"))
	if _, err := cs.Issue(ann, "bob", ChallengeSpec{Game: "pong", Mode: "1v1"}); err != nil {
		t.Fatal(err)
	}
	bob.Close()
	if _, inc, _ := bob2.Take(); len(inc) != 1 {
		t.Fatalf("bob's other terminal lost the challenge when one closed: %v", inc)
	}
	bob2.Close()
	ev, _, out := ann.Take()
	if out != nil || len(ev) != 1 || !strings.Contains(ev[0].Text, "bob went offline") {
		t.Fatalf("ann's inbox after bob left: %+v, outgoing %v", ev, out)
	}
}

// An accepted ranked challenge is a ranked room the matchmaker knows:
// both hold a seat in it, so neither can queue or be challenged again
// until it ends.
func TestRankedChallengeIsARankedMatch(t *testing.T) {
	cs, mm := challengeKit(t, ChallengeConfig{})
	ann, bob := cs.Open(player("ann")), cs.Open(player("bob"))
	cs.Open(player("cat"))
	if _, err := cs.Issue(ann, "bob", ChallengeSpec{Game: "pong", Mode: "1v1", Ranked: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Accept(bob, "ann"); err != nil {
		t.Fatal(err)
	}
	ev, _, _ := ann.Take()
	if len(ev) != 1 || ev[0].Start == nil {
		t.Fatalf("ann got no room: %+v", ev)
	}
	r := ev[0].Start.Room
	if r.Ranked != "pong-1v1" || r.Seats["id-ann"] != 0 || r.Seats["id-bob"] != 1 {
		t.Fatalf("room %s ranked %q seats %v", r.ID(), r.Ranked, r.Seats)
	}
	if got := mm.InMatch("id-ann"); got != r {
		t.Fatalf("the matchmaker does not hold ann's seat in %s: %v", r.ID(), got)
	}
	if _, err := mm.Join("pong-1v1", "id-bob", "bob", 1500); !errors.Is(err, ErrInMatch) {
		t.Fatalf("bob queued while holding a ranked challenge's seat: %v", err)
	}
	cat := cs.inboxes["id-cat"][0]
	if _, err := cs.Issue(cat, "ann", ChallengeSpec{Game: "pong", Mode: "1v1"}); err == nil || !strings.Contains(err.Error(), "ann is playing a ranked match") {
		t.Fatalf("challenging a player in a ranked match: %v", err)
	}
}

// A quick match seats two players of a team mode on opposite teams.
func TestSpreadSlot(t *testing.T) {
	m2v2 := game.Mode{Seats: 4, Teams: [][]int{{0, 1}, {2, 3}}}
	for i, want := range []int{0, 2, 1, 3} {
		if got := spreadSlot(m2v2, i); got != want {
			t.Errorf("2v2 player %d: slot %d, want %d", i, got, want)
		}
	}
	if got := spreadSlot(game.Mode{Seats: 4}, 3); got != 3 {
		t.Errorf("ffa player 3: slot %d", got)
	}
}

// A session that reads its inbox through its own loop (OpenWaking) is
// woken once for news until it takes it, then again for the next.
func TestInboxWakesItsSession(t *testing.T) {
	cs, _ := challengeKit(t, ChallengeConfig{})
	var wakes int
	ann := cs.Open(player("ann"))
	bob := cs.OpenWaking(player("bob"), func() { wakes++ }) // called under cs.mu: no race
	pong1 := ChallengeSpec{Game: "pong", Mode: "1v1"}
	if _, err := cs.Issue(ann, "bob", pong1); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Cancel(ann); err != nil {
		t.Fatal(err)
	}
	cs.mu.Lock()
	got := wakes
	cs.mu.Unlock()
	if got != 1 {
		t.Fatalf("an offer and its cancel woke bob %d times before he looked, want 1", got)
	}
	if ev, _, _ := bob.Take(); len(ev) != 2 {
		t.Fatalf("bob took %+v, want the offer and the cancel", ev)
	}
	if _, err := cs.Issue(ann, "bob", pong1); err != nil {
		t.Fatal(err)
	}
	cs.mu.Lock()
	got = wakes
	cs.mu.Unlock()
	if got != 2 {
		t.Fatalf("a new offer after bob looked: %d wakes, want 2", got)
	}
}
