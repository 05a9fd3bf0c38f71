package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/termarena/termarena/game"
)

// ErrTooLong is returned by Play for a match still going after its tick
// budget.
var ErrTooLong = errors.New("bot: match went on past its tick budget")

// Contender is one seat of a headless match: a brain and its reflexes.
type Contender struct {
	Brain  Brain
	Reflex Reflex
}

// Play runs one match of kind's mode in a real room with no sessions: the
// bots in contenders take slots 0, 1, … and play it through the room's
// Submit as Run would, on a fake clock stepped one tick at a time after
// every bot has seen that tick's frame, so a seed gives the same match on
// every run. It returns the match's result and how many ticks it took.
func Play(k game.Kind, mode string, contenders []Contender, seed uint64, maxTicks uint64) (game.Result, uint64, error) {
	setup, err := k.Setup(mode)
	if err != nil {
		return game.Result{}, 0, err
	}
	clk := game.NewFakeClock()
	rate := max(setup.TickRate, 1)
	room := game.NewRoom("headless", game.RoomConfig{
		TickRate: rate, Clock: clk, Countdown: -1, IdleTimeout: -1, Grace: -1,
		MinPlayers: len(contenders),
	}, func(seed uint64) game.Game {
		g, err := k.New(setup.Config, seed)
		if err != nil {
			panic(err) // Setup's own config: cannot fail
		}
		return g
	}, seed)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		<-room.Done()
	}()
	runErr := make(chan error, 1)
	go func() { runErr <- room.Run(ctx) }()
	seats := make([]*Seat, len(contenders))
	ids := make([]game.PlayerID, len(contenders))
	for i, c := range contenders {
		p := game.Player{ID: game.PlayerID(fmt.Sprintf("%sheadless:%d", IDPrefix, i)), Name: fmt.Sprintf("bot%d", i)}
		s, err := Join(ctx, room, p, i, c.Brain, c.Reflex)
		if err != nil {
			return game.Result{}, 0, err
		}
		seats[i], ids[i] = s, p.ID
	}
	for _, id := range ids {
		if err := room.SetReady(ctx, id, true); err != nil {
			return game.Result{}, 0, err
		}
	}
	period := time.Second / time.Duration(rate)
	for {
		f, _ := room.Latest()
		switch f.Phase {
		case game.Finished:
			return *f.Result, f.Tick, nil
		case game.Closed:
			return game.Result{}, f.Tick, fmt.Errorf("bot: headless room closed: %v", <-runErr)
		}
		if f.Tick > maxTicks {
			return game.Result{}, f.Tick, ErrTooLong
		}
		for i, s := range seats {
			for _, in := range s.Observe(f) {
				room.Submit(ids[i], in)
			}
		}
		clk.Advance(period)
	}
}

// Pairing is one rung of a ladder: level Hi against level Lo.
type Pairing struct {
	Hi, Lo        int
	Matches       int
	HiWins, Draws int
	Ticks         uint64 // over every match
}

// Rate is the share of matches Hi won (draws count half).
func (p Pairing) Rate() float64 {
	if p.Matches == 0 {
		return 0
	}
	return (float64(p.HiWins) + float64(p.Draws)/2) / float64(p.Matches)
}

// Ladder plays level k against level k-1 for every k, n matches each in
// mode, two bots a match, seats alternated so neither level always has
// the same side; match i of a rung plays seed base+i. A match past
// maxTicks counts as a draw.
func Ladder(k game.Kind, mode string, newBrain Maker, n int, base uint64, maxTicks uint64) ([]Pairing, error) {
	var out []Pairing
	for hi := 2; hi <= Levels; hi++ {
		p := Pairing{Hi: hi, Lo: hi - 1}
		for i := range n {
			seed := base + uint64(i)
			levels := [2]int{hi, hi - 1}
			if i%2 == 1 {
				levels = [2]int{hi - 1, hi}
			}
			cs := make([]Contender, 2)
			for slot, lv := range levels {
				b, r, err := newBrain(mode, lv, slot, seed*31+uint64(slot))
				if err != nil {
					return nil, err
				}
				cs[slot] = Contender{Brain: b, Reflex: r}
			}
			res, ticks, err := Play(k, mode, cs, seed, maxTicks)
			p.Matches++
			p.Ticks += ticks
			switch {
			case errors.Is(err, ErrTooLong):
				p.Draws++
				continue
			case err != nil:
				return nil, err
			}
			hiSlot := 0
			if i%2 == 1 {
				hiSlot = 1
			}
			switch {
			case res.Places[hiSlot] < res.Places[1-hiSlot]:
				p.HiWins++
			case res.Places[hiSlot] == res.Places[1-hiSlot]:
				p.Draws++
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// Table renders pairings as a Markdown table for BENCHMARKS.md.
func Table(title string, ps []Pairing) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | matches | won | drawn | win rate | mean ticks |\n|---|---|---|---|---|---|\n", title)
	for _, p := range ps {
		fmt.Fprintf(&b, "| L%d vs L%d | %d | %d | %d | %.1f %% | %d |\n", p.Hi, p.Lo, p.Matches, p.HiWins, p.Draws, 100*p.Rate(), p.Ticks/uint64(max(p.Matches, 1)))
	}
	return b.String()
}
