package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// live waits until r's match is counting down or in play.
func live(t *testing.T, r *lobby.Room) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for ri := r.Info(); !ri.Started || (ri.Phase != game.Countdown && ri.Phase != game.Playing); ri = r.Info() {
		if time.Now().After(deadline) {
			t.Fatalf("room %s never started (phase %v)", r.ID(), ri.Phase)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ranked starts a ranked pong-1v1 match between the two players, as the
// queue would.
func (lw *liveWorld) ranked(a, b string) *lobby.Room {
	lw.t.Helper()
	m := lobby.Match{Mode: "pong-1v1", Players: []lobby.Entry{{ID: a, Name: strings.TrimPrefix(a, "SHA256:")}, {ID: b, Name: strings.TrimPrefix(b, "SHA256:")}}}
	r, err := lw.rooms.CreateRanked(m)
	if err != nil {
		lw.t.Fatal(err)
	}
	for i, p := range m.Players {
		if _, err := r.Join(context.Background(), game.Player{ID: game.PlayerID(p.ID), Name: p.Name}, i); err != nil {
			lw.t.Fatal(err)
		}
	}
	live(lw.t, r)
	return r
}

// tvRoom is the room /tv.json (or path) says TV shows; "" for none.
func (lw *liveWorld) tvRoom(path string) string {
	lw.t.Helper()
	code, _, body := lw.get(path)
	if code != 200 {
		lw.t.Fatalf("%s: %d %s", path, code, body)
	}
	var v struct {
		Room *struct {
			ID string `json:"id"`
		} `json:"room"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		lw.t.Fatalf("%s: %v: %s", path, err, body)
	}
	if v.Room == nil {
		return ""
	}
	return v.Room.ID
}

// TV follows the best live match: ranked before casual, then the highest
// average rating, whatever order the rooms opened in; /tv.json and
// /tv/GAME say the same; when that match ends, TV's stream moves on to
// the next best.
func TestTVPicksRankedHighestAverageAndMovesOn(t *testing.T) {
	lw := newLiveWorld(t, 0)
	// hi1 and hi2 each beat lo1 and lo2: 1700 against 1300; the casual
	// room's players are the best of all (1900), yet a casual match.
	for _, p := range []string{"hi1", "hi2", "lo1", "lo2", "cas1", "cas2", "x1", "x2"} {
		lw.login("SHA256:"+p, p)
	}
	lw.rankedWin("SHA256:hi1", "SHA256:lo1", 200, false)
	lw.rankedWin("SHA256:hi2", "SHA256:lo2", 200, false)
	lw.rankedWin("SHA256:cas1", "SHA256:x1", 400, false)
	lw.rankedWin("SHA256:cas2", "SHA256:x2", 400, false)

	low := lw.ranked("SHA256:lo1", "SHA256:lo2")
	casual, err := lw.rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, name := range []string{"cas1", "cas2"} {
		id := game.PlayerID("SHA256:" + name)
		if _, err := casual.Join(ctx, game.Player{ID: id, Name: name}, i); err != nil {
			t.Fatal(err)
		}
		if err := casual.SetReady(ctx, id, true); err != nil {
			t.Fatal(err)
		}
	}
	live(t, casual)
	high := lw.ranked("SHA256:hi1", "SHA256:hi2")

	for _, path := range []string{"/tv.json", "/tv/pong.json"} {
		if got := lw.tvRoom(path); got != high.ID() {
			t.Errorf("%s shows %q, want the ranked match of the highest average %s (low ranked %s, casual %s)", path, got, high.ID(), low.ID(), casual.ID())
		}
	}
	lw.wantPage("/tv", 200, `href="/r/`+high.ID()+`">`)

	// The stream names the match it shows, and the next when it ends.
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	shown := lw.tvShown(sctx)
	nextRoom := func(what string) string {
		t.Helper()
		select {
		case id, ok := <-shown:
			if !ok {
				t.Fatalf("TV's stream ended before %s", what)
			}
			return id
		case <-time.After(15 * time.Second):
			t.Fatalf("TV's stream never named %s", what)
		}
		return ""
	}
	if got := nextRoom("the first match"); got != high.ID() {
		t.Fatalf("TV's stream shows %s first, want %s", got, high.ID())
	}
	high.Close()
	if got := nextRoom("the next match"); got != low.ID() {
		t.Errorf("after %s ended TV's stream shows %s, want the ranked %s before the casual %s", high.ID(), got, low.ID(), casual.ID())
	}
	if got := lw.tvRoom("/tv.json"); got != low.ID() {
		t.Errorf("after %s ended /tv.json shows %q, want %s", high.ID(), got, low.ID())
	}
}

// tvShown opens TV's stream and returns the rooms it names, in order; the
// channel closes when the stream ends.
func (lw *liveWorld) tvShown(ctx context.Context) <-chan string {
	lw.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", lw.srv.URL+"/tv/live", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		lw.t.Fatal(err)
	}
	lw.t.Cleanup(func() { resp.Body.Close() })
	shown := make(chan string, 16)
	go func() {
		defer close(shown)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			if e, ok := strings.CutPrefix(line, "event: "); ok {
				event = e
			}
			if d, ok := strings.CutPrefix(line, "data: "); ok && event == "room" {
				var v struct{ ID string }
				json.Unmarshal([]byte(d), &v)
				shown <- v.ID
			}
			if line == "" {
				event = ""
			}
		}
	}()
	return shown
}

// TV shows the next best match when it cannot watch the best one (it has
// all the watchers it takes), instead of saying no match is on.
func TestTVMovesOnWhenTheBestMatchCannotBeWatched(t *testing.T) {
	lw := newLiveWorld(t, 1)
	for _, p := range []string{"hi1", "hi2", "lo1", "lo2"} {
		lw.login("SHA256:"+p, p)
	}
	lw.rankedWin("SHA256:hi1", "SHA256:lo1", 200, false)
	lw.rankedWin("SHA256:hi2", "SHA256:lo2", 200, false)
	high := lw.ranked("SHA256:hi1", "SHA256:hi2")
	low := lw.ranked("SHA256:lo1", "SHA256:lo2")
	_, stop, err := high.Watch() // its one watcher
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	shown := lw.tvShown(ctx)
	select {
	case id, ok := <-shown:
		if !ok {
			t.Fatal("TV's stream ended when the best match had no room for it")
		}
		if id != low.ID() {
			t.Fatalf("TV shows %s, want %s: %s has all the watchers it takes", id, low.ID(), high.ID())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("TV showed nothing while %s could be watched (%s is full)", low.ID(), high.ID())
	}
}
