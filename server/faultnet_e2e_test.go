package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// These tests put Shopify's toxiproxy, in process, between a client and
// the real server, and break the network the way Wi-Fi and phones do.

// faultyLink is one toxiproxy proxy in front of the server; every client
// dialled through it gets the toxics added to it.
type faultyLink struct {
	t testing.TB
	p *toxiproxy.Proxy
}

func newFaultyLink(t testing.TB, upstream string) *faultyLink {
	t.Helper()
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(api, "termarena", "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		t.Fatalf("toxiproxy: %v", err)
	}
	t.Cleanup(p.Stop)
	return &faultyLink{t: t, p: p}
}

func (f *faultyLink) Addr() string { return f.p.Listen }

// add adds a toxic; attrs is its JSON attributes object.
func (f *faultyLink) add(name, typ, stream, attrs string) {
	f.t.Helper()
	body := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"toxicity":1,"attributes":%s}`, name, typ, stream, attrs)
	if _, err := f.p.Toxics.AddToxicJson(strings.NewReader(body)); err != nil {
		f.t.Fatalf("toxic %s: %v", name, err)
	}
}

// blackhole drops everything both ways and closes nothing: a link set down.
func (f *faultyLink) blackhole() {
	f.add("down-up", "timeout", "upstream", `{"timeout":0}`)
	f.add("down-down", "timeout", "downstream", `{"timeout":0}`)
}

// faultConfig is the server's default configuration with a client timeout
// short enough for a test.
func faultConfig() server.Config {
	cfg := server.DefaultConfig()
	cfg.ClientTimeout = 2 * time.Second
	return cfg
}

// startRanked1v1 seats ann (through addrAnn) and ben (through addrBen) in
// a ranked 1v1 and waits for play.
func startRanked1v1(t *testing.T, h *harness, addrAnn, addrBen string) (annKey gossh.Signer, ann, ben *sshtest.Term, room *lobby.Room) {
	t.Helper()
	ak, bk := sshtest.NewKey(t), sshtest.NewKey(t)
	ann = sshtest.Open(t, sshtest.Dial(t, addrAnn, sshtest.Config("ann", ak)), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben = sshtest.Open(t, sshtest.Dial(t, addrBen, sshtest.Config("ben", bk)), 80, 24, "play 1v1")
	ann.WaitFor(wait, "▸ann", "ben", "ranked")
	ben.WaitFor(wait, "ann", "▸ben", "ranked")
	waitUntil(t, "ranked play", 2*wait, func() bool {
		for _, r := range h.Rooms.All() {
			if fr, _ := r.Latest(); r.Ranked != "" && fr.Phase == game.Playing {
				room = r
				return true
			}
		}
		return false
	})
	return ak, ann, ben, room
}

// longMatch: nobody defends, and nobody wins before the test says so.
var longMatch = lobby.RoomsConfig{
	Room: game.RoomConfig{Countdown: time.Second, Grace: 30 * time.Second},
	Pong: func(m pong.Mode) pong.Config {
		c := pong.DefaultConfig(m)
		c.PointsToWin = 99
		return c
	},
}

// A player whose network dies silently in a ranked match (no FIN, no RST)
// is dropped after the client timeout: the room pauses with the grace
// notice on the opponent's screen, the seat waits, the same key takes it
// back, and the match counts once.
func TestBlackholedRankedPlayerKeepsTheSeat(t *testing.T) {
	h := startWith(t, t.TempDir(), faultConfig(), nil, longMatch)
	link := newFaultyLink(t, h.Addr)
	annKey, _, ben, room := startRanked1v1(t, h, link.Addr(), h.Addr)

	link.blackhole()
	cut := time.Now()
	// Bounded generously: the figure is logged, not asserted.
	ben.WaitFor(faultConfig().ClientTimeout+2*wait, "ann disconnected —")
	t.Logf("grace notice %v after the link went down (client timeout %v)", time.Since(cut).Round(100*time.Millisecond), faultConfig().ClientTimeout)
	if fr, _ := room.Latest(); !fr.Paused || fr.Seats[0].Connected {
		t.Fatalf("after the drop: paused %v, seat %+v", fr.Paused, fr.Seats[0])
	}

	// Back directly (a new network), same key: same seat, play resumes.
	ann2 := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "")
	ann2.WaitFor(wait, "▸ann")
	waitUntil(t, "the grace notice to clear", wait, func() bool { return !strings.Contains(ben.Screen(), "disconnected") })

	// Ann walks out: the ranked match ends with her loss, counted once.
	ann2.Type("q")
	ann2.Type("y")
	ann2.WaitFor(wait, "You left a ranked match: counted as a loss (-20, now 1480?).")
	ben.WaitFor(wait, "game over")
	for name, want := range map[string]int{"ann": 1480, "ben": 1520} {
		r := sshtest.Run(t, h.Addr, "someone", sshtest.NewKey(t), "profile "+name+" --json")
		var p profileOut
		if err := json.Unmarshal([]byte(r.Stdout), &p); err != nil {
			t.Fatalf("profile %s: %v: %+v", name, err, r)
		}
		if len(p.Ratings) != 1 || p.Ratings[0].Games != 1 || p.Ratings[0].Rating != want || len(p.Matches) != 1 {
			t.Fatalf("%s after one ranked match: ratings %+v matches %+v", name, p.Ratings, p.Matches)
		}
	}
}
