package web_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/termarena/termarena/asciicast"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/web"
)

// browser is Debian's chromium driven by chromedp; the test skips without
// it only outside CI (.ci/run installs it).
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := exec.LookPath("chromium"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed (.ci/run installs it)")
		}
		t.Skip("chromium is not installed")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath("chromium"), chromedp.WindowSize(1200, 900))
	if os.Getuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // chromium refuses root with its sandbox
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel3)
	return ctx
}

// A person's browser: the front page, a live room whose board moves
// between two screenshots, a profile, and a match with its replay.
func TestInARealBrowser(t *testing.T) {
	ctx := browser(t)
	w := newWorld(t)
	w.rooms = lobby.NewRooms(t.Context(), lobby.RoomsConfig{Room: game.RoomConfig{Countdown: time.Millisecond},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 99 // nobody defends: the match must outlast the test
			return c
		}}}})
	w.svc = service.New(w.store, w.rooms)
	w.login(alice, "alice")
	w.login(bob, "bob")
	data, err := os.ReadFile("../spectator/testdata/v3-pong-1v1-flat.replay")
	if err != nil {
		t.Fatal(err)
	}
	id := w.rankedWin(alice, bob, 20, false)
	if err := w.store.PutReplay(context.Background(), id, data); err != nil {
		t.Fatal(err)
	}
	w.web, err = web.New(web.Deps{Queries: w.svc, Rooms: w.rooms, Views: games.Views(), Ratings: w.store,
		Casts: asciicast.Exporter{Store: w.store, Games: games.Catalog(), Views: games.Views()}}, web.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(w.web)
	t.Cleanup(func() { w.web.Close(); srv.Close() })
	r, err := w.rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	// Both sit before either is ready: one ready alone would start a
	// lone warm-up first.
	players := []store.Player{{Fingerprint: alice, Name: "alice"}, {Fingerprint: bob, Name: "bob"}}
	for i, p := range players {
		if _, err := r.Join(context.Background(), game.Player{ID: game.PlayerID(p.Fingerprint), Name: p.Name}, i); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range players {
		if err := r.SetReady(context.Background(), game.PlayerID(p.Fingerprint), true); err != nil {
			t.Fatal(err)
		}
	}
	shots := t.TempDir()
	save := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(shots, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	text := func(css string) string {
		t.Helper()
		return must(t)(chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css))))
	}
	shot := func(name string, css string) []byte {
		t.Helper()
		var b []byte
		var err error
		if css == "" {
			b, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
		} else {
			b, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(css)))
		}
		if err != nil {
			t.Fatal(err)
		}
		save(name, b)
		return b
	}

	do(chromedp.Navigate(srv.URL + "/"))
	home := text("main")
	shot("home.png", "")
	for _, want := range []string{"Live rooms", "r1", "alice", "pong-1v1", "1520"} {
		if !strings.Contains(home, want) {
			t.Errorf("the front page in a browser lacks %q:\n%s", want, home)
		}
	}

	// The live board: drawn by the page's script from the stream, and
	// moving.
	do(chromedp.Navigate(srv.URL+"/r/r1"), chromedp.WaitVisible(chromedp.CSS("pre.term span")))
	first := shot("room-1.png", "pre.term")
	do(chromedp.Sleep(700 * time.Millisecond))
	second := shot("room-2.png", "pre.term")
	board, line := text("pre.term"), text("#line")
	if !strings.Contains(board, "watching r1") || !strings.Contains(board, "▀▀▀▀▀▀▀▀") || !strings.Contains(board, "alice") {
		t.Errorf("the browser's board is not the watcher's screen:\n%s", board)
	}
	if bytes.Equal(first, second) {
		t.Error("the live board did not change between two screenshots 0.7 s apart")
	}
	if !strings.Contains(line, "alice") || !strings.Contains(line, "bob") {
		t.Errorf("the aria-live line: %q", line)
	}

	do(chromedp.Navigate(srv.URL+"/@/alice"), chromedp.WaitVisible(chromedp.CSS("svg polyline")))
	shot("profile.png", "")
	if prof := text("main"); !strings.Contains(prof, "1500 → 1520") {
		t.Errorf("the profile in a browser:\n%s", prof)
	}

	do(chromedp.Navigate(srv.URL + "/m/" + itoa(id)))
	shot("match.png", "")
	if match := text("main"); !strings.Contains(match, "+20") || !strings.Contains(match, ".cast") {
		t.Errorf("the match page in a browser:\n%s", match)
	}
	// Its replay plays in the page from the .cast: the opening frame,
	// then play moves it on, a seek jumps, and the end shows the results.
	do(chromedp.WaitVisible(chromedp.CSS("#play")))
	if b := text("#player"); !strings.Contains(b, "name-a") || !strings.Contains(b, "00:00 / 00:16") || !strings.Contains(b, "▀▀▀▀") {
		t.Errorf("the replay's opening frame:\n%s", b)
	}
	at := func() float64 {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`parseFloat(document.getElementById("player").dataset.at)`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	do(chromedp.Click(chromedp.CSS("#play")), chromedp.Sleep(600*time.Millisecond))
	if a := at(); a <= 0 {
		t.Errorf("play did not move the replay on (at %v)", a)
	}
	do(chromedp.Click(chromedp.CSS("#play"))) // pause
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(){var s=document.getElementById("seek"); s.value=s.max; s.dispatchEvent(new Event("input")); return true})()`)); err != nil {
		t.Fatal(err)
	}
	if b := text("#player"); !strings.Contains(b, "game over") || !strings.Contains(b, "1. name-b (5)") {
		t.Errorf("the replay seeked to its end:\n%s", b)
	}
	shot("replay-end.png", "#player")
	if dir := os.Getenv("TERMARENA_SHOTS"); dir != "" { // to look at them
		for _, n := range []string{"home.png", "room-1.png", "room-2.png", "profile.png", "match.png", "replay-end.png"} {
			b, _ := os.ReadFile(filepath.Join(shots, n))
			os.WriteFile(filepath.Join(dir, n), b, 0o644)
		}
	}
}

// must fails the test on err, else returns v.
func must(t *testing.T) func(v string, err error) string {
	return func(v string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
