package view

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The view is the game's side of the seam: it may draw on the screen grid,
// read the rules and meet the room screen's contract (gameview), but the
// server's packages (tui, lobby, server,
// spectator, …) must not leak into a game, or the game could not be
// plugged in without them.
func TestImportsOnlyTheScreenAndTheRules(t *testing.T) {
	allowed := map[string]bool{
		"github.com/termarena/termarena/game":      true,
		"github.com/termarena/termarena/game/tron": true,
		"github.com/termarena/termarena/gameview":  true,
		"github.com/termarena/termarena/screen":    true,
	}
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, e := range files {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/termarena/") && !allowed[path] {
				t.Errorf("%s imports %s", name, path)
			}
		}
		checked++
	}
	if checked < 4 {
		t.Fatalf("checked only %d files", checked)
	}
}
