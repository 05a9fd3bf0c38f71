// Package gameview is the contract between the room screen (tui) and a
// game's own view: what a game's view must do to be hosted in a player's
// or watcher's room screen, and what the room screen tells it each frame.
//
// The room screen keeps what every game shares: pacing and writing frames,
// the header, footer and chat pane, prompts, the waiting, countdown,
// results and too-small screens, key timing, and sending inputs to the
// room with their sequence numbers. A game's view (a package in the game's
// folder, like game/pong/view) paints its board for one viewer into a
// region of the session's cell grid, with its own prediction and camera,
// turns keys into the game's actions and describes seats and the match.
// It needs only this package, screen/ and the standard library, so the
// server's packages never name a game and a game's view never names the
// server.
package gameview

import (
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/screen"
)

// View is a game's own half of the room screen. A View made for a room
// screen is called only from that screen's own goroutine, keys included:
// the session hands the screen a key as the terminal named it, and the
// screen asks Action (or Look) what it means. (Help and MinSize are also
// asked of a View of the lobby's own, which paints nothing.)
type View interface {
	// Styles are the view's style specs for profile p: the room screen
	// places them in the session's palette after its own, at the base the
	// view was made with (Maker). They depend on p alone: the server's
	// room screens share one palette per view type and profile.
	Styles(p colorprofile.Profile) []screen.Spec
	SetProfile(p colorprofile.Profile)
	// Size is the board region (columns, rows) that shows snap's whole
	// board, and the least region the game can be played in.
	Size(snap any) (wholeW, wholeH, minW, minH int)
	// MinSize is the least region a match of the game's mode (its
	// game.Mode.Name) can be played in: Size's least region before
	// there is a snapshot to ask, so a player's terminal is checked when
	// they queue for or join the mode (ok false: a mode the view does not
	// know).
	MinSize(mode string) (w, h int, ok bool)
	// Paint draws snap into the region x, y, w, h for v. Cells outside the
	// region are left alone.
	Paint(scr *screen.Screen, x, y, w, h int, snap any, v Viewer)
	// Invalidate: something else drew over the region; repaint it whole.
	Invalidate()
	// Action is the game action a key means for a player in seat (ok
	// false: not the game's key).
	Action(key string, seat int) (action int8, ok bool)
	// Look takes a watcher's camera key; Follow is the slot the watcher
	// follows (-1: none), told every frame.
	Look(key string) bool
	Follow(slot int)
	// Seat describes slot: its mark on a board without colour, its name's
	// style, its score and whether it is out for now.
	Seat(snap any, slot int) (mark rune, st screen.Style, score int, out bool)
	// SeatLabel names slot on the waiting screen ("left", "A seat 1").
	SeatLabel(snap any, slot int) string
	// Status is the match line ("round 2 · first to 3 · 4 riding"); ""
	// for none.
	Status(snap any) string
	// Over reports whether snap's match has ended.
	Over(snap any) bool
	// KeyHelp is the key line of a player in seat, LookHelp the
	// watchers' (camera keys; "" for none).
	KeyHelp(seat int) string
	LookHelp() string
	// Help is the game's keys as the lobby's help screen lists them: one
	// line, every seat's keys and the watchers'.
	Help() string
}

// Maker makes a game's view for one session: its styles start at base in
// the session's palette, for colour profile p.
type Maker func(base screen.Style, p colorprofile.Profile) View

// Viewer is who a board is painted for, and what of theirs the room has
// not confirmed yet, so the view draws it at once.
type Viewer struct {
	// Seat is the viewer's slot, -1 for a watcher.
	Seat int
	// Pending are the seat's inputs the room has not acknowledged yet,
	// oldest first, with when each was sent.
	Pending []Pending
	// Held is a held direction chosen but not sent yet (a Steered game's
	// submits are rate-limited), chosen at HeldAt; 0 for none.
	Held   int8
	HeldAt time.Time
	// Tap: the seat's tap in direction TapDir is drawn stopped at TapTo
	// until the room has applied its stop (Steered).
	Tap    bool
	TapDir int8
	TapTo  int32
	// Now is the moment the frame is drawn for and FrameAt when the room
	// published snap: a view extrapolates between them at TickRate ticks
	// a second while Live (the match is in play).
	Now, FrameAt time.Time
	TickRate     int
	Live         bool
}

// Pending is one unconfirmed input.
type Pending struct {
	Action int8
	At     time.Time
}

// Steered is a View whose actions hold until the next one (a paddle's
// direction) rather than happen once (a turn): the room screen turns key
// presses, auto-repeat and releases into a held direction, and a lone
// press into a tap that moves the seat's piece one cell, measured by the
// view.
type Steered interface {
	// Tap is a tap in direction dir from the seat's confirmed position in
	// snap: the action that moves the piece one cell on the viewer's
	// screen and stops it there, which the room carries out whole (0:
	// against the wall, nothing to move), and the position it stops at.
	Tap(snap any, seat int, dir int8) (action int8, to int32)
	// Pos is the seat's confirmed position in snap (ok false: none).
	Pos(snap any, seat int) (pos int32, ok bool)
	// CanMove: a press in dir moves the seat's piece from where it was
	// last painted to other cells (near a wall it may not).
	CanMove(snap any, seat int, dir int8) bool
	// Drawn is where the seat's piece was last painted: a key is shown on
	// screen once it changes.
	Drawn() [4]int32
}

// Scaled is a View whose board scales to fill the region it is given
// rather than showing a camera's window (Pong's court).
type Scaled interface {
	// Fit is the cells (x, y from the region's corner, w, h) the board
	// takes when painted in a region of cols × rows; false when it does
	// not fit at all.
	Fit(snap any, cols, rows int) (x, y, w, h int, ok bool)
}

// Scoreboard is a View whose header lists every seat with its score as
// text, by team when the mode has teams (Pong), and that says who scored
// a moment ago.
type Scoreboard interface {
	// Teams lists each team's slots; nil when everyone plays for
	// themselves.
	Teams(snap any) [][]int
	// ScoreText is slot's score as the header shows it (" 3", " ♥4",
	// " out"). fresh: the seat changed hands after the match, so it shows
	// a start's score, not the match's.
	ScoreText(snap any, slot int, fresh bool) string
	// FollowText is a followed player's match so far ("3 points · 5
	// hits").
	FollowText(snap any, slot int, fresh bool) string
	// Scored is the slot that scored a moment ago, shown over the board;
	// -1 for none.
	Scored(snap any) int
}

// Restorer is a View that can repaint part of its board: when an overlay
// (a countdown digit, "point: …", the results, a question) changes or goes
// away, the room screen asks for the cells it covered rather than
// invalidating the whole board. A view that is not a Restorer is
// invalidated, and repaints its whole board at the next Paint.
type Restorer interface {
	// Restore repaints, as last painted, the board's cells within x, y, w,
	// h (screen cells; those outside the board are left alone). It is
	// called between Paints, from the room screen's goroutine.
	Restore(scr *screen.Screen, x, y, w, h int)
}

// ResultScorer is a View that says what a result's score counts, for the
// results screen ("♥1 left" of a free-for-all's lives, "2 rounds"); a
// View without it shows the bare number, which reads as points.
type ResultScorer interface {
	ResultScore(snap any, score int) string
}
