package server_test

import (
	"fmt"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// playingSessionGoroutines is the most goroutines one playing session may
// keep, its connection's included. The SSH libraries keep 5 a connection
// (the transport's reader and its kex loop, the mux loop, the connection
// handler and its global requests); the session keeps its request loop,
// the play loop and the one input reader. The game screen runs in the play
// loop (9 with a goroutine of its own), and the lobby's waiting commands
// (the chat's next line, the room's end, the online count, its clock) are
// waited for by it, not by a goroutine each. With Bubble Tea running
// during play it was 19.
const playingSessionGoroutines = 8

// census is the goroutines running now, by the function they were started
// with, for a failure message.
func census() (stacks string, byStart map[string]int) {
	buf := make([]byte, 4<<20)
	stacks = string(buf[:runtime.Stack(buf, true)])
	byStart = map[string]int{}
	created := regexp.MustCompile(`created by ([^\s]+)`)
	for _, g := range strings.Split(stacks, "\n\n") {
		if m := created.FindStringSubmatch(g); m != nil {
			byStart[m[1]]++
		}
	}
	return stacks, byStart
}

// sessionGoroutines counts the server's goroutines for its connections and
// sessions in a census taken in the test's process, where the clients'
// goroutines run too: each connection has a mux loop on both ends.
func sessionGoroutines(byStart map[string]int) int {
	n := byStart["golang.org/x/crypto/ssh.newMux"] / 2
	for k, c := range byStart {
		switch {
		case k == "charm.land/ssh.(*Server).Serve", k == "charm.land/ssh.(*Server).handleConn",
			k == "golang.org/x/crypto/ssh.newServerTransport",
			strings.HasPrefix(k, "github.com/termarena/termarena/server."),
			strings.HasPrefix(k, "github.com/termarena/termarena/tui."),
			strings.HasPrefix(k, "charm.land/bubbletea/"):
			n += c
		}
	}
	return n
}

func censusText(byStart map[string]int) string {
	var lines []string
	for k, n := range byStart {
		lines = append(lines, fmt.Sprintf("%3d %s", n, k))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// During a match the menu's Bubble Tea program has ended: no event loop,
// renderer or command goroutine of it runs, and a playing session keeps a
// handful of goroutines; back in the lobby the menu runs again.
func TestPlayingSessionRunsNoMenuProgram(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room:  game.RoomConfig{Countdown: time.Second, Grace: 20 * time.Second},
		Games: game.Catalog{pong.Kind{}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)

	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 200, 50, "join r1")
	bob.WaitFor(wait, "alice", "bob", "(you)")
	alice.Type("r")
	bob.Type("r")
	alice.WaitFor(wait, "▸alice 0", "bob 0")
	bob.WaitFor(wait, "alice 0", "▸bob 0")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the match to start", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })

	// Keys and chat still work in play: a paddle key and a chat line.
	alice.Type("w")
	alice.Type("t")
	alice.Type("hi bob\r")
	bob.WaitFor(wait, "alice: hi bob")

	var stacks string
	var byStart map[string]int
	perSession := 0
	deadline := time.Now().Add(wait)
	for {
		stacks, byStart = census()
		perSession = sessionGoroutines(byStart) / 2
		menu := strings.Contains(stacks, "created by charm.land/bubbletea/v2.(*Program)") || strings.Contains(stacks, "bubbletea/v2.(*Program).eventLoop")
		if !menu && perSession <= playingSessionGoroutines {
			break
		}
		if time.Now().After(deadline) {
			if menu {
				t.Errorf("a Bubble Tea program runs during play")
			}
			t.Fatalf("%d goroutines a playing session, want at most %d:\n%s\n\n%s", perSession, playingSessionGoroutines, censusText(byStart), stacks)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%d goroutines a playing session:\n%s", perSession, censusText(byStart))

	// Back in the lobby, the menu runs again and takes keys.
	alice.Type("q")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("?")
	alice.WaitFor(wait, "Keys")
}

// A player who leaves a match finds the lobby as they left it: the menu
// program is rebuilt from the lobby's state, with the room they had
// picked in the list still picked.
func TestBackFromAMatchTheLobbyIsAsLeft(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	for _, name := range []string{"bob", "carol"} {
		p := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config(name, sshtest.NewKey(t))), 80, 24, "")
		p.WaitFor(wait, "Welcome, "+name+"!")
		p.Type("c")
		p.WaitFor(wait, "New room")
		p.Type("\r")
		p.WaitFor(wait, "· 1v1 · casual")
	}
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!", "▸ r1")
	alice.Type("\x1b[B") // down: r2
	alice.WaitFor(wait, "▸ r2")
	alice.Type("\r")
	alice.WaitFor(wait, "r2 · 1v1 · casual", "carol", "(you)")
	alice.Type("q")
	scr := alice.WaitFor(wait, "Welcome, alice!", "▸ r2")
	if strings.Contains(scr, "▸ r1") {
		t.Fatalf("back in the lobby, r1 is picked again:\n%s", scr)
	}
	alice.Type("\r") // the same room again, from the same pick
	alice.WaitFor(wait, "r2 · 1v1 · casual", "carol", "(you)")
}
