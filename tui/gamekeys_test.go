package tui

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/screen"
)

// goid is the calling goroutine's number, from its stack header: a test
// may ask which goroutine calls a view, which nothing else needs to know.
func goid() uint64 {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	n, _ := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return n
}

// callerView is a game's view that notes which goroutines draw with it
// (its board or the waiting room's seats) and which ask it about keys.
type callerView struct {
	gameview.View
	mu      sync.Mutex
	painter map[uint64]bool
	mapper  map[uint64]bool
}

func (c *callerView) Paint(scr *screen.Screen, x, y, w, h int, snap any, v gameview.Viewer) {
	c.mu.Lock()
	c.painter[goid()] = true
	c.mu.Unlock()
	c.View.Paint(scr, x, y, w, h, snap, v)
}

func (c *callerView) SeatLabel(snap any, slot int) string {
	c.mu.Lock()
	c.painter[goid()] = true
	c.mu.Unlock()
	return c.View.SeatLabel(snap, slot)
}

func (c *callerView) Action(key string, seat int) (int8, bool) {
	c.mu.Lock()
	c.mapper[goid()] = true
	c.mu.Unlock()
	return c.View.Action(key, seat)
}

func (c *callerView) KeyHelp(seat int) string {
	c.mu.Lock()
	c.mapper[goid()] = true
	c.mu.Unlock()
	return c.View.KeyHelp(seat)
}

// The room screen maps a player's keys through the game's view on its own
// goroutine, the one that paints it: the session's key handling hands it
// the key as the terminal named it and never calls the view itself
// (issue 21), so a view needs no care for being called from two places.
func TestTheRoomScreenMapsGameKeysOnItsOwnGoroutine(t *testing.T) {
	rooms := testRooms(t)
	r, err := rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	var cv *callerView
	views := Views{"pong": func(base screen.Style, p colorprofile.Profile) gameview.View {
		cv = &callerView{View: games.Views()["pong"](base, p), painter: map[uint64]bool{}, mapper: map[uint64]bool{}}
		return cv
	}}
	out := newVT(80, 24)
	m := NewLobby(LobbyDeps{Ctx: t.Context(), Player: game.Player{ID: "SHA256:ann", Name: "ann"}, Online: lobby.NewHub(), Rooms: rooms,
		Views: views, Out: out})
	defer m.Detach(t.Context())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(joinMsg{room: r, side: -1})
	if m.seat() == nil {
		t.Fatalf("not in the room: %q", m.notice)
	}
	press(m, "w", "s", "?")
	deadline := time.Now().Add(5 * time.Second)
	for {
		cv.mu.Lock()
		mapped, painted := len(cv.mapper), len(cv.painter)
		cv.mu.Unlock()
		if mapped > 0 && painted > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the view mapped no key (%d) or painted nothing (%d)", mapped, painted)
		}
		time.Sleep(5 * time.Millisecond)
	}
	me := goid()
	cv.mu.Lock()
	defer cv.mu.Unlock()
	for g := range cv.mapper {
		if g == me {
			t.Fatalf("the session's key handling (goroutine %d) called the game's view", g)
		}
		if !cv.painter[g] && len(cv.painter) > 0 {
			t.Fatalf("keys were mapped on goroutine %d, the view painted on %v", g, cv.painter)
		}
	}
}
