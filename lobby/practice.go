package lobby

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game"
)

// DefaultMaxBotRooms is how many practice rooms may be live at once
// unless the operator says otherwise: each bot costs a goroutine and a
// little CPU per tick (BENCHMARKS.md), a room of them one game's worth.
const DefaultMaxBotRooms = 50

// Errors CreatePractice returns.
var (
	ErrBotsOff      = errors.New("practice bots are turned off on this server")
	ErrBotRoomsFull = errors.New("the server has as many practice rooms as it runs")
)

// PracticeBots is how many bots a practice room of mode seats: a ranked
// mode's table, else the mode's seats up to four, less the player's own.
func PracticeBots(m game.Mode) int {
	n := min(m.Seats, 4)
	if m.Table > 0 {
		n = m.Table
	}
	return max(n-1, 1)
}

// CreatePractice starts a practice room: a public room of a game's mode
// whose other seats are bots of level (1 to bot.Levels), taking slots from
// 1 up so the player who asked takes the first. Its matches are unrated
// and filed as practice ("practice-1v1"), watchable and replayable like
// any casual room's. The bots wait for a person (bot.Run) and leave with
// the last one, so the room ends as an empty room does. Fails with
// ErrBotsOff when the server runs no bots, ErrBotRoomsFull at the cap.
func (rs *Rooms) CreatePractice(gameName, mode string, level int) (*Room, error) {
	mk := rs.cfg.Bots[gameName]
	if mk == nil || rs.cfg.MaxBotRooms < 0 {
		return nil, ErrBotsOff
	}
	if level < 1 || level > bot.Levels {
		return nil, fmt.Errorf("lobby: no bot level %d (1 to %d)", level, bot.Levels)
	}
	k, m, ok := rs.cfg.Games.Mode(gameName, mode)
	if !ok {
		return nil, fmt.Errorf("lobby: %w: %s %s", ErrNoMode, gameName, mode)
	}
	// Bots join as soon as the room exists; the player's seat stays
	// free for them, and a room with nobody coming is disposed of the
	// way an empty one is (bot.Run's wait for a person).
	type seated struct {
		slot   int
		brain  bot.Brain
		reflex bot.Reflex
	}
	var bots []seated
	for slot := 1; slot <= PracticeBots(m) && slot < m.Seats; slot++ {
		brain, reflex, err := mk(m.Name, level, slot, newSeed())
		if err != nil {
			return nil, fmt.Errorf("lobby: %s %s bot: %w", gameName, m.Name, err)
		}
		bots = append(bots, seated{slot, brain, reflex})
	}
	rs.practiceMu.Lock()
	defer rs.practiceMu.Unlock()
	if most := rs.maxBotRooms(); most > 0 && rs.practiceRooms() >= most {
		return nil, ErrBotRoomsFull
	}
	rc := rs.cfg.Room
	rc.AllowLateJoin = true
	r, err := rs.create(k, m, "", false, rc, nil, level)
	if err != nil {
		return nil, err
	}
	for _, b := range bots {
		if err := rs.seatPracticeBot(r, bot.Player(level, b.slot), b.slot, b.brain, b.reflex); err != nil {
			r.Close()
			return nil, fmt.Errorf("lobby: seating a bot: %w", err)
		}
	}
	return r, nil
}

// seatPracticeBot seats the bot p at slot of practice room r and runs it
// on a goroutine of its own, which ends with the room (or leaves it first
// when no person is left in it).
func (rs *Rooms) seatPracticeBot(r *Room, p game.Player, slot int, brain bot.Brain, reflex bot.Reflex) error {
	seat, err := bot.Join(r.ctx, r.Room, p, slot, brain, reflex)
	if err != nil {
		return err
	}
	go func() {
		if err := bot.Run(r.ctx, r.Room, p.ID, seat); err != nil {
			rs.log.Warn("practice bot stopped", "room", r.ID(), "bot", string(p.ID), "err", err)
		}
	}()
	return nil
}

// PracticeOn reports whether the server runs bots for gameName (practice
// rooms can be made, cap permitting).
func (rs *Rooms) PracticeOn(gameName string) bool {
	return rs.cfg.Bots[gameName] != nil && rs.cfg.MaxBotRooms >= 0
}

// BotLevelFor is the bot level nearest a rating: Glicko-2's 1500 start
// plays level 3, each 150 points (about a third of a newcomer's ±500,
// or one level's step on the ladder) one level up or down, within 1 to
// bot.Levels.
func BotLevelFor(rating float64) int {
	return min(max(3+int(math.Floor((rating-1425)/150)), 1), bot.Levels)
}

func (rs *Rooms) maxBotRooms() int {
	if rs.cfg.MaxBotRooms == 0 {
		return DefaultMaxBotRooms
	}
	return rs.cfg.MaxBotRooms
}

// practiceRooms counts the live practice rooms.
func (rs *Rooms) practiceRooms() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	n := 0
	for _, r := range rs.byID {
		if r.Practice > 0 || r.botsIn() > 0 {
			n++
		}
	}
	return n
}

// PracticeModes are the names practice takes for every mode of every
// game, in menu order: the mode's own name ("1v1", "tron"), which is what
// players type.
func PracticeModes(c game.Catalog) []string {
	var out []string
	for _, k := range c {
		for _, m := range k.Modes() {
			out = append(out, m.Name)
		}
	}
	return out
}

// ParsePractice finds the mode a player asked to practise: "" for the
// first game's first mode, a mode's name (the first game's where two
// share it), a game's name for its first mode, GAME-MODE, or a ranked
// queue's name ("pong-1v1").
func ParsePractice(c game.Catalog, s string) (game.Kind, game.Mode, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(c) == 0 {
		return nil, game.Mode{}, false
	}
	if s == "" {
		return c[0], c[0].Modes()[0], true
	}
	for _, k := range c {
		for _, m := range k.Modes() {
			if m.Name == s || k.Name()+"-"+m.Name == s {
				return k, m, true
			}
		}
	}
	if k, m, ok := c.Ranked(s); ok {
		return k, m, true
	}
	if k, ok := c.Kind(s); ok {
		return k, k.Modes()[0], true
	}
	return nil, game.Mode{}, false
}
