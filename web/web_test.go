package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/asciicast"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
	"github.com/termarena/termarena/web"
)

const (
	alice = "SHA256:alice"
	bob   = "SHA256:bob"
)

// world is a real store in a temp dir, a real room directory, and the web
// face over the service on them.
type world struct {
	t      *testing.T
	store  *bolt.Store
	rooms  *lobby.Rooms
	svc    *service.Service
	web    *web.Server
	start  time.Time
	online int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	start := time.Date(2026, 11, 22, 13, 51, 0, 0, time.UTC)
	st, err := bolt.Open(filepath.Join(t.TempDir(), "termarena.db"), bolt.Options{Now: func() time.Time { return start }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	rooms := lobby.NewRooms(t.Context(), lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	w := &world{t: t, store: st, rooms: rooms, svc: service.New(st, rooms).WithClock(func() time.Time { return start }), start: start}
	w.web, err = web.New(web.Deps{Queries: w.svc, Online: func() int { return w.online }}, web.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) login(fp, name string) {
	w.t.Helper()
	if _, _, err := w.store.Login(context.Background(), fp, "ssh-ed25519", name); err != nil {
		w.t.Fatal(err)
	}
}

// rankedWin records a ranked pong-1v1 match: winner beats loser 5:3, each
// moving by points and left established at ± 80 (leaderboards list only
// established ratings).
func (w *world) rankedWin(winner, loser string, points float64, replay bool) uint64 {
	w.t.Helper()
	m, err := w.store.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: "pong-1v1", Ranked: true, Room: "r1", Start: w.start.Add(13 * time.Minute),
		Duration: 32500 * time.Millisecond, Players: []store.MatchPlayer{
			{Fingerprint: winner, Slot: 0, Place: 1, Score: 5},
			{Fingerprint: loser, Slot: 1, Place: 2, Score: 3},
		}}, Rate: func(cur []store.Rating) ([]store.Rating, error) {
		cur[0].Deviation, cur[1].Deviation = 80, 80
		cur[0].Rating += points
		cur[0].Games++
		cur[0].Wins++
		cur[1].Rating -= points
		cur[1].Games++
		cur[1].Losses++
		return cur, nil
	}})
	if err != nil {
		w.t.Fatal(err)
	}
	if replay {
		if err := w.store.PutReplay(context.Background(), m.ID, []byte("replay bytes")); err != nil {
			w.t.Fatal(err)
		}
	}
	return m.ID
}

// get serves path and returns the status and the (uncompressed) body.
func (w *world) get(path string) (int, http.Header, string) {
	w.t.Helper()
	rec := httptest.NewRecorder()
	w.web.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Code, rec.Header(), rec.Body.String()
}

// wantJSON asserts path answers code with the JSON of want.
func (w *world) wantJSON(path string, code int, want any) {
	w.t.Helper()
	got, h, body := w.get(path)
	if got != code || h.Get("Content-Type") != "application/json" {
		w.t.Fatalf("%s: %d %s, want %d JSON: %s", path, got, h.Get("Content-Type"), code, body)
	}
	wantB, _ := json.Marshal(want)
	var a, b any
	json.Unmarshal([]byte(body), &a)
	json.Unmarshal(wantB, &b)
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	if !bytes.Equal(ab, bb) {
		w.t.Errorf("%s:\n got %s\nwant %s", path, ab, bb)
	}
}

// wantPage asserts path answers code with an HTML page holding every one
// of wants.
func (w *world) wantPage(path string, code int, wants ...string) string {
	w.t.Helper()
	got, h, body := w.get(path)
	if got != code || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		w.t.Fatalf("%s: %d %s, want %d HTML: %s", path, got, h.Get("Content-Type"), code, body)
	}
	text := html.UnescapeString(body)
	for _, s := range wants {
		if !strings.Contains(text, s) {
			w.t.Errorf("%s lacks %q:\n%s", path, s, body)
		}
	}
	return body
}

func TestHomeShowsOnlineRoomsAndLeaderboards(t *testing.T) {
	w := newWorld(t)
	w.login(alice, "alice")
	w.login(bob, "bob")
	w.rankedWin(alice, bob, 20, false)
	w.online = 2
	r, err := w.rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.rooms.Create("pong", "ffa", true); err != nil { // private: never listed
		t.Fatal(err)
	}
	if _, err := r.Join(context.Background(), game.Player{ID: alice, Name: "alice"}, 0); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(r.Info().Players) != 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	body := w.wantPage("/", 200, "2 players online", `<td><a href="/r/r1">r1</a></td>`, `<a href="/@/alice">alice</a>`, `<a href="/leaderboard/pong-1v1">pong-1v1</a>`, "1520",
		"No established ratings yet") // pong-2v2's board
	if strings.Contains(body, "<td>r2</td>") {
		t.Errorf("the front page lists a private room:\n%s", body)
	}
	want := web.Home{PlayersOnline: 2}
	want.Rooms, _ = w.svc.Rooms(t.Context())
	for _, m := range w.svc.Modes() {
		lb, _ := w.svc.Leaderboard(t.Context(), m, 5)
		want.Leaderboards = append(want.Leaderboards, lb)
	}
	w.wantJSON("/index.json", 200, want)
}

func TestLeaderboardPageAndJSONAgreeWithTheCommand(t *testing.T) {
	w := newWorld(t)
	w.login(alice, "alice")
	w.login(bob, "bob")
	w.rankedWin(alice, bob, 20, false)
	w.wantPage("/leaderboard/pong-1v1", 200, "pong-1v1 leaderboard", `<a href="/@/alice">alice</a></td><td>1520</td><td>80</td>`, `<a href="/@/bob">bob</a></td><td>1480</td><td>80</td>`,
		"listed once its ± (rating deviation) is under 110") // the ± as the command's ± column shows it
	// A board with no established rating says why, as the command does:
	// players with provisional ratings exist, they are not listed yet.
	w.wantPage("/leaderboard/pong-2v2", 200, "No established ratings yet", "listed once its ± (rating deviation) is under 110")
	lb, err := w.svc.Leaderboard(t.Context(), "pong-1v1", 100)
	if err != nil {
		t.Fatal(err)
	}
	w.wantJSON("/leaderboard/pong-1v1.json", 200, lb)
	// A short form goes to the one address of the board.
	if code, h, _ := w.get("/leaderboard/1v1.json"); code != 301 || h.Get("Location") != "/leaderboard/pong-1v1.json" {
		t.Errorf("short form: %d to %q", code, h.Get("Location"))
	}
	w.wantPage("/leaderboard/chess", 404, "unknown mode")
	w.wantJSON("/leaderboard/chess.json", 404, map[string]string{"error": `unknown mode "chess": want pong-1v1, pong-2v2, pong-ffa4`})
}

func TestProfilePageChartsTheRatingAndListsMatches(t *testing.T) {
	w := newWorld(t)
	w.login(alice, "alice")
	w.login(bob, "bob")
	w.rankedWin(alice, bob, 20, false)
	id := w.rankedWin(bob, alice, 5, false)
	// The rating with its ± and the rank, as `profile` shows them.
	body := w.wantPage("/@/alice", 200, "<h1>alice</h1>", "pong-1v1: 1500 → 1515 over 2 rated matches",
		"<td>1515 ± 80</td><td>#1 of 2</td>",
		`<a href="/m/`, "<svg", "<polyline")
	if n := strings.Count(body, `<circle class="dot"`); n != 3 {
		t.Errorf("the chart has %d points, want 3 (before, and after each of 2 matches)", n)
	}
	if !strings.Contains(body, `href="/m/`+itoa(id)+`"`) {
		t.Errorf("profile does not link match %d", id)
	}
	pr, err := w.svc.ProfileNamed(t.Context(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	w.wantJSON("/@/alice.json", 200, pr)
	w.wantPage("/@/nobody", 404, `no player named "nobody"`)
	w.wantJSON("/@/nobody.json", 404, map[string]string{"error": `no player named "nobody"`})
	// Markup in a name is text, never markup.
	_, _, body = w.get("/@/%3Cscript%3E")
	if strings.Contains(body, "<script>") {
		t.Errorf("a name in the path was written as markup:\n%s", body)
	}
}

func TestMatchPageShowsResultAndRatingChanges(t *testing.T) {
	w := newWorld(t)
	w.login(alice, "alice")
	w.login(bob, "bob")
	id := w.rankedWin(alice, bob, 20, true)
	w.wantPage("/m/"+itoa(id), 200, "Match #"+itoa(id), "pong-1v1 · ranked", "0:33",
		`<a href="/@/alice">alice</a></td><td>5</td><td>1500 → 1520</td><td>+20</td>`,
		`<a href="/@/bob">bob</a></td><td>3</td><td>1500 → 1480</td><td>-20</td>`)
	m, err := w.svc.Match(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	w.wantJSON("/m/"+itoa(id)+".json", 200, m)
	w.wantPage("/m/999", 404, "no match 999")
	w.wantJSON("/m/999.json", 404, map[string]string{"error": "no match 999"})
	w.wantJSON("/m/abc.json", 404, map[string]string{"error": `no match "abc"`})
}

func TestUnknownPathIsA404Page(t *testing.T) {
	w := newWorld(t)
	w.wantPage("/nothing/here", 404, "Not found")
	w.wantJSON("/nothing.json", 404, map[string]string{"error": `no page at "/nothing.json"`})
}

func TestEveryResponseIsLockedDown(t *testing.T) {
	w := newWorld(t)
	for _, path := range []string{"/", "/index.json", "/static/site.css", "/static/site.js", "/@/nobody"} {
		_, h, _ := w.get(path)
		if got := h.Get("Content-Security-Policy"); !strings.Contains(got, "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'") {
			t.Errorf("%s: CSP %q", path, got)
		}
		if h.Get("Set-Cookie") != "" {
			t.Errorf("%s sets a cookie", path)
		}
	}
	_, _, body := w.get("/")
	// No third-party requests: every src and href is our own.
	for _, attr := range []string{`src="http`, `href="http`, `src="//`, `href="//`, "style=", "<script>"} {
		if strings.Contains(body, attr) {
			t.Errorf("the front page has %s", attr)
		}
	}
	for _, path := range []string{"/", "/index.json"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", path, strings.NewReader("x=1"))
		w.web.ServeHTTP(rec, req)
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("POST %s: %d, want 405 (the web face writes nothing)", path, rec.Code)
		}
	}
}

func TestPagesAreCompressed(t *testing.T) {
	w := newWorld(t)
	w.login(alice, "alice")
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Accept-Encoding", "gzip, br")
	w.web.ServeHTTP(rec, req)
	if rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q", rec.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	page, err := io.ReadAll(zr)
	if err != nil || !strings.Contains(string(page), "<h1>termarena</h1>") {
		t.Errorf("the gzipped page: %v\n%s", err, page)
	}
}

// A panic in a request is that request's 500; the server serves on.
func TestAPanickingRequestFailsAlone(t *testing.T) {
	w := newWorld(t)
	pw, err := web.New(web.Deps{Queries: panicky{w.svc}}, web.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	pw.ServeHTTP(rec, httptest.NewRequest("GET", "/m/1", nil))
	if rec.Code != 500 {
		t.Errorf("a panicking page: %d, want 500", rec.Code)
	}
	rec = httptest.NewRecorder()
	pw.ServeHTTP(rec, httptest.NewRequest("GET", "/leaderboard/pong-1v1", nil))
	if rec.Code != 200 {
		t.Errorf("the next request: %d, want 200", rec.Code)
	}
}

type panicky struct{ *service.Service }

func (panicky) Match(context.Context, uint64) (service.Match, error) { panic("boom") }

// One address gets at most MaxConnsPerIP connections; the next is
// closed at once, and a closed one frees its place.
func TestConnectionsPerAddressAreCapped(t *testing.T) {
	w := newWorld(t)
	cfg := web.DefaultConfig()
	cfg.MaxConnsPerIP = 2
	s, err := web.New(web.Deps{Queries: w.svc}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	defer func() {
		s.Shutdown(context.Background())
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	open := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// answers: a request on c gets a response.
	answers := func(c net.Conn) bool {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "GET /static/site.js HTTP/1.1\r\nHost: x\r\n\r\n")
		buf := make([]byte, 12)
		n, _ := io.ReadFull(c, buf)
		return n == 12 && string(buf) == "HTTP/1.1 200"
	}
	a, b := open(), open()
	if !answers(a) || !answers(b) {
		t.Fatal("the first two connections are not served")
	}
	c := open()
	if answers(c) {
		t.Error("a third connection from one address was served")
	}
	a.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		d := open()
		ok := answers(d)
		d.Close()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed connection never freed its place")
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Close()
	c.Close()
}

func itoa(id uint64) string { return strconv.FormatUint(id, 10) }

// /m/ID.cast downloads the match's replay as asciicast v2, painted by the
// room screen; a match without one is a 404.
func TestMatchCastDownload(t *testing.T) {
	w := newWorld(t)
	data, err := os.ReadFile("../spectator/testdata/v3-pong-1v1-flat.replay")
	if err != nil {
		t.Fatal(err)
	}
	m, err := w.store.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: "casual-1v1", Room: "r1", Start: w.start, Duration: 16 * time.Second,
		Players: []store.MatchPlayer{{Slot: 0, Place: 1}, {Slot: 1, Place: 2}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.store.PutReplay(context.Background(), m.ID, data); err != nil {
		t.Fatal(err)
	}
	w.web, err = web.New(web.Deps{Queries: w.svc, Casts: asciicast.Exporter{Store: w.store, Games: games.Catalog(), Views: games.Views()}}, web.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	code, h, body := w.get("/m/" + itoa(m.ID) + ".cast")
	if code != 200 || h.Get("Content-Type") != "application/x-asciicast" || !strings.Contains(h.Get("Content-Disposition"), "attachment") {
		t.Fatalf("cast: %d %v", code, h)
	}
	first, rest, _ := strings.Cut(body, "\n")
	var hdr asciicast.Header
	if err := json.Unmarshal([]byte(first), &hdr); err != nil || hdr.Version != 2 || hdr.Width != 80 || hdr.Height != 24 {
		t.Errorf("header %q: %+v %v", first, hdr, err)
	}
	if !strings.Contains(rest, "game over") || strings.Count(rest, `, "o", `) < 10 {
		t.Errorf("the cast does not paint the match to its results (%d bytes)", len(rest))
	}
	w.wantPage("/m/"+itoa(m.ID), 200, `href="/m/`+itoa(m.ID)+`.cast"`)
	w.wantPage("/m/999.cast", 404, "no replay of match 999")
	w.wantPage("/m/x.cast", 404, `no replay of match "x"`)
}

// A practice match walked out of at 0–0 says "abandoned" on its page and
// in the player's history, as `matches` does, rather than listing a 2nd
// place behind a bot that never scored either.
func TestAbandonedMatchSaysSoOnItsPages(t *testing.T) {
	w := newWorld(t)
	w.login(alice, "alice")
	m, err := w.store.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: "practice-1v1", Room: "r2", Start: w.start.Add(20 * time.Minute),
		Duration: 3 * time.Second, Forfeit: true, Players: []store.MatchPlayer{
			{Fingerprint: alice, Slot: 0, Place: 2},
			{Name: "bot-L1", Slot: 1, Place: 1},
		}}})
	if err != nil {
		t.Fatal(err)
	}
	w.wantPage("/m/"+itoa(m.ID), 200, "practice-1v1 · casual", "<strong>abandoned</strong>: a player walked out before anyone scored")
	w.wantPage("/@/alice", 200, "practice-1v1 · abandoned")
}
