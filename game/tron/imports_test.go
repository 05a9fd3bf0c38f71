package tron

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestImportsOnlyStdAndGame keeps the rules free of terminal code (and of
// anything else that could make them nondeterministic or heavy): non-test
// files import the standard library, the game package, game/sim and
// game/codec (the bounded reader of encodings) only.
func TestImportsOnlyStdAndGame(t *testing.T) {
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
			first, _, _ := strings.Cut(path, "/")
			switch path {
			case "github.com/termarena/termarena/game", "github.com/termarena/termarena/game/sim", "github.com/termarena/termarena/game/codec":
				continue
			}
			if strings.Contains(first, ".") {
				t.Errorf("%s imports %s", name, path)
			}
		}
		checked++
	}
	if checked < 5 {
		t.Fatalf("checked only %d files", checked)
	}
}
