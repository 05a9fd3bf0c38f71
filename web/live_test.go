package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/web"
)

// liveWorld serves the web face over a real room directory on a real
// listener (a live stream is a long response).
type liveWorld struct {
	*world
	srv *httptest.Server
}

func newLiveWorld(t *testing.T, maxWatchers int) *liveWorld {
	w := newWorld(t)
	w.rooms = lobby.NewRooms(t.Context(), lobby.RoomsConfig{MaxWatchers: maxWatchers, Room: game.RoomConfig{Countdown: time.Millisecond},
		Games: game.Catalog{pong.Kind{}}})
	w.svc = service.New(w.store, w.rooms)
	var err error
	w.web, err = web.New(web.Deps{Queries: w.svc, Rooms: w.rooms, Views: games.Views(), Ratings: w.store}, web.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(w.web)
	t.Cleanup(func() { w.web.Close(); srv.Close() })
	return &liveWorld{world: w, srv: srv}
}

// frame is a live event's data.
type frame struct {
	Rows [][][]any       `json:"rows"`
	Diff map[int][][]any `json:"diff"`
	Line string          `json:"line"`
}

func (f frame) text() string {
	var b strings.Builder
	for _, row := range f.Rows {
		for _, r := range row {
			b.WriteString(r[0].(string))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// stream opens /r/ref/live and returns its frames as they come; cancel
// closes it.
func (lw *liveWorld) stream(ref string) (frames <-chan frame, resp *http.Response, cancel func()) {
	lw.t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", lw.srv.URL+"/r/"+ref+"/live", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		lw.t.Fatal(err)
	}
	ch := make(chan frame, 1000)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var rows [][][]any // the screen as the diffs leave it
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "{}" {
				var f frame
				if json.Unmarshal([]byte(data), &f) != nil {
					continue
				}
				switch {
				case f.Rows != nil:
					rows = f.Rows
				case rows == nil:
					lw.t.Error("a diff came before any whole frame")
					continue
				default:
					rows = append([][][]any(nil), rows...)
					for y, r := range f.Diff {
						rows[y] = r
					}
				}
				f.Rows = rows
				ch <- f
			}
		}
	}()
	return ch, resp, func() { stop(); resp.Body.Close() }
}

func next(t *testing.T, frames <-chan frame, what string, ok func(frame) bool) frame {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case f, open := <-frames:
			if !open {
				t.Fatalf("the stream ended before %s", what)
			}
			if ok(f) {
				return f
			}
		case <-deadline:
			t.Fatalf("no frame with %s", what)
		}
	}
}

// A live room's page streams the frame an SSH watcher gets (header,
// court, footer), moving as the match does; the web viewer counts among
// the room's watchers while connected, and the text line says the score.
func TestLiveRoomStreamsTheWatchersScreen(t *testing.T) {
	lw := newLiveWorld(t, 0)
	r, err := lw.rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, name := range []string{"alice", "bob"} {
		if _, err := r.Join(ctx, game.Player{ID: game.PlayerID(name), Name: name}, i); err != nil {
			t.Fatal(err)
		}
	}
	lw.wantPage("/r/r1", 200, "Room r1", `aria-live="polite"`, `data-live="/r/r1/live"`, `<a href="/@/alice">alice</a>`,
		"<code>ssh -t HOST spectate r1</code>")
	// Once the server knows the address players reach it at, the page
	// gives the command that works (it printed "ssh -t host" before).
	lw.web.Advertise("play.example.com:2222")
	lw.wantPage("/r/r1", 200, "<code>ssh -p 2222 -t play.example.com spectate r1</code>")

	frames, resp, cancel := lw.stream("r1")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("live: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	first := next(t, frames, "the waiting screen", func(f frame) bool { return strings.Contains(f.text(), "watching r1") })
	if len(first.Rows) != 24 {
		t.Errorf("a frame has %d rows, want 24", len(first.Rows))
	}
	if r.Watchers() != 1 {
		t.Errorf("the room counts %d watchers with one web viewer, want 1", r.Watchers())
	}
	for _, name := range []string{"alice", "bob"} {
		if err := r.SetReady(ctx, game.PlayerID(name), true); err != nil {
			t.Fatal(err)
		}
	}
	// In play: the court's border is drawn, and the board moves.
	a := next(t, frames, "the court", func(f frame) bool {
		return strings.Contains(f.text(), "▀▀▀▀▀▀▀▀") && strings.Contains(f.Line, "alice 0")
	})
	next(t, frames, "a moved board", func(f frame) bool { return strings.Contains(f.text(), "▀▀▀▀") && f.text() != a.text() })
	// A viewer that keeps up is sent the rows that changed, not the
	// screen: a moving ball is a row or two.
	d := next(t, frames, "a diff", func(f frame) bool { return f.Diff != nil })
	if len(d.Diff) == 0 || len(d.Diff) > 12 {
		t.Errorf("a diff of %d rows while the ball moves", len(d.Diff))
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for r.Watchers() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the room still counts %d watchers after the viewer left", r.Watchers())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Private rooms are reached by their join code only; unknown rooms are a
// 404; a room with as many watchers as it takes refuses one more viewer.
func TestLiveRoomsAreFoundAsWatchersFindThem(t *testing.T) {
	lw := newLiveWorld(t, 1)
	if _, err := lw.rooms.Create("pong", "1v1", false); err != nil {
		t.Fatal(err)
	}
	priv, err := lw.rooms.Create("pong", "1v1", true)
	if err != nil {
		t.Fatal(err)
	}
	lw.wantPage("/r/"+priv.ID(), 404, "no live room")
	lw.wantJSON("/r/nope.json", 404, map[string]string{"error": `no live room "nope"`})
	lw.wantPage("/r/"+priv.Code, 200, "Room "+priv.ID())
	if resp, err := http.Get(lw.srv.URL + "/r/" + priv.ID() + "/live"); err != nil || resp.StatusCode != 404 {
		t.Errorf("a private room's stream by id: %v %v", resp, err)
	}
	_, resp, cancel := lw.stream("r1")
	defer cancel()
	if resp.StatusCode != 200 {
		t.Fatalf("first viewer: %d", resp.StatusCode)
	}
	second, err := http.Get(lw.srv.URL + "/r/r1/live")
	if err != nil {
		t.Fatal(err)
	}
	second.Body.Close()
	if second.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a viewer beyond the room's watchers: %d, want 503", second.StatusCode)
	}
}

// TV shows the live match (not a room waiting for players), names it,
// and streams its board; a game with no match live says so.
func TestTVFollowsTheLiveMatch(t *testing.T) {
	lw := newLiveWorld(t, 0)
	lw.rooms = lobby.NewRooms(t.Context(), lobby.RoomsConfig{Room: game.RoomConfig{Countdown: time.Millisecond}, Games: games.Catalog()})
	lw.svc = service.New(lw.store, lw.rooms)
	var err error
	lw.web, err = web.New(web.Deps{Queries: lw.svc, Rooms: lw.rooms, Views: games.Views()}, web.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	lw.srv.Config.Handler = lw.web
	if _, err := lw.rooms.Create("pong", "1v1", false); err != nil { // r1 waits
		t.Fatal(err)
	}
	lw.wantPage("/tv", 200, "no live match")
	r, err := lw.rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Both sit before either is ready: one ready alone would start a
	// lone warm-up, which is not the match TV follows.
	for i, name := range []string{"carol", "dave"} {
		if _, err := r.Join(ctx, game.Player{ID: game.PlayerID(name), Name: name}, i); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"carol", "dave"} {
		if err := r.SetReady(ctx, game.PlayerID(name), true); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for p := r.Info().Phase; p != game.Countdown && p != game.Playing; p = r.Info().Phase {
		if time.Now().After(deadline) {
			t.Fatal("the match never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	lw.wantPage("/tv", 200, `href="/r/r2">room r2</a>`, `data-live="/tv/live"`)
	lw.wantPage("/tv/tron", 200, "no live match", `data-live="/tv/tron/live"`)
	lw.wantPage("/tv/chess", 404, `no game named "chess"`)

	// Bounded, so that a TV that never shows the match fails the test
	// instead of hanging the package until its timeout.
	ctx2, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	req, _ := http.NewRequestWithContext(ctx2, "GET", lw.srv.URL+"/tv/live", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	// The board is read as a browser shows it: the diffs applied to the
	// last whole frame. The first whole frame may be painted before the
	// room's watcher feed has its first frame (a blank screen), and the
	// players' names then come in diffs only: a test that looked for them
	// in whole frames alone waited forever.
	var named bool
	var rows [][][]any
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if strings.Contains(data, `"id":"r2"`) {
			named = true
			continue
		}
		var f frame
		if !named || json.Unmarshal([]byte(data), &f) != nil {
			continue
		}
		switch {
		case f.Rows != nil:
			rows = f.Rows
		case rows == nil:
			continue
		default:
			for y, r := range f.Diff {
				rows[y] = r
			}
		}
		if strings.Contains(frame{Rows: rows}.text(), "carol") {
			return
		}
	}
	t.Fatalf("TV never named r2 and streamed its board (named %v): %v", named, sc.Err())
}
