// Package tui owns the Bubble Tea models players see: the lobby shell, help,
// the "terminal too small" screen, and the game, spectator and replay
// screens.
//
// The lobby (lobby.go) is a router over menu pages (page.go), one file
// each. Its home page is the rooms list (rooms.go), shown whenever no
// other page is up; the others are board.go (leaderboard), profile.go,
// chooser.go ("Watch a live room"), create.go (create dialog), joincode.go
// (join code), picker.go (ranked chooser) and queue.go (the ranked queue).
// The router keeps only what every screen shares: the terminal's size,
// the notice line, the chat pane, help, and the hand-offs to a room, a
// watch or a replay. A new menu screen is a new file with a type that
// implements page (update, view; modal if t must not open chat there,
// overRooms if it is drawn on the rooms list, leaver if it holds something
// past the session, placed if Where names it) over the narrow interfaces
// it needs (shell, or a hand-off the Lobby implements: joinHandOff,
// watchHandOff, queueHandOff, matchSeater), plus one entry in Lobby.menu
// (lobby.go): its key, its label in the rooms list's key line, and what
// the key opens. A key the help should explain also gets its words in
// helpText.
//
// A game screen is a model of its own (play.go's playScreen): a seat in
// a room (seat.go), a watch (watch.go), a replay (replay.go). Each owns
// its room view, its keys (the game's, its prompts, the ranked leave
// question, Ctrl-C), the chat line while it is up, and what happens at
// its room's end, which hands the session back to the menus (playEnd).
// While one is up the Lobby passes it the terminal's keys and sizes and
// keeps of the menus only the room the rooms list's cursor was on
// (menuState); the lists and drawn frames are built again on the way
// back. A new game screen is a new file implementing playScreen, and the
// Lobby method that starts it with startPlay (as join, spectate and
// startReplay do); routing, Where, the chat channel, resizes and Detach
// go through the interface.
//
// Every game screen draws through a room view (RoomView, roomview.go),
// which is the wiring of parts that each own their fields in a file of
// their own: framePace (framepace.go: the beats, the writes, a new size
// or palette), inputs (inputs.go and paddle.go: the player's keys into
// the game's inputs, and prediction), roomHUD (hud.go: header, footer),
// chatPane (chatview.go), roomOverlay (overlay.go: the message over the
// board, the prompt), waitScreen (waiting.go) and boardLayout (layout.go:
// where the board and the chat pane go). The board is the game's view
// (gameview.go). A new part is a new file with its type, a
// field of RoomView, and its call where RoomView paints (paint,
// paintBoard).
//
// Models never write to the terminal themselves and never look at the
// server's terminal: colour is decided per session by Bubble Tea from the
// client's environment, so styles here are written in full colour and
// downsampled (16 colours, NO_COLOR) by the program that renders them.
package tui

import (
	"fmt"
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// NoticeMsg is a message from outside the session's own flow (server
// restart, announcements). A Final notice ends the session once shown.
type NoticeMsg struct {
	Text  string
	Final bool
}

// Palette is shared by every screen so sides, system text and players look
// the same everywhere.
var (
	colAccent = lipgloss.Color("#8B5CF6")
	colText   = lipgloss.Color("#E5E7EB")
	colDim    = lipgloss.Color("#9CA3AF")
	colGood   = lipgloss.Color("#22C55E")
	colWarn   = lipgloss.Color("#F59E0B")
	// colWhisper marks whispers in chat.
	colWhisper = lipgloss.Color("#E879F9")
)

func style(c color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }

// fit cuts a rendered screen to w×h cells. A line wider than the terminal
// would wrap and leave the renderer's idea of the screen wrong, so no view
// may ever return one.
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	return strings.Join(lines, "\n")
}

// tooSmall is the screen shown instead of a layout that cannot fit; it
// recovers by itself on the next resize.
func tooSmall(w, h, needW, needH int) string {
	msg := fmt.Sprintf("Terminal too small\nneed %d×%d, have %d×%d\n\nenlarge the window, or q to quit", needW, needH, w, h)
	if w < 1 || h < 1 {
		return msg
	}
	msg = strings.Join(fitLines(strings.Split(msg, "\n"), w, h), "\n")
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center,
		lipgloss.NewStyle().Foreground(colWarn).Align(lipgloss.Center).Render(msg))
}
