package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The server's packages reach games only through the catalogue (games.go):
// none of them may depend on a game's own packages, so a new game is a
// folder under game/ and a line in games.go, and nothing else changes.
// Checked on the real import graph, as `go list -deps` reports it.
func TestServerPackagesNameNoGame(t *testing.T) {
	const mod = "github.com/termarena/termarena/"
	games := []string{mod + "game/pong", mod + "game/tron"}
	neutral := []string{"lobby", "tui", "spectator", "store", "rating", "chat", "admin", "server", "gameview"}
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
	for _, view := range []string{"game/pong/view", "game/tron/view"} {
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
