package server_test

import (
	"net"
	"sync/atomic"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// probeCounter is an SSH client that counts the server's keepalive
// probes as it answers them.
type probeCounter struct {
	*gossh.Client
	probes atomic.Int64
}

func dialCounting(t *testing.T, addr, user string) *probeCounter {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	return countProbes(t, conn, addr, user)
}

// countProbes logs in as user over conn, counting the server's probes.
func countProbes(t *testing.T, conn net.Conn, addr, user string) *probeCounter {
	t.Helper()
	cc, chans, reqs, err := gossh.NewClientConn(conn, addr, sshtest.Config(user, sshtest.NewKey(t)))
	if err != nil {
		t.Fatal(err)
	}
	pc := &probeCounter{}
	own := make(chan *gossh.Request)
	close(own) // the client's own handling sees none
	pc.Client = gossh.NewClient(cc, chans, own)
	go func() {
		for r := range reqs {
			if r.Type == "keepalive@openssh.com" {
				pc.probes.Add(1)
			}
			if r.WantReply {
				_ = r.Reply(false, nil)
			}
		}
	}()
	t.Cleanup(func() { pc.Close() })
	return pc
}

// An idle lobby's connection is never asked for a reply: the kernel's TCP
// keepalive finds a dead link there, and the process wakes for nothing
// (issue 21: asked after every 5 s of silence, the probe was what still
// woke 1,000 idle lobbies); a player in a match, whose HUD shows the round
// trip, is asked every 2 s as before. Either way a live client is never
// dropped.
func TestIdleLobbyIsNotProbed(t *testing.T) {
	cfg := server.DefaultConfig() // client timeout 10 s: the menus were asked after 5 s of silence
	long := lobby.RoomsConfig{Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
		c := pong.DefaultConfig(m)
		c.PointsToWin = 99 // still in play when the test ends
		return c
	}}}}
	h := startWith(t, t.TempDir(), cfg, nil, long)
	idle := dialCounting(t, h.Addr, "idle")
	lobby := sshtest.Open(t, idle.Client, 80, 24, "")
	lobby.WaitFor(wait, "Welcome, idle!")
	player := dialCounting(t, h.Addr, "player")
	room := sshtest.Open(t, player.Client, 80, 24, "practice 1v1 --level 1")
	room.WaitFor(wait, "practice, bots level 1", "(you)")
	room.Type("r")
	waitUntil(t, "the practice match to be played", wait, func() bool {
		fr, _ := h.Rooms.All()[0].Latest()
		return fr != nil && fr.Phase == game.Playing
	})

	i0, p0 := idle.probes.Load(), player.probes.Load()
	const span = 9 * time.Second
	time.Sleep(span)
	di, dp := idle.probes.Load()-i0, player.probes.Load()-p0
	t.Logf("in %s: the idle lobby was asked %d times, the player in a match %d", span, di, dp)
	if di != 0 {
		t.Errorf("an idle lobby was asked for a reply %d times in %s; want none (the kernel's keepalive watches it)", di, span)
	}
	if dp < 3 {
		t.Errorf("a player in a match was asked %d times in %s; want one every 2 s for the HUD's round trip", dp, span)
	}
	for name, tm := range map[string]*sshtest.Term{"idle": lobby, "player": room} {
		select {
		case <-tm.Ended():
			t.Errorf("the live %s session was dropped:\n%s", name, tm.Screen())
		default:
		}
	}
}
