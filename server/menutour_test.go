package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// TestMenuTour is a measurement, not a check: with TERMARENA_MENU_TOUR set
// to a directory it walks the menus (lobby, someone arriving, chat with
// wide runes, help, the create dialog, the leaderboard, a profile, a
// resize and back) at 80×24 and 200×50, truecolor and NO_COLOR, and
// writes each step's screen (every cell's rune, colours and attributes on
// the emulator) and the bytes the client got, so that two builds' tours
// can be compared (diff the directories).
func TestMenuTour(t *testing.T) {
	dir := os.Getenv("TERMARENA_MENU_TOUR")
	if dir == "" {
		t.Skip("TERMARENA_MENU_TOUR=DIR writes the menus' tour there")
	}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		for _, env := range []string{"COLORTERM=truecolor", "NO_COLOR=1"} {
			name := fmt.Sprintf("%dx%d-%s", size[0], size[1], strings.Split(env, "=")[0])
			t.Run(name, func(t *testing.T) { menuTour(t, filepath.Join(dir, name), size[0], size[1], env) })
		}
	}
}

func menuTour(t *testing.T, out string, w, h int, env string) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	hs := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ann := sshtest.Open(t, sshtest.Dial(t, hs.Addr, sshtest.Config("ann", sshtest.NewKey(t))), w, h, "", env)
	var log strings.Builder
	step := 0
	settle := func(what string, want ...string) {
		t.Helper()
		ann.WaitFor(wait, want...)
		time.Sleep(400 * time.Millisecond)
		step++
		cw, ch := ann.Size()
		var b strings.Builder
		for y := range ch {
			for x := range cw {
				g := ann.Cell(x, y)
				fmt.Fprintf(&b, "%q/%d/%d/%x ", g.Char, g.FG, g.BG, g.Mode)
			}
			b.WriteByte('\n')
		}
		name := fmt.Sprintf("%02d-%s", step, what)
		if err := os.WriteFile(filepath.Join(out, name+".cells"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, name+".txt"), []byte(ann.Screen()), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&log, "%s %d\n", name, len(ann.Raw()))
	}
	settle("lobby", "Welcome, ann!", "1 player online")
	bob := sshtest.Open(t, sshtest.Dial(t, hs.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "")
	bob.WaitFor(wait, "Welcome, bob!")
	settle("arrival", "2 players online")
	bob.Type("t")
	bob.Type("hello 漢字 wörld\r")
	settle("chat", "hello")
	ann.Type("?")
	settle("help", "close help")
	ann.Type("?")
	settle("help-closed", "Welcome, ann!")
	ann.Type("c")
	settle("create", "New room")
	ann.Type("g")
	settle("create-game", "New room")
	ann.Type("\x1b")
	settle("create-closed", "Welcome, ann!")
	ann.Type("L")
	settle("leaderboard", "Leaderboard")
	ann.Type("\x1b")
	settle("leaderboard-closed", "Welcome, ann!")
	ann.Type("m")
	settle("me", "ann")
	ann.Type("\x1b")
	settle("me-closed", "Welcome, ann!")
	ann.Resize(w+10, h+3)
	settle("resized", "Welcome, ann!")
	ann.Resize(w, h)
	settle("resized-back", "Welcome, ann!")
	ann.Type("c")
	ann.Type("\r")
	settle("room", "r1 · 1v1 · casual")
	ann.Type("q")
	settle("back", "Welcome, ann!")
	ann.Type("\x03")
	<-ann.Ended()
	fmt.Fprintf(&log, "end %d\n", len(ann.Raw()))
	if err := os.WriteFile(filepath.Join(out, "bytes"), []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "raw"), ann.Raw(), 0o644); err != nil {
		t.Fatal(err)
	}
}
