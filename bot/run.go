package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/termarena/termarena/game"
)

// Room is what a bot needs of a room: the calls a person's session makes.
// *game.Room has them.
type Room interface {
	Join(ctx context.Context, p game.Player, slot int) (int, error)
	Leave(ctx context.Context, id game.PlayerID) error
	SetReady(ctx context.Context, id game.PlayerID, ready bool) error
	Submit(id game.PlayerID, in game.Input) bool
	Latest() (*game.Frame, <-chan struct{})
	Done() <-chan struct{}
}

// Join seats the bot p in room at slot, as a person's Join does; the
// returned Seat is then driven by Run.
func Join(ctx context.Context, room Room, p game.Player, slot int, brain Brain, r Reflex) (*Seat, error) {
	if !IsBot(p.ID) {
		return nil, fmt.Errorf("bot: %q is not a bot's id", p.ID)
	}
	got, err := room.Join(ctx, p, slot)
	if err != nil {
		return nil, fmt.Errorf("bot: seat %d: %w", slot, err)
	}
	return NewSeat(got, brain, r), nil
}

// FirstPersonWait is how long a bot waits in a room for its first person
// before leaving: a practice room whose player never came (a terminal too
// small, a dropped connection) is not kept by its bots.
const FirstPersonWait = 30 * time.Second

// Run plays seat for the bot id until the room closes, ctx ends, or no
// person is left in the room, or none came within FirstPersonWait (the
// bot then leaves, so a room of bots alone is disposed of as an empty
// room is). It is the bot's goroutine:
// it waits on the room's frames like a session's screen, and reaches the
// room only through its calls, so it can never stall it. Whenever the
// room waits for ready (before a match, or after one for a rematch) the
// bot is ready: it plays whenever its people want to.
func Run(ctx context.Context, room Room, id game.PlayerID, seat *Seat) error {
	leave := func() error {
		err := room.Leave(context.WithoutCancel(ctx), id)
		if errors.Is(err, game.ErrClosed) || errors.Is(err, game.ErrNotSeated) {
			return nil
		}
		return err
	}
	met := false
	alone := time.NewTimer(FirstPersonWait)
	defer alone.Stop()
	for {
		f, next := room.Latest()
		if f.Phase == game.Closed {
			return nil
		}
		switch {
		case peopleIn(f):
			met = true
		case met:
			return leave()
		}
		// Ready only with a person seated: bots alone would start the
		// match before the player who asked for it sat down.
		if met && (f.Phase == game.Waiting || f.Phase == game.Finished) && !readyIn(f, id) {
			if err := room.SetReady(ctx, id, true); err != nil && !errors.Is(err, game.ErrStarted) {
				if errors.Is(err, game.ErrClosed) || ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("bot: ready: %w", err)
			}
		}
		for _, in := range seat.Observe(f) {
			room.Submit(id, in)
		}
		var waiting <-chan time.Time
		if !met {
			waiting = alone.C
		}
		select {
		case <-next:
		case <-waiting:
			return leave()
		case <-room.Done():
			return nil
		case <-ctx.Done():
			_ = leave()
			return nil
		}
	}
}

// peopleIn reports whether a person holds a seat (a dropped one still in
// grace counts: they may come back).
func peopleIn(f *game.Frame) bool {
	for _, s := range f.Seats {
		if s.Taken && !IsBot(s.Player.ID) {
			return true
		}
	}
	return false
}

func readyIn(f *game.Frame, id game.PlayerID) bool {
	for _, s := range f.Seats {
		if s.Taken && s.Player.ID == id {
			return s.Ready
		}
	}
	return true // not seated: nothing to ready
}
