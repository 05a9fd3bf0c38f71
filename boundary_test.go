package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gameDirs are the games' folders under game/: every folder there but
// the ones all games share (sim: their rules' helpers; codec: reading
// their encodings). Found on disk, so a new game is checked without a
// line here.
func gameDirs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("game")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "sim" && e.Name() != "codec" {
			dirs = append(dirs, filepath.ToSlash(filepath.Join("game", e.Name())))
		}
	}
	if len(dirs) < 2 {
		t.Fatalf("found games %v; want Pong and light cycles at least", dirs)
	}
	return dirs
}

// The server's packages reach games only through the list in games/ (the
// game.Kind and gameview.View it hands them): none of them may depend on
// a game's own packages, so a new game is a folder under game/ and a line
// in games/, and nothing else changes. Checked on the real import graph,
// as `go list -deps` reports it.
func TestServerPackagesNameNoGame(t *testing.T) {
	const mod = "github.com/termarena/termarena/"
	var games []string
	for _, d := range gameDirs(t) {
		games = append(games, mod+d)
	}
	neutral := []string{"lobby", "tui", "spectator", "store", "rating", "chat", "admin", "server", "gameview", "service", "commands", "web", "asciicast", "bot"}
	for _, pkg := range neutral {
		out, err := exec.Command("go", "list", "-deps", "./"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		var named []string
		for _, d := range deps {
			for _, g := range games {
				if d == g || strings.HasPrefix(d, g+"/") {
					named = append(named, d)
				}
			}
		}
		if len(named) > 0 {
			t.Errorf("%s depends on %v: it must reach games through game.Kind and gameview only", pkg, named)
		}
	}
}

// A game's view is the game's side of the seam: it meets the room
// screen's contract (gameview) and draws on the screen grid, and no
// server package leaks into it, or the game could not be plugged in
// without them.
func TestGameViewsNameNoServerPackage(t *testing.T) {
	const mod = "github.com/termarena/termarena/"
	server := []string{"lobby", "tui", "spectator", "store", "rating", "chat", "admin", "server", "telemetry"}
	for _, dir := range gameDirs(t) {
		view := dir + "/view"
		out, err := exec.Command("go", "list", "-deps", "./"+view).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v\n%s", view, err, out)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, mod+"gameview") {
			t.Errorf("%s does not implement the gameview contract", view)
		}
		for _, pkg := range server {
			if slices.Contains(deps, mod+pkg) {
				t.Errorf("%s depends on %s", view, pkg)
			}
		}
	}
}

// A game's bots (game/NAME/bot) are the game's side of the bot driver's
// seam: they play through package bot's contract, see only the game's
// snapshots, and no server package leaks into them, so a brain cannot
// read what a player's screen is not shown.
func TestGameBotsNameNoServerPackage(t *testing.T) {
	const mod = "github.com/termarena/termarena/"
	server := []string{"lobby", "tui", "spectator", "store", "rating", "chat", "admin", "server", "telemetry", "service", "commands", "gameview"}
	for _, dir := range gameDirs(t) {
		brains := dir + "/bot"
		if _, err := os.Stat(brains); err != nil {
			t.Errorf("%s has no bots: every game has practice bots", dir)
			continue
		}
		out, err := exec.Command("go", "list", "-deps", "./"+brains).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v\n%s", brains, err, out)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, mod+"bot") {
			t.Errorf("%s does not implement the bot contract", brains)
		}
		for _, pkg := range server {
			if slices.Contains(deps, mod+pkg) {
				t.Errorf("%s depends on %s", brains, pkg)
			}
		}
	}
}
