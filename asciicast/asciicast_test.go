package asciicast_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/hinshun/vt10x"

	"github.com/termarena/termarena/asciicast"
	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
)

// newStore is a real store holding the recorded 1v1 Pong match of the
// spectator's compatibility tests as match id.
func newStore(t *testing.T) (*bolt.Store, uint64) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "termarena.db"), bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	data, err := os.ReadFile("../spectator/testdata/v3-pong-1v1-flat.replay")
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: "casual-1v1", Room: "r1", Start: time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC), Duration: 10 * time.Second,
		Players: []store.MatchPlayer{{Slot: 0, Place: 1}, {Slot: 1, Place: 2}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutReplay(context.Background(), m.ID, data); err != nil {
		t.Fatal(err)
	}
	return st, m.ID
}

func export(t *testing.T) ([]byte, uint64) {
	t.Helper()
	st, id := newStore(t)
	var buf bytes.Buffer
	e := asciicast.Exporter{Store: st, Games: games.Catalog(), Views: games.Views()}
	if err := e.Export(context.Background(), id, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), id
}

func TestExportIsAsciicastV2(t *testing.T) {
	cast, id := export(t)
	sc := bufio.NewScanner(bytes.NewReader(cast))
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		t.Fatal("empty export")
	}
	var h asciicast.Header
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Version != 2 || h.Width != 80 || h.Height != 24 || !strings.Contains(h.Title, "match") {
		t.Fatalf("header %s: %+v %v", sc.Bytes(), h, err)
	}
	last, events := -1.0, 0
	for sc.Scan() {
		var ev [3]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("event %d %q: %v", events, sc.Bytes(), err)
		}
		at, ok := ev[0].(float64)
		if !ok || at < last || ev[1] != "o" {
			t.Fatalf("event %d: %v after %v", events, ev, last)
		}
		last = at
		events++
	}
	if events < 10 || last < 3 {
		t.Errorf("%d events over %.1fs: want a whole match painted", events, last)
	}
	e := asciicast.Exporter{Store: mustStore(t), Games: games.Catalog(), Views: games.Views()}
	var buf bytes.Buffer
	if err := e.Export(context.Background(), id+100, &buf); !errors.Is(err, asciicast.ErrNoReplay) || buf.Len() != 0 {
		t.Errorf("an unknown match: %v, %d bytes written", err, buf.Len())
	}
}

func mustStore(t *testing.T) *bolt.Store { st, _ := newStore(t); return st }

// asciinema itself reads the export, and what it prints ends on the room
// screen a replay viewer's terminal ends on: the score in the header, the
// court's border, the results and "replay over".
func TestAsciinemaReadsTheExport(t *testing.T) {
	bin, err := exec.LookPath("asciinema")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("asciinema is not installed (.ci/run installs it)")
		}
		t.Skip("asciinema is not installed")
	}
	cast, _ := export(t)
	f := filepath.Join(t.TempDir(), "m.cast")
	if err := os.WriteFile(f, cast, 0o600); err != nil {
		t.Fatal(err)
	}
	// asciinema cat reads keys from /dev/tty: it runs on a terminal.
	cmd := exec.Command(bin, "cat", f)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(tty) // EIO once asciinema exits
	if err := cmd.Wait(); err != nil {
		t.Fatalf("asciinema cat: %v\n%s", err, out)
	}
	vt := vt10x.New(vt10x.WithSize(80, 24))
	vt.Write(out)
	screen := vt.String()
	for _, want := range []string{"name-a 2  name-b 5", "▀▀▀▀▀▀▀▀", "game over", "1. name-b (5)", "replay over"} {
		if !strings.Contains(screen, want) {
			t.Errorf("asciinema's screen lacks %q:\n%s", want, screen)
		}
	}
}

// A .cast is played by asciinema or the match page's player, neither of
// which takes the SSH replay viewer's keys: no frame names them (space,
// +/-, ←/→, q), while the footer keeps the match clock and the results
// still say the replay is over.
func TestExportShowsNoViewerKeys(t *testing.T) {
	cast, _ := export(t)
	sc := bufio.NewScanner(bytes.NewReader(cast))
	sc.Buffer(nil, 1<<20)
	sc.Scan() // the header
	vt := vt10x.New(vt10x.WithSize(80, 24))
	clock := false
	for n := 0; sc.Scan(); n++ {
		var ev [3]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		vt.Write([]byte(ev[2].(string)))
		screen := vt.String()
		for _, key := range []string{"space pause", "+/- speed", "←/→", "q quit"} {
			if strings.Contains(screen, key) {
				t.Fatalf("frame %d names the viewer's key %q:\n%s", n, key, screen)
			}
		}
		clock = clock || strings.Contains(screen, " / 00:")
	}
	if !clock {
		t.Error("no frame shows the match clock")
	}
	if s := vt.String(); !strings.Contains(s, "replay over") {
		t.Errorf("the last frame does not say the replay is over:\n%s", s)
	}
}
