package lobby

import (
	"context"
	"errors"
	"fmt"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game"
)

// Errors FillWithBots returns besides ErrBotsOff and ErrBotRoomsFull.
var (
	ErrBotsRanked  = errors.New("bots never play ranked matches")
	ErrBotsStarted = errors.New("bots sit down only before a match starts")
	ErrNoFreeSeat  = errors.New("the room has no free seat")
)

// FillWithBots seats bots of level (1 to bot.Levels) in every free seat
// of a casual room that waits for its match (before the first, or
// between matches), and returns how many sat down. The room's matches
// with a bot in them are practice: unrated, filed as "practice-MODE"
// (the results writer looks at who played, match by match). The bots are
// ready whenever their people are (bot.Run), leave with the last person,
// and give up their seat to a person who sits down before a match starts
// (Room.Join). A room with bots counts toward --max-bot-rooms as a
// practice room does.
func (rs *Rooms) FillWithBots(r *Room, level int) (int, error) {
	mk := rs.cfg.Bots[r.Game.Name()]
	switch {
	case mk == nil || rs.cfg.MaxBotRooms < 0:
		return 0, ErrBotsOff
	case r.Ranked != "":
		return 0, ErrBotsRanked
	case level < 1 || level > bot.Levels:
		return 0, fmt.Errorf("lobby: no bot level %d (1 to %d)", level, bot.Levels)
	}
	fr, _ := r.Latest()
	if fr.Phase != game.Waiting && fr.Phase != game.Finished {
		return 0, ErrBotsStarted
	}
	var free []int
	for slot, s := range fr.Seats {
		if !s.Taken {
			free = append(free, slot)
		}
	}
	if len(free) == 0 {
		return 0, ErrNoFreeSeat
	}
	rs.practiceMu.Lock()
	defer rs.practiceMu.Unlock()
	if most := rs.maxBotRooms(); most > 0 && r.botsIn() == 0 && r.Practice == 0 && rs.practiceRooms() >= most {
		return 0, ErrBotRoomsFull
	}
	n := 0
	for _, slot := range free {
		brain, reflex, err := mk(r.Mode.Name, level, slot, newSeed())
		if err != nil {
			return n, fmt.Errorf("lobby: %s %s bot: %w", r.Game.Name(), r.Mode.Name, err)
		}
		if rs.seatBot(r, bot.Player(level, slot), slot, brain, reflex) != nil {
			// Someone took the seat meanwhile, or the match started:
			// the others still sit down.
			continue
		}
		n++
	}
	if n == 0 {
		return 0, ErrNoFreeSeat
	}
	return n, nil
}

// seatBot seats the bot p at slot of a room FillWithBots filled (or one
// resumed from another node's log: the bot takes back its seat held in
// grace) and runs it on a goroutine of its own until it leaves or the
// room ends; r.bots holds it meanwhile, so that a person can take its
// seat (Join) and the room counts as a bot room.
func (rs *Rooms) seatBot(r *Room, p game.Player, slot int, brain bot.Brain, reflex bot.Reflex) error {
	ctx, cancel := context.WithCancel(r.ctx)
	seat, err := bot.Join(ctx, r.Room, p, slot, brain, reflex)
	if err != nil {
		cancel()
		return err
	}
	r.botMu.Lock()
	if r.bots == nil {
		r.bots = map[game.PlayerID]context.CancelFunc{}
	}
	r.bots[p.ID] = cancel
	r.botMu.Unlock()
	go func() {
		defer func() {
			r.botMu.Lock()
			delete(r.bots, p.ID)
			r.botMu.Unlock()
			cancel()
		}()
		if err := bot.Run(ctx, r.Room, p.ID, seat); err != nil {
			rs.log.Warn("bot stopped", "room", r.ID(), "bot", string(p.ID), "err", err)
		}
	}()
	return nil
}

// BotsFor reports whether FillWithBots can seat bots in r at all: a
// casual room of a game with bots, on a server that runs them. The
// waiting screen offers its key only then.
func (rs *Rooms) BotsFor(r *Room) bool {
	return rs.cfg.Bots[r.Game.Name()] != nil && rs.cfg.MaxBotRooms >= 0 && r.Ranked == "" && r.Practice == 0
}

// botsIn counts the bots FillWithBots seated that still play in r.
func (r *Room) botsIn() int {
	r.botMu.Lock()
	defer r.botMu.Unlock()
	return len(r.bots)
}

// Join seats a person as game.Room.Join does, except that in a room
// where bots sit (FillWithBots) a person who finds no free seat, or asks
// for a bot's, takes a bot's seat while no match is under way: the bot
// leaves for them. A bot never holds a seat a person wants.
func (r *Room) Join(ctx context.Context, p game.Player, slot int) (int, error) {
	got, err := r.Room.Join(ctx, p, slot)
	var taken *game.SlotTakenError
	if err == nil || bot.IsBot(p.ID) || (!errors.Is(err, game.ErrRoomFull) && !errors.As(err, &taken)) {
		return got, err
	}
	fr, _ := r.Latest()
	if fr.Phase != game.Waiting && fr.Phase != game.Finished {
		return got, err
	}
	victim := game.PlayerID("")
	for i, s := range fr.Seats {
		if s.Taken && bot.IsBot(s.Player.ID) && (slot < 0 || slot == i) {
			victim = s.Player.ID
		}
	}
	r.botMu.Lock()
	cancel := r.bots[victim]
	r.botMu.Unlock()
	if cancel == nil {
		return got, err
	}
	if lerr := r.Room.Leave(ctx, victim); lerr != nil && !errors.Is(lerr, game.ErrNotSeated) {
		return got, err
	}
	cancel() // its goroutine ends; it is no longer seated
	return r.Room.Join(ctx, p, slot)
}

// hasBots reports whether a bot played one of seats.
func hasBots(seats []game.Seat) bool {
	for _, s := range seats {
		if s.Taken && bot.IsBot(s.Player.ID) {
			return true
		}
	}
	return false
}
