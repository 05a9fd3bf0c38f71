package server_test

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

var onlineCount = regexp.MustCompile(`(\d+) players? online`)

// A lobby follows a burst of logins without redrawing for each: the
// count it shows moves at most about once a second while players keep
// arriving, yet the last arrival and a room created in the middle of the
// burst show within a few seconds, nothing lost (issue 21: every login
// redrew every lobby, so a hundred logins a second were a hundred
// redraws a second in each of a thousand lobbies).
func TestLobbyFollowsALoginBurstCoalesced(t *testing.T) {
	cfg := server.DefaultConfig()
	cfg.MaxConnsPerIP = 0
	h := start(t, t.TempDir(), cfg, nil)
	idle := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("idle", sshtest.NewKey(t))), 80, 24, "")
	idle.WaitFor(wait, "Welcome, idle!", "no open rooms")

	// What the idle lobby's count line shows, every few milliseconds.
	var mu sync.Mutex
	seen := map[int]bool{}
	stop := make(chan struct{})
	var watching sync.WaitGroup
	watching.Go(func() {
		for {
			if m := onlineCount.FindStringSubmatch(idle.Screen()); m != nil {
				var n int
				fmt.Sscan(m[1], &n)
				mu.Lock()
				seen[n] = true
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})

	const logins = 40
	began := time.Now()
	players := make([]*sshtest.Term, logins)
	for i := range logins {
		// Not waiting for each to arrive: a burst.
		players[i] = sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config(fmt.Sprintf("p%02d", i), sshtest.NewKey(t))), 80, 24, "")
		if i == logins/2 {
			p := players[i]
			p.WaitFor(wait, "Welcome, p20!")
			p.Type("c")
			p.WaitFor(wait, "New room")
			p.Type("\r")
			p.WaitFor(wait, "r1 · 1v1 · casual")
		}
	}
	for i, p := range players {
		if i != logins/2 { // in the room
			p.WaitFor(wait, fmt.Sprintf("Welcome, p%02d!", i))
		}
	}
	burst := time.Since(began)
	// Nothing lost: the last arrival and the room, soon after the burst.
	idle.WaitFor(3*time.Second, fmt.Sprintf("%d players online", logins+1), "r1", "1/2  p20")
	close(stop)
	watching.Wait()

	mu.Lock()
	defer mu.Unlock()
	// At most one count a second of the burst, the first at once and the
	// last after it (the count starts at 1, before the burst).
	allowed := int(math.Ceil(burst.Seconds())) + 3
	if len(seen) > allowed {
		t.Fatalf("the idle lobby's count showed %d different values during %d logins in %v (at most %d: about one a second)",
			len(seen), logins, burst.Round(time.Millisecond), allowed)
	}
	t.Logf("%d logins in %v: the idle lobby showed %d counts", logins, burst.Round(time.Millisecond), len(seen))
}

// The menus draw correctly after a resize and after coming back from a
// game screen resized meanwhile: the lobby a player sees is the one a
// player who just arrived at that size sees (the menus' renderer repaints
// whole after the game screen drew on the terminal).
func TestMenusDrawAfterResizeAndAfterAGameScreen(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "")
	bob.WaitFor(wait, "Welcome, bob!")
	bob.Type("c")
	bob.WaitFor(wait, "New room")
	bob.Type("\r")
	bob.WaitFor(wait, "r1 · 1v1 · casual")

	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "")
	ann.WaitFor(wait, "Welcome, ann!", "▸ r1")
	cat := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("cat", sshtest.NewKey(t))), 100, 30, "")
	cat.WaitFor(wait, "Welcome, cat!", "▸ r1", "3 players online")
	ann.WaitFor(wait, "3 players online")

	// A resize in the menus.
	ann.Resize(100, 30)
	sameLobby(t, ann, cat, "after a resize")

	// Into the room (the game screen draws), resized there, and back.
	ann.Type("\r")
	ann.WaitFor(wait, "r1 · 1v1 · casual", "(you)")
	ann.Resize(90, 26)
	cat.Resize(90, 26)
	ann.WaitFor(wait, "r1 · 1v1 · casual", "(you)")
	ann.Type("q")
	ann.WaitFor(wait, "Welcome, ann!", "▸ r1")
	sameLobby(t, ann, cat, "back from a game screen")
}

// sameLobby waits until a's lobby reads as b's does, but for the names.
func sameLobby(t *testing.T, a, b *sshtest.Term, when string) {
	t.Helper()
	norm := func(scr string) string {
		var out []string
		for _, line := range strings.Split(scr, "\n") {
			if onlineCount.MatchString(line) {
				continue // each lists the others
			}
			for _, n := range []string{"ann", "cat"} {
				line = strings.ReplaceAll(line, n, "xxx")
			}
			out = append(out, strings.TrimRight(line, " "))
		}
		return strings.Join(out, "\n")
	}
	deadline := time.Now().Add(wait)
	for {
		sa, sb := norm(a.Screen()), norm(b.Screen())
		if sa == sb {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s the lobby reads:\n%s\nwhere a player who just arrived sees:\n%s", when, a.Screen(), b.Screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Coming back from a room, the lobby is painted once: the menus repaint
// whole when the terminal comes back to them, and the room view's end
// asked for a clear screen that painted the whole lobby a second time
// (≈2 KB after every match, for nothing).
func TestBackFromARoomTheLobbyIsPaintedOnce(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "")
	bob.WaitFor(wait, "Welcome, bob!")
	bob.Type("c")
	bob.WaitFor(wait, "New room")
	bob.Type("\r")
	bob.WaitFor(wait, "r1 · 1v1 · casual")
	time.Sleep(300 * time.Millisecond) // the room screen drawn and settled
	before := len(bob.Raw())
	bob.Type("q")
	bob.WaitFor(wait, "Welcome, bob!")
	time.Sleep(time.Second) // anything the lobby would paint after
	after := string(bob.Raw()[before:])
	// The title is one run of one style: each paint writes it whole.
	if n := strings.Count(after, "t e r m a r e n a"); n != 1 {
		t.Fatalf("the lobby was painted %d times on the way back from the room (%d bytes), want once", n, len(after))
	}
}

// A lobby that let its cells go while it stood still writes nothing as it
// does, and shows the next change on a whole, correct screen: the same
// lobby a player who has just arrived sees.
func TestRestingLobbyShowsTheNextChangeWhole(t *testing.T) {
	cfg := server.DefaultConfig()
	cfg.MenuRestAfter = 200 * time.Millisecond
	h := start(t, t.TempDir(), cfg, nil)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "")
	ann.WaitFor(wait, "Welcome, ann!", "1 player online")
	quiet := len(ann.Raw())
	time.Sleep(time.Second) // rested
	if n := len(ann.Raw()) - quiet; n != 0 {
		t.Fatalf("the lobby wrote %d bytes while it stood still", n)
	}
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "")
	bob.WaitFor(wait, "Welcome, bob!", "2 players online")
	ann.WaitFor(wait, "2 players online")
	time.Sleep(300 * time.Millisecond)
	// Bob's lobby with the names swapped is ann's: the repaint after the
	// rest left nothing of the old screen and missed nothing of the new.
	want := strings.NewReplacer("Welcome, bob!", "Welcome, ann!", "ann (lobby)", "bob (lobby)").Replace(bob.Screen())
	if got := ann.Screen(); got != want {
		t.Fatalf("after resting ann's lobby shows\n%s\nwant\n%s", got, want)
	}
}
