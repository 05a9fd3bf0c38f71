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
	neutral := []string{"lobby", "spectator", "store", "rating", "chat", "admin"}
	// The room screen (tui) still paints Pong itself, and server runs the
	// tui; they move to the neutral list once the screen paints through a
	// game's view. Until then this test also fails when they stop naming
	// Pong, so the list cannot fall behind the code.
	notYet := []string{"tui", "server"}
	for _, pkg := range append(slices.Clone(neutral), notYet...) {
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
		switch {
		case slices.Contains(neutral, pkg) && len(named) > 0:
			t.Errorf("%s depends on %v: it must reach games through game.Kind only", pkg, named)
		case slices.Contains(notYet, pkg) && len(named) == 0:
			t.Errorf("%s no longer depends on a game: move it to the neutral list", pkg)
		}
	}
}
