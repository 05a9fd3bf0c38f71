package server_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

var onlineCount = regexp.MustCompile(`(\d+) players? online`)

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
