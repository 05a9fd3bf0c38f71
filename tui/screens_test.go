package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
)

// Names as long as names get (16 characters), so nothing fits by luck.
var longNames = [4]string{"alexandra-smith1", "bartholomew-jone", "christopher-lamb", "dorothea-winters"}

// match4 is a frame of a mode with every seat taken by a long name.
func match4(t testing.TB, mode pong.Mode) *game.Frame {
	t.Helper()
	g := pong.New(pong.DefaultConfig(mode), 42)
	var seats []game.Seat
	n := 4
	if mode == pong.OneVOne {
		n = 2
	}
	for slot := range n {
		if err := g.Join(slot); err != nil {
			t.Fatal(err)
		}
		seats = append(seats, game.Seat{Player: game.Player{ID: game.PlayerID(fmt.Sprint(slot)), Name: longNames[slot]}, Taken: true, Connected: true})
	}
	for range 5 {
		g.Step(nil)
	}
	return &game.Frame{Room: "r1", TickRate: 60, Phase: game.Playing, Seats: seats, Acks: make([]uint32, n), State: g.Snapshot(), Seed: 7}
}

// drawView paints fr once on a w×h terminal and returns the screen.
func drawView(t testing.TB, cfg RoomViewConfig, fr *game.Frame, w, h int) string {
	t.Helper()
	out := newVT(w, h)
	now := time.Unix(1000, 0)
	cfg.Room, cfg.Out, cfg.Width, cfg.Height = newFakeRoom(fr), out, w, h
	if cfg.Profile == 0 {
		cfg.Profile = colorprofile.ANSI256
	}
	cfg.Now = func() time.Time { return now }
	v := newTestRoomView(cfg)
	v.setFrame(fr, now)
	v.draw()
	return out.screen()
}

// Bug 6: 2v2 and free-for-all results, with rating changes, lose nothing
// on the left at 80 columns.
func TestResultsFitAt80x24(t *testing.T) {
	for _, mode := range []pong.Mode{pong.TwoVTwo, pong.FFA4} {
		fr := match4(t, mode)
		fr.Phase = game.Finished
		places := []int{1, 1, 2, 2}
		if mode == pong.FFA4 {
			places = []int{1, 2, 3, 4}
		}
		fr.Result = &game.Result{Places: places, Scores: []int{11, 11, 7, 7}}
		out := &lobby.Outcome{Seed: fr.Seed, Changes: []lobby.RatingChange{
			{Before: 1500, After: 1720, Games: 1, DeviationAfter: 396.7}, {Before: 1500, After: 1721, Games: 1, DeviationAfter: 396.7},
			{Before: 1500, After: 1280, Games: 1, DeviationAfter: 396.7}, {Before: 1500, After: 1279, Games: 1, DeviationAfter: 396.7}}}
		// With chat, as on the server: at 80 columns the pane goes beside
		// the 44-column board, and the results must fit the board.
		pane := &ChatLines{header: "chat · room r1"}
		for _, size := range [][2]int{{80, 24}, {200, 50}} {
			scr := drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1", Ranked: true,
				Outcome: func() *lobby.Outcome { return out }, Chat: func() *ChatLines { return pane }}, fr, size[0], size[1])
			want := []string{" game over ", "1720? +220", "1721? +221", "1280? -220", "1279? -221",
				"r rematch (0 ready) · n back to queue", "q leave", "chat · room r1"}
			want = append(want, longNames[:]...)
			if mode == pong.TwoVTwo {
				want = append(want, "1. team A (11)", "2. team B (7)")
			}
			for _, w := range want {
				if !strings.Contains(scr, w) {
					t.Fatalf("%v at %v: results lack %q:\n%s", mode, size, w, scr)
				}
			}
		}
	}
}

// A watcher or replay viewer never sees a player's prompt.
func TestViewersWithoutASeatSeeTheirOwnKeys(t *testing.T) {
	fr := match4(t, pong.OneVOne)
	cfg := RoomViewConfig{Slot: -1, Title: "watching r1", OverKeys: "match over · n next room · q back",
		WaitText: "waiting for the match to start · q back", Footer: func() (string, string) { return "watching r1", "q back" }}
	fr.Phase = game.Waiting
	if scr := drawView(t, cfg, fr, 80, 24); !strings.Contains(scr, "waiting for the match to start") || strings.Contains(scr, "r ready") {
		t.Fatalf("waiting, as a watcher:\n%s", scr)
	}
	if scr := drawView(t, cfg, nil, 80, 24); !strings.Contains(scr, "waiting for the match to start") || strings.Contains(scr, "r ready") {
		t.Fatalf("the delay filling, as a watcher:\n%s", scr)
	}
	fr.Phase, fr.Result = game.Finished, &game.Result{Places: []int{1, 2}, Scores: []int{11, 3}}
	scr := drawView(t, cfg, fr, 80, 24)
	if !strings.Contains(scr, "match over · n next room · q back") || strings.Contains(scr, "rematch") {
		t.Fatalf("results, as a watcher:\n%s", scr)
	}
}

// The footers of the watch and replay screens keep their q at 80 columns,
// with the chat marker and in follow mode.
func TestFooterKeepsItsKeysAt80Columns(t *testing.T) {
	for _, tc := range []struct{ follow, status, keys, mark, want string }{
		{"", "watching r12 · pong-ffa4 · ranked · 2s behind", "tab/1-4 follow · 0 overview · n/p next room · q back", "chat (3 new)", "n/p next room · q back · chat (3 new)"},
		{"following alexandra-smith1 1520? · 5 lives · 12 hits", "watching r12 · pong-ffa4 · ranked · 2s behind", "tab/1-4 follow · 0 overview · n/p next room · q back", "t chat", "q back"},
		// Following keeps the followed player's match, and the way out.
		{"following ann · 0 points · 0 hits", "watching r6 · 1v1 · casual", "tab/1-2 follow · 0 overview · n/p next room · q back", "t chat", "following ann · 0 points · 0 hits"},
		{"", "▶ 01:02 / 03:00 ██████░░░░░░ 1×", "space pause · +/- speed · ←/→ 10s · q quit", "t chat", "▶ 01:02 / 03:00 ██████░░░░░░ 1×   space pause · +/- speed · ←/→ 10s · q quit"},
	} {
		for _, w := range []int{80, 200} {
			got := fitFooter(w, tc.follow, tc.status, tc.keys, tc.mark, false, false)
			if len([]rune(got)) > w || !strings.Contains(got, tc.want) || !strings.Contains(got, "q back") && !strings.Contains(got, "q quit") {
				t.Errorf("at %d: %q, want it to hold %q", w, got, tc.want)
			}
		}
	}
}

// testStore is a real store in the test's directory.
func testStore(t testing.TB) *bolt.Store {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// rankedRoom is a ranked 1v1 room with ann and ben seated.
func rankedRoom(t testing.TB, rooms *lobby.Rooms) *lobby.Room {
	t.Helper()
	r, err := rooms.CreateRanked(lobby.Match{Mode: lobby.RankedMode("pong-1v1"), Players: []lobby.Entry{
		{ID: "SHA256:ann", Name: "ann"}, {ID: "SHA256:ben", Name: "ben"}}})
	if err != nil {
		t.Fatal(err)
	}
	for slot, name := range []string{"ann", "ben"} {
		if _, err := r.Join(context.Background(), game.Player{ID: game.PlayerID("SHA256:" + name), Name: name}, slot); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func testRooms(t testing.TB) *lobby.Rooms {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return lobby.NewRooms(ctx, lobby.RoomsConfig{MaxRooms: 100, Games: game.Catalog{pong.Kind{}}})
}

// Bug 14: the watch chooser reads ratings when its list changes, never
// while drawing: with the store gone after the list was read, every
// render still shows them.
func TestWatchChooserDoesNotReadTheStoreToDraw(t *testing.T) {
	st := testStore(t)
	rooms := testRooms(t)
	rankedRoom(t, rooms)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "SHA256:cat", Name: "cat"}, Online: lobby.NewHub(), Rooms: rooms, Store: st})
	m.w, m.h = 200, 50
	m.Update(tea.KeyPressMsg{Code: 'w', Text: "w"})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if scr := plain(m); !strings.Contains(scr, "pong-1v1 · ranked") || strings.Count(scr, "1500?") != 2 {
			t.Fatalf("the chooser lost the ratings it read:\n%s", scr)
		}
	}
}

// ... and counts: one read per ranked player when the list is read, none
// per render.
type countingRatings struct{ n int }

func (c *countingRatings) Rating(context.Context, string, string) (store.Rating, bool, error) {
	c.n++
	return store.Rating{Rating: 1500}, false, nil
}

func TestWatchChooserReadsRatingsOncePerList(t *testing.T) {
	rooms := testRooms(t)
	for range 2 {
		rankedRoom(t, rooms)
	}
	m := NewLobby(LobbyDeps{Ctx: context.Background(), Player: game.Player{ID: "x", Name: "cat"}, Online: lobby.NewHub(), Rooms: rooms})
	rr := &countingRatings{}
	m.ratings = rr
	m.openChooser("")
	for range 5 {
		m.render()
	}
	if rr.n != 4 {
		t.Fatalf("%d rating reads for two ranked rooms drawn five times, want 4", rr.n)
	}
}

// Bug 8: a guest pressing p, P or m is told why, in a notice that fits the
// box at 80×24.
func TestGuestRankedAndProfileNoticesFit(t *testing.T) {
	st := testStore(t)
	svc, err := lobby.Start(st, lobby.Config{Rooms: lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Stop)
	for _, key := range []string{"p", "P", "m"} {
		ctx, cancel := context.WithCancel(context.Background())
		m := chatLobby(t, newChat(t), chat.Member{ID: "guest:1", Name: "guest-1a2b", Guest: true}, LobbyDeps{Ctx: ctx, Rooms: svc.Rooms, Matchmaker: svc.Matchmaker, Store: st})
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		m.Update(tea.KeyPressMsg{Code: rune(key[0]), Text: key})
		scr := plain(m)
		want := "Guests can't play ranked: connect with an SSH key."
		if key == "m" {
			want = "Guests have no profile: connect with an SSH key."
		}
		if !strings.Contains(scr, want) || !strings.Contains(scr, "╭") || !strings.Contains(scr, "╰") {
			t.Fatalf("guest pressing %s at 80×24:\n%s", key, scr)
		}
		cancel()
	}
}

func TestWrapOverlayBreaksBetweenItems(t *testing.T) {
	got := wrapOverlay([]string{" game over ", " r rematch (0 ready) · n back to queue · q leave ", " alexandra-smith1 1500? + bartholomew-jone 1500? "}, 44)
	want := []string{" game over ", " r rematch (0 ready) · n back to queue ", " q leave ", " alexandra-smith1 1500? ", " + bartholomew-jone 1500? "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q", got)
	}
}

// Without colour the own paddle and a teammate's look different from the
// others'.
func TestNoColourMarksOwnAndTeamPaddles(t *testing.T) {
	fr := match4(t, pong.TwoVTwo)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		scr := drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1", Profile: colorprofile.Ascii}, fr, size[0], size[1])
		if !strings.Contains(scr, "▓") || !strings.Contains(scr, "▒") {
			t.Fatalf("no-colour 2v2 at %v: own (▓) or team (▒) paddle unmarked:\n%s", size, scr)
		}
		scr = drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1", Profile: colorprofile.ANSI256}, fr, size[0], size[1])
		if strings.ContainsAny(scr, "▓▒") {
			t.Fatalf("with colour the paddles need no marks:\n%s", scr)
		}
	}
	fr = match4(t, pong.FFA4)
	scr := drawView(t, RoomViewConfig{Me: "2", Slot: 2, Title: "r1", Profile: colorprofile.Ascii}, fr, 80, 24)
	if !strings.Contains(scr, "▓") || strings.Contains(scr, "▒") {
		t.Fatalf("no-colour free-for-all: only the own paddle is marked:\n%s", scr)
	}
}

// A player whose terminal is too small for the board learns that the
// match goes on, and is warned before it starts.
func TestTooSmallSaysTheMatchGoesOn(t *testing.T) {
	fr := match4(t, pong.OneVOne)
	scr := drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1"}, fr, 80, 20)
	if !strings.Contains(scr, "Terminal too small") || !strings.Contains(scr, "match in progress — enlarge the terminal") {
		t.Fatalf("too small during play:\n%s", scr)
	}
	fr.Phase = game.Waiting
	scr = drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1"}, fr, 80, 20)
	if !strings.Contains(scr, "too small for the board (need 76×22, have 80×20)") {
		t.Fatalf("too small before the match:\n%s", scr)
	}
	if scr := drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1"}, fr, 80, 24); strings.Contains(scr, "too small") {
		t.Fatalf("80×24 is big enough:\n%s", scr)
	}
	// At 40×12 the warning is wrapped, not cut at the edge (issue 20).
	scr = drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1"}, fr, 40, 12)
	if flat := strings.Join(strings.Fields(scr), " "); !strings.Contains(flat, "too small for the board (need 76×22, have 40×12): the match will not wait") {
		t.Fatalf("the warning at 40×12:\n%s", scr)
	}
}

// 2v2 shows teams: labels in the waiting room, and the header groups the
// teams with their score; names keep their 16 characters where there is
// room.
func TestTwoVTwoShowsTeams(t *testing.T) {
	fr := match4(t, pong.TwoVTwo)
	labels := func(slot int) string { return []string{"1520?", "1480?", "1510?", "1490?"}[slot] }
	fr.Phase = game.Waiting
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		scr := drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1", Labels: labels}, fr, size[0], size[1])
		for _, want := range []string{"left   team A  alexandra-smith1 1520?", "top    team B  christopher-lamb 1510?"} {
			if !strings.Contains(scr, want) {
				t.Fatalf("waiting room at %v lacks %q:\n%s", size, want, scr)
			}
		}
	}
	fr = match4(t, pong.TwoVTwo)
	scr := drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1", Labels: labels}, fr, 200, 50)
	if head := firstLine(scr); !strings.Contains(head, "A: ▸alexandra-smith1 1520? bartholomew-jone 1480? 0   B: christopher-lamb 1510? dorothea-winters 1490? 0") {
		t.Fatalf("2v2 header at 200 columns: %q", head)
	}
	// At 80 columns four such names cannot all be whole: they are
	// shortened alike, the teams and their score stay, two spaces clear
	// of the figures.
	scr = drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1", Labels: labels}, fr, 80, 24)
	if head := firstLine(scr); !strings.Contains(head, "A: ▸alexandra-sm… bartholomew-… 0   B: christopher-… dorothea-win… 0  ") {
		t.Fatalf("2v2 header at 80 columns: %q", head)
	}
	fr = match4(t, pong.OneVOne)
	scr = drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1", Labels: labels}, fr, 80, 24)
	if head := firstLine(scr); !strings.Contains(head, "▸alexandra-smith1 1520? 0  bartholomew-jone 1480? 0") {
		t.Fatalf("1v1 header at 80 columns: %q", head)
	}
	fr = match4(t, pong.FFA4)
	scr = drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1"}, fr, 200, 50)
	for _, n := range longNames {
		if !strings.Contains(firstLine(scr), n) {
			t.Fatalf("free-for-all header at 200 columns lacks %q: %q", n, firstLine(scr))
		}
	}
}

func firstLine(scr string) string { l, _, _ := strings.Cut(scr, "\n"); return l }

// 80×24 lists show what fits and say how many more there are; the chat
// marker keeps its line. At 200×50 the whole list shows.
func TestListsShowMoreThanThreeRowsAndAHint(t *testing.T) {
	st := testStore(t)
	svc, err := lobby.Start(st, lobby.Config{Rooms: lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Stop)
	for range 20 {
		if _, err := svc.Rooms.Create("pong", "1v1", false); err != nil {
			t.Fatal(err)
		}
	}
	board := make([]service.LeaderboardLine, 30)
	for i := range board {
		board[i] = service.LeaderboardLine{Rank: i + 1, Name: fmt.Sprintf("player%02d", i), Rating: 1600 - i, Display: strconv.Itoa(1600 - i), Games: 40}
	}
	rows := func(scr, prefix string) int {
		n := 0
		for _, l := range strings.Split(scr, "\n") {
			if strings.Contains(l, prefix) {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		name   string
		open   func(m *Lobby)
		prefix string
		total  int
	}{
		{"rooms", func(m *Lobby) {}, " 1v1  waiting", 20},
		{"watch", func(m *Lobby) { m.Update(tea.KeyPressMsg{Code: 'w', Text: "w"}) }, " casual ", 20},
		{"leaderboard", func(m *Lobby) {
			m.board = newBoard(m, m.queries, m.d.Ctx, "", m.rankedModes())
			m.board.rows = board
			m.show(m.board)
		}, "player", 30},
	} {
		for _, size := range [][2]int{{80, 24}, {200, 50}} {
			m := chatLobby(t, newChat(t), chatMember("ann"), LobbyDeps{Rooms: svc.Rooms, Matchmaker: svc.Matchmaker, Store: st})
			m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			tc.open(m)
			scr := plain(m)
			n := rows(scr, tc.prefix)
			if !strings.Contains(scr, "t chat") && !strings.Contains(scr, "t to chat") {
				t.Fatalf("%s at %v: the chat line is gone:\n%s", tc.name, size, scr)
			}
			if size[0] == 200 {
				if n != tc.total || strings.Contains(scr, "more") {
					t.Fatalf("%s at %v: %d rows of %d:\n%s", tc.name, size, n, tc.total, scr)
				}
				continue
			}
			if n <= 3 || !strings.Contains(scr, fmt.Sprintf("↓ %d more", tc.total-n)) {
				t.Fatalf("%s at %v: %d rows, want more than 3 and \"↓ %d more\":\n%s", tc.name, size, n, tc.total-n, scr)
			}
		}
	}
}

// A watched ranked player at 80 columns keeps both full names and ratings
// in the header: the frame rate gives way first.
func TestHeaderFiguresGiveWayToNamesAndRatings(t *testing.T) {
	fr := match4(t, pong.OneVOne)
	labels := func(slot int) string { return []string{"1520?", "1480?"}[slot] }
	scr := drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1", Labels: labels, Watchers: func() int { return 3 },
		RTT: func() time.Duration { return 42 * time.Millisecond }}, fr, 80, 24)
	if head := firstLine(scr); !strings.Contains(head, "▸alexandra-smith1 1520? 0  bartholomew-jone 1480? 0") || !strings.Contains(head, "3 watching") {
		t.Fatalf("header at 80 columns: %q", head)
	}
	scr = drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1", Labels: labels, Watchers: func() int { return 3 },
		RTT: func() time.Duration { return 42 * time.Millisecond }}, fr, 200, 50)
	if head := firstLine(scr); !strings.Contains(head, "3 watching · rtt 42ms · 30fps") {
		t.Fatalf("header at 200 columns: %q", head)
	}
}

// A client that stopped answering shows it in the header rather than the
// last round trip it measured, which is no longer true.
func TestHeaderShowsAnUnansweredProbeAsStale(t *testing.T) {
	fr := match4(t, pong.OneVOne)
	rtt := func() time.Duration { return 42 * time.Millisecond }
	for _, tc := range []struct {
		noReply time.Duration
		want    string
	}{
		{0, "rtt 42ms"},
		{500 * time.Millisecond, "rtt 42ms"},
		{6 * time.Second, "no reply 6s"},
	} {
		scr := drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1", RTT: rtt,
			NoReply: func() time.Duration { return tc.noReply }}, fr, 200, 50)
		if head := firstLine(scr); !strings.Contains(head, tc.want) || (tc.want != "rtt 42ms" && strings.Contains(head, "42ms")) {
			t.Errorf("no reply for %v: header %q, want %q", tc.noReply, head, tc.want)
		}
	}
}

// waitPhase waits (at most 10 s) until r's latest frame is in phase p.
func waitPhase(t testing.TB, r *lobby.Room, p game.Phase) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		fr, ch := r.Latest()
		if fr != nil && fr.Phase == p {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%s never reached %v", r.ID(), p)
		}
	}
}

// Issue 20 item 12: "Watch a live room" lists matches in play first; a
// finished room, though older, comes after.
func TestWatchListPutsLiveMatchesFirst(t *testing.T) {
	rooms := testRooms(t)
	done := rankedRoom(t, rooms)
	waitPhase(t, done, game.Countdown)
	if err := done.Leave(context.Background(), "SHA256:ann"); err != nil {
		t.Fatal(err)
	}
	waitPhase(t, done, game.Finished)
	live := rankedRoom(t, rooms)
	waitPhase(t, live, game.Countdown)
	m := NewLobby(LobbyDeps{Ctx: t.Context(), Player: game.Player{ID: "SHA256:cat", Name: "cat"}, Online: lobby.NewHub(), Rooms: rooms})
	m.w, m.h = 100, 30
	m.Update(tea.KeyPressMsg{Code: 'w', Text: "w"})
	scr := plain(m)
	i, j := strings.Index(scr, live.ID()+" "), strings.Index(scr, done.ID()+" ")
	if i < 0 || j < 0 || i > j {
		t.Fatalf("the live %s is not listed before the finished %s:\n%s", live.ID(), done.ID(), scr)
	}
	if m.chooser.live[0] != live {
		t.Fatalf("enter on the first row would watch %s, not the live %s", m.chooser.live[0].ID(), live.ID())
	}
	// A match that ends while the chooser is open moves down when the
	// rooms are seen to move on (Rooms.Shown), the cursor staying on the
	// room it was on.
	other := rankedRoom(t, rooms)
	waitPhase(t, other, game.Countdown)
	m.openChooser("") // as the list's change would re-read it
	press(m, "down")  // on other, the second live match
	if m.chooser.live[m.chooser.sel] != other {
		t.Fatalf("the cursor is on %s, want %s", m.chooser.live[m.chooser.sel].ID(), other.ID())
	}
	if err := live.Leave(context.Background(), "SHA256:ann"); err != nil {
		t.Fatal(err)
	}
	moved := rooms.Shown()
	waitPhase(t, live, game.Finished)
	select {
	case <-moved:
	case <-time.After(10 * time.Second):
		t.Fatal("the rooms' list was not told a match ended")
	}
	m.Update(liveMovedMsg{})
	if m.chooser.live[0] != other || m.chooser.live[m.chooser.sel] != other {
		t.Fatalf("after %s ended: first row %s, cursor on %s; want %s for both", live.ID(), m.chooser.live[0].ID(), m.chooser.live[m.chooser.sel].ID(), other.ID())
	}
}

// While the menus say "Terminal too small", the menu under it is not on
// screen: a key typed then must not act on it (c opened "New room", seen
// only on growing the window), and q quits, as the screen says.
func TestTooSmallMenusTakeOnlyQuit(t *testing.T) {
	m := NewLobby(LobbyDeps{Ctx: context.Background(), Player: game.Player{ID: "x", Name: "dan"}, Online: lobby.NewHub(), Rooms: testRooms(t)})
	m.Update(tea.WindowSizeMsg{Width: 30, Height: 8})
	if scr := plain(m); !strings.Contains(scr, "Terminal too small") {
		t.Fatalf("30×8:\n%s", scr)
	}
	for _, k := range []string{"c", "j", "\r"} {
		m.Update(tea.KeyPressMsg{Code: rune(k[0]), Text: k})
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if scr := plain(m); strings.Contains(scr, "New room") || strings.Contains(scr, "Join code") || !strings.Contains(scr, "Welcome, dan") {
		t.Fatalf("keys typed on the too-small screen acted on the menus:\n%s", scr)
	}
	m.Update(tea.WindowSizeMsg{Width: 30, Height: 8})
	if _, cmd := m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"}); !isQuit(cmd) {
		t.Fatal("q on the too-small screen did not quit")
	}
}
