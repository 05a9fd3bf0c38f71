package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/lobby"
)

// Issue 20 item 6: in the ranked picker (P) light cycles' "t tron-ffa"
// opened chat instead of queueing. P then t queues for tron-ffa, with the
// server's real catalogue.
func TestRankedPickerTQueuesForTronFFA(t *testing.T) {
	st := testStore(t)
	svc, err := lobby.Start(st, lobby.Config{Rooms: lobby.RoomsConfig{Games: games.Catalog()}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Stop)
	m := chatLobby(t, newChat(t), chatMember("alice"), LobbyDeps{Rooms: svc.Rooms, Matchmaker: svc.Matchmaker, Store: st, Views: games.Views()})
	defer m.Detach(t.Context())
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	press(m, "P")
	if scr := plain(m); !strings.Contains(scr, "t tron-ffa") {
		t.Fatalf("the picker does not offer tron-ffa:\n%s", scr)
	}
	press(m, "t")
	if m.chat.typing {
		t.Fatal("t in the ranked picker opened chat")
	}
	if q := queuedIn(m); q == nil || q.ticket.Mode != "tron-ffa" {
		t.Fatalf("P then t: state %v, notice %q; want the tron-ffa queue:\n%s", m.state, m.notice, plain(m))
	}
}

// Every mode key of every game the server runs can be pressed in the
// dialog that lists it.
func TestEveryGameModeKeyIsFreeInItsMenu(t *testing.T) {
	if err := CheckModeKeys(games.Catalog()); err != nil {
		t.Fatal(err)
	}
}

// keyedKind is Pong with its modes' keys replaced.
type keyedKind struct {
	pong.Kind
	keys map[string]string // mode name → key
}

func (k keyedKind) Modes() []game.Mode {
	ms := k.Kind.Modes()
	for i := range ms {
		if key, ok := k.keys[ms[i].Name]; ok {
			ms[i].Key = key
		}
	}
	return ms
}

// A mode key that a dialog keeps for itself stops the server at start,
// with a message naming the game, the mode and the key.
func TestModeKeyCollidingWithAMenuKeyIsRefused(t *testing.T) {
	for _, tc := range []struct {
		keys map[string]string
		want string
	}{
		{map[string]string{"ffa": "q"}, `game pong, mode ffa: ranked menu key "q" is the ranked picker (P)'s key for "cancel"`},
		{map[string]string{"2v2": "g"}, `game pong, mode 2v2: casual menu key "g" is the create dialog (c)'s key for "switch game"`},
		{map[string]string{"1v1": "p"}, `game pong, mode 1v1: casual menu key "p"`},
		{map[string]string{"1v1": "enter"}, `game pong, mode 1v1: casual menu key "enter" is not one printable character`},
		{map[string]string{"1v1": " "}, `not one printable character`},
	} {
		err := CheckModeKeys(game.Catalog{keyedKind{keys: tc.keys}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("keys %v: got %v, want %q", tc.keys, err, tc.want)
		}
	}
	if err := CheckModeKeys(game.Catalog{keyedKind{keys: map[string]string{"1v1": "t"}}}); err != nil {
		t.Errorf("t is free in both dialogs (chat does not open from them): %v", err)
	}
}

// Issue 20 item 7: a ranked queue picked with the lobby's keys refuses a
// terminal too small for the mode's board, saying what it needs and what
// it has; one that fits queues.
func TestQueueRefusesATerminalTooSmallForTheMode(t *testing.T) {
	st := testStore(t)
	svc, err := lobby.Start(st, lobby.Config{Rooms: lobby.RoomsConfig{Games: games.Catalog()}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Stop)
	for _, tc := range []struct {
		w, h int
		keys []string
		want string // "" queues
	}{
		{40, 12, []string{"P", "2"}, "pong-2v2 needs a terminal of at least 44×24; yours is 40×12"},
		{70, 30, []string{"p"}, "pong-1v1 needs a terminal of at least 76×22; yours is 70×30"},
		{40, 12, []string{"P", "t"}, ""},
		{80, 24, []string{"P", "2"}, ""},
	} {
		m := chatLobby(t, newChat(t), chatMember("alice"), LobbyDeps{Rooms: svc.Rooms, Matchmaker: svc.Matchmaker, Store: st, Views: games.Views()})
		m.Update(tea.WindowSizeMsg{Width: tc.w, Height: tc.h})
		press(m, tc.keys...)
		queued := queuedIn(m) != nil
		m.leavePage()
		if tc.want == "" {
			if !queued {
				t.Errorf("%v at %d×%d did not queue: %q", tc.keys, tc.w, tc.h, m.notice)
			}
			continue
		}
		if queued || !strings.Contains(m.notice, tc.want) {
			t.Errorf("%v at %d×%d: queued %v, notice %q; want %q", tc.keys, tc.w, tc.h, queued, m.notice, tc.want)
		}
	}
}

// Each game's declared least size per mode is the one its board really
// needs: Size's least region for a new match of the mode.
func TestMinSizeIsTheBoardsLeastRegion(t *testing.T) {
	views := Views(games.Views())
	for _, k := range games.Catalog() {
		for _, md := range k.Modes() {
			setup, err := k.Setup(md.Name)
			if err != nil {
				t.Fatal(err)
			}
			g, err := k.New(setup.Config, 1)
			if err != nil {
				t.Fatal(err)
			}
			_, _, w, h := views.newGameView(k.Name(), 0).Size(g.Snapshot())
			mw, mh, ok := views.MinTerminal(k.Name(), md.Name)
			if !ok || mw != w || mh != h+chromeRows {
				t.Errorf("%s %s: MinTerminal %d×%d (%v), the board needs %d×%d and two rows", k.Name(), md.Name, mw, mh, ok, w, h)
			}
		}
	}
}

// Issue 20: ? in a game did nothing. It shows the game's keys for the
// player's seat over the room screen; ? again, or any other key, hides
// them (that key still does what it does).
func TestQuestionMarkInAGameShowsItsKeys(t *testing.T) {
	rooms := testRooms(t)
	r, err := rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	out := newVT(80, 24)
	m := NewLobby(LobbyDeps{Ctx: t.Context(), Player: game.Player{ID: "SHA256:ann", Name: "ann"}, Online: lobby.NewHub(), Rooms: rooms,
		Views: games.Views(), Out: out})
	defer m.Detach(t.Context())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(joinMsg{room: r, side: -1})
	if m.seat() == nil {
		t.Fatalf("not in the room: %q", m.notice)
	}
	help := func() string {
		return strings.Join(m.seat().view.ov.resolvePrompt(m.seat().view.ov.prompt.Load()), "\n")
	}
	press(m, "?")
	if h := help(); !strings.Contains(h, m.seat().view.cfg.Game.KeyHelp(m.seat().slot)) || !strings.Contains(h, "r  ready") || !strings.Contains(h, "q  leave") {
		t.Fatalf("? in a room shows %q", h)
	}
	// On the screen, in the waiting room too (there is no board yet).
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.screen(), "w/s ↑/↓ move") {
		if time.Now().After(deadline) {
			t.Fatalf("the waiting room does not show the keys:\n%s", out.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
	press(m, "?")
	if h := help(); h != "" {
		t.Fatalf("? again left %q", h)
	}
	press(m, "?")
	press(m, "r")
	if h := help(); h != "" {
		t.Fatalf("r left the help up: %q", h)
	}
	if m.seat() == nil {
		t.Fatal("r after the help left the room")
	}
}

// ... and a watcher's ? shows the watching keys whole, with the game's
// camera keys.
func TestQuestionMarkWhileWatchingShowsTheKeys(t *testing.T) {
	rooms := testRooms(t)
	r, err := rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	m := NewLobby(LobbyDeps{Ctx: t.Context(), Player: game.Player{ID: "SHA256:cat", Name: "cat"}, Online: lobby.NewHub(), Rooms: rooms,
		Views: games.Views(), Out: newVT(80, 24)})
	defer m.Detach(t.Context())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(spectateMsg{r.ID()})
	if watchOf(m) == nil {
		t.Fatalf("not watching: %q", m.notice)
	}
	help := func() string {
		return strings.Join(watchOf(m).view.ov.resolvePrompt(watchOf(m).view.ov.prompt.Load()), "\n")
	}
	press(m, "?")
	if h := help(); !strings.Contains(h, "tab/1-2 follow · 0 overview · n/p next room · q back") {
		t.Fatalf("? while watching shows %q", h)
	}
	press(m, "1")
	if h := help(); h != "" || watchOf(m).follow.Load() != 0 {
		t.Fatalf("1 after ?: help %q, following %d", h, watchOf(m).follow.Load())
	}
}
