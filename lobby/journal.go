package lobby

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store"
)

// MatchJournal is where a cluster node streams the matches its rooms play
// so that another node can resume them (cluster's room log): a match's
// start, then every few ticks what the recorder logged since, with the
// game's hash, then its end. Every method is called on a room's goroutine
// and must not block: hand the value to a goroutine of your own.
type MatchJournal interface {
	MatchStarted(start MatchLog)
	MatchBatch(room string, b LogBatch)
	// MatchOver says the room's match is settled (ended, recorded
	// aborted, or the room closed): its log may go.
	MatchOver(room string)
	// MatchHandedOff says this node stopped the room to hand its match
	// to another node (a drain): the log stays, complete up to the batch
	// just sent, and the lease goes, so that another node resumes it.
	MatchHandedOff(room string)
}

// MatchLog is what a journal records of a match when its first countdown
// begins (again when it starts, if someone sat down meanwhile): enough,
// with its batches, to rebuild the room on another node. A log with no
// batch is a match that had not played a batch's worth of ticks: it is
// resumed into its countdown.
type MatchLog struct {
	Room     string
	Game     string
	Mode     string     // the game's mode name
	Ranked   RankedMode // "" for a casual room
	Private  bool
	Code     string // a private room's join code
	Config   []byte
	Seed     uint64
	TickRate int
	Start    time.Time
	// Roster is, per slot, who plays the match.
	Roster []game.Player
	// Seats is a ranked room's slot for each matched player.
	Seats map[game.PlayerID]int
	// Practice is a practice room's bot level (Room.Practice), 0 for
	// any other room. The bots themselves are in Roster by their ids
	// (bot.Player), which carry their level: a resume seats new ones
	// there, as their inputs so far are in the batches like anyone's.
	// (Added after version 1 of the log: an older node's logs read 0.)
	Practice int `json:",omitempty"`
}

// LogBatch is what the recorder logged of a match since the batch
// before: the inputs and seat changes, the tick reached and the game's
// hash after it.
type LogBatch struct {
	Tick   uint64
	Hash   uint64
	Inputs []spectator.InputChange
	Events []spectator.SeatEvent
}

// JournalEvery is how many ticks a room's journal batch covers: a fifth
// of a second at 60 Hz, the most of a match a resume replays from an
// older state than the one the players last saw.
const JournalEvery = 12

// roomJournal feeds j a room's matches; its hooks run on the room's
// goroutine, after the recorder's, whose log they read, so its counters
// need no lock.
type roomJournal struct {
	r      *Room
	j      MatchJournal
	inputs int    // recorder log entries the batches so far carried
	events int    //
	since  uint64 // the tick of the last batch
	live   bool
	// seed and roster are what the live match's start logged: the
	// start a match's first countdown logged is logged again when the
	// match starts only if someone sat down in between.
	seed   uint64
	roster []game.Player
}

func (rj *roomJournal) hooks() game.Hooks {
	return game.Hooks{CountdownStarted: rj.started, CountdownCancelled: rj.cancelled, MatchStarted: rj.started,
		Ticked: rj.ticked, MatchEnded: rj.ended}
}

// started logs a match's start, from its first countdown on: a node that
// dies during it leaves a log another node resumes the match from, into
// its countdown. Every room's matches are logged: practice and bot-seated
// ones as well, their bots named in the roster (bot.Player), so that the
// node taking over seats bots again (their inputs so far are in the log
// like anyone's).
func (rj *roomJournal) started(room string, seed uint64, seats []game.Seat) {
	r := rj.r
	roster := make([]game.Player, len(seats))
	for i, s := range seats {
		if s.Taken {
			roster[i] = s.Player
		}
	}
	if rj.live && rj.since == 0 && rj.seed == seed && slices.Equal(rj.roster, roster) {
		return // the countdown logged it as it starts
	}
	rj.inputs, rj.events, rj.since = 0, 0, 0
	rj.live, rj.seed, rj.roster = true, seed, roster
	setup, _ := r.Game.Setup(r.Mode.Name) // the room was made from it
	rj.j.MatchStarted(MatchLog{Room: room, Game: r.Game.Name(), Mode: r.Mode.Name, Ranked: r.Ranked, Private: r.Private, Code: r.Code,
		Config: setup.Config, Seed: seed, TickRate: r.recorder.TickRate(), Start: time.Now(), Roster: roster, Seats: maps.Clone(r.Seats),
		Practice: r.Practice})
}

// cancelled: a countdown called off leaves nothing to resume.
func (rj *roomJournal) cancelled(room string) {
	if rj.live {
		rj.live, rj.roster = false, nil
		rj.j.MatchOver(room)
	}
}

func (rj *roomJournal) ticked(tick uint64, _ []game.Input, _ game.Game) {
	if !rj.live || tick-rj.since < JournalEvery {
		return
	}
	rj.batch()
}

// batch sends what the recorder logged since the last batch.
func (rj *roomJournal) batch() {
	in, ev, at, hash, ok := rj.r.recorder.Since(rj.inputs, rj.events)
	if !ok || at <= rj.since {
		// Not a tick since the last batch (a hand-off on its very
		// tick): a second batch at that tick would make the log one no
		// node resumes, its batches' ticks must rise. What was typed
		// since is for the next tick, which the taker plays anew. Nor
		// a batch at tick 0 (a hand-off of a match resumed into its
		// countdown): the start alone resumes that, and a log's
		// batches begin at tick 1.
		return
	}
	rj.inputs += len(in)
	rj.events += len(ev)
	rj.since = at
	rj.j.MatchBatch(rj.r.ID(), LogBatch{Tick: at, Hash: hash, Inputs: in, Events: ev})
}

func (rj *roomJournal) ended(room string, _ game.Result, _ []game.Seat, _ uint64) {
	rj.cancelled(room)
}

// ErrUnresumable matches every reason Resume refuses a match's log.
var ErrUnresumable = errors.New("the match cannot be resumed")

// Resume rebuilds a match another node's room was playing from its
// journal (start and batches, in order) and plays it on in a room of this
// node with the same id, its players' seats held for them in grace (so
// the game waits, paused, as for any dropped player, until they sit
// again) and its bots seated again at once. The log is re-simulated up to
// its last batch, every batch's hash checked; a log with no batch (the
// owner died in the match's first countdown) resumes into its countdown
// from the first tick. A log that does not reproduce its hashes, names a
// game or mode this node does not run, or seats bots this node runs none
// of, is an ErrUnresumable and nothing starts: the caller records the
// match aborted (RecordUnresumable).
func (rs *Rooms) Resume(start MatchLog, batches []LogBatch) (*Room, error) {
	bad := func(format string, args ...any) (*Room, error) {
		return nil, fmt.Errorf("lobby: resume %s: %w: %s", start.Room, ErrUnresumable, fmt.Sprintf(format, args...))
	}
	k, mode, ok := rs.cfg.Games.Mode(start.Game, start.Mode)
	if !ok {
		return bad("a game this node does not run (%s %s)", start.Game, start.Mode)
	}
	var botSeats []int
	for slot, p := range start.Roster {
		if bot.IsBot(p.ID) {
			if _, ok := bot.Level(p.ID); !ok {
				return bad("a bot %q of no level", p.ID)
			}
			botSeats = append(botSeats, slot)
		}
	}
	if len(botSeats) > 0 && !rs.PracticeOn(start.Game) {
		// Its bots' seats would wait out their grace and forfeit: the
		// match would end on a result nobody played for.
		return bad("its bots play %s, which this node runs no bots for", start.Game)
	}
	rc := rs.cfg.Room
	if start.Ranked != "" {
		rc.AutoStart, rc.AllowLateJoin, rc.Binding = true, false, true
		rc.Expected = nil
		for _, p := range start.Roster {
			if p.ID != "" {
				rc.Expected = append(rc.Expected, p.ID)
			}
		}
	} else {
		rc.AllowLateJoin = true
		if start.Practice == 0 {
			rc.WarmUp = mode.WarmUp
		}
	}
	rc.TickRate = start.TickRate
	if rc.MinPlayers == 0 {
		rc.MinPlayers = mode.MinPlayers
	}
	if rc.TicksPerWake == 0 {
		rc.TicksPerWake = DefaultTicksPerWake
	}
	rec, err := spectator.NewRecorder(spectator.RecorderConfig{Game: k, Config: start.Config, HeldInputs: mode.HeldInputs, TickRate: start.TickRate})
	if err != nil {
		return bad("%v", err)
	}
	var (
		g         game.Game
		ticks     uint64
		logged    int // seat changes the log holds (the journal goes on after them)
		inputs    int
		forfeited = make([]bool, len(start.Roster))
	)
	if len(batches) == 0 {
		// The owner died before the match's first batch: in its first
		// countdown (or its first fifth of a second of play). Its
		// players were about to play it, and expect to find it when
		// they come back, so it resumes into its countdown from the
		// first tick, rather than being filed as an aborted match
		// nobody played.
		var slots []int
		for slot, p := range start.Roster {
			if p.ID != "" {
				slots = append(slots, slot)
			}
		}
		if g, err = rec.Begin(start.Room, start.Seed, slots, start.Start); err != nil {
			return bad("%v", err)
		}
	} else {
		log := &spectator.Replay{Version: spectator.FormatVersion, Game: start.Game, Room: start.Room, Config: start.Config, Slots: len(start.Roster),
			Seed: start.Seed, TickRate: start.TickRate, Seats: start.Roster, Start: start.Start, Aborted: true,
			Result: game.Result{Places: make([]int, len(start.Roster)), Scores: make([]int, len(start.Roster))}}
		for i, b := range batches {
			if i > 0 && b.Tick <= log.Ticks {
				return bad("batch %d at tick %d after tick %d", i, b.Tick, log.Ticks)
			}
			log.Inputs = append(log.Inputs, b.Inputs...)
			log.SeatEvents = append(log.SeatEvents, b.Events...)
			log.Hashes = append(log.Hashes, spectator.TickHash{Tick: b.Tick, Hash: b.Hash})
			log.Ticks, log.FinalHash = b.Tick, b.Hash
		}
		// The last batch's seat changes after its tick happened after the
		// hash: they are not part of the state it names.
		kept := log.SeatEvents[:0]
		for _, ev := range log.SeatEvents {
			if ev.Tick < log.Ticks {
				kept = append(kept, ev)
			}
		}
		log.SeatEvents = kept
		if g, err = rec.Resume(log); err != nil {
			return bad("%v", err)
		}
		// Who had left the match: a seat emptied by a leave event since
		// its last join.
		for _, ev := range log.SeatEvents {
			if ev.Tick > 0 && int(ev.Slot) < len(forfeited) {
				forfeited[ev.Slot] = ev.Kind == spectator.SeatLeave
			}
		}
		ticks, logged, inputs = log.Ticks, len(log.SeatEvents), len(log.Inputs)
	}
	r := &Room{Game: k, Mode: mode, Ranked: start.Ranked, Private: start.Private || start.Ranked != "", Code: start.Code, Created: time.Now(),
		Seats: maps.Clone(start.Seats), Practice: start.Practice, rooms: rs, recorder: rec}
	if start.Ranked != "" {
		switch d := rs.cfg.SpectateDelay; {
		case d == 0:
			r.delayBy = spectator.DefaultRankedDelay
		case d > 0:
			r.delayBy = d
		}
	}
	r.Room = game.ResumeRoom(start.Room, rc, rec.Factory(), game.Resumed{Game: g, Seed: start.Seed, Tick: ticks, Roster: start.Roster, Forfeited: forfeited})
	if obs, ok := rs.cfg.Observer.(interface {
		MatchResumed(r *Room, seed uint64, start time.Time, roster []game.Player, forfeited []bool)
	}); ok {
		obs.MatchResumed(r, start.Seed, start.Start, start.Roster, forfeited)
	}
	rs.mu.Lock()
	if old := rs.byID[start.Room]; old != nil {
		rs.mu.Unlock()
		return bad("room %s runs here already", start.Room)
	}
	if r.Code != "" && rs.byCode[r.Code] != nil {
		r.Code = "" // a code taken here meanwhile: the room is found by id
	}
	rs.mu.Unlock()
	// The log goes on where it was, on the same subject: this node's
	// batches follow the dead owner's.
	rs.install(r, rec, func(rj *roomJournal) {
		rj.live, rj.inputs, rj.events, rj.since = true, inputs, logged, ticks
		rj.seed, rj.roster = start.Seed, start.Roster
	})
	rs.reseatBots(r, start.Roster, forfeited)
	return r, nil
}

// reseatBots seats bots again in a resumed room's bot seats (held in
// grace like everyone's): new brains of the levels the ids name, playing
// on from the state the log rebuilt. Their inputs before are in the log
// like a person's, so nothing of a bot needs to replay.
func (rs *Rooms) reseatBots(r *Room, roster []game.Player, forfeited []bool) {
	mk := rs.cfg.Bots[r.Game.Name()]
	for slot, p := range roster {
		level, ok := bot.Level(p.ID)
		if !ok || forfeited[slot] || mk == nil {
			continue
		}
		brain, reflex, err := mk(r.Mode.Name, level, slot, newSeed())
		if err == nil {
			if r.Practice > 0 {
				err = rs.seatPracticeBot(r, p, slot, brain, reflex)
			} else {
				err = rs.seatBot(r, p, slot, brain, reflex)
			}
		}
		if err != nil {
			// Its seat waits out its grace and is forfeited, as a
			// player's who never came back.
			rs.log.Error("resume: a bot could not sit again", "room", r.ID(), "bot", string(p.ID), "err", err)
		}
	}
}

// RecordUnresumable records a match whose log could not be resumed as
// aborted, with no rating change, so that it is never lost silently: who
// played it, when, and how far its log got.
func (rs *Results) RecordUnresumable(ctx context.Context, games interface {
	Mode(game, mode string) (game.Kind, game.Mode, bool)
}, start MatchLog, ticks uint64) (store.MatchRecord, error) {
	mode := filedMode(start.Ranked, start.Mode)
	if start.Practice > 0 || slices.ContainsFunc(start.Roster, func(p game.Player) bool { return bot.IsBot(p.ID) }) {
		mode = PracticePrefix + start.Mode // as the results writer files a match with bots
	}
	rec := store.MatchRecord{Mode: mode, Ranked: start.Ranked != "", Aborted: true, Room: start.Room, Start: start.Start,
		Duration: time.Since(start.Start).Round(time.Second)}
	if start.TickRate > 0 && ticks > 0 {
		rec.Duration = time.Duration(ticks) * time.Second / time.Duration(start.TickRate)
	}
	_, m, _ := games.Mode(start.Game, start.Mode)
	for slot, p := range start.Roster {
		if p.ID == "" {
			continue
		}
		mp := store.MatchPlayer{Name: p.Name, Slot: slot}
		if !p.Guest {
			mp.Fingerprint = string(p.ID)
		}
		if t := m.Team(slot); t >= 0 {
			mp.Team = t
		}
		rec.Players = append(rec.Players, mp)
	}
	if len(rec.Players) == 0 {
		return store.MatchRecord{}, nil
	}
	return rs.st.RecordMatch(ctx, store.MatchEnd{Match: rec, Key: fmt.Sprintf("%s/%d", start.Room, start.Seed)})
}

// MatchResumed registers a match another node started and this one took
// over, as MatchStarted registers one begun here: its end is recorded, or
// it is recorded aborted if this node stops first.
func (rs *Results) MatchResumed(r *Room, seed uint64, start time.Time, roster []game.Player, forfeited []bool) {
	seats := make([]game.Seat, len(roster))
	for i, p := range roster {
		if p.ID != "" {
			seats[i] = game.Seat{Player: p, Taken: true, Connected: i >= len(forfeited) || !forfeited[i]}
		}
	}
	rs.mu.Lock()
	rs.playing[r] = startedMatch{seed: seed, start: start, seats: seats, struck: map[game.PlayerID]time.Time{}}
	rs.mu.Unlock()
}

// Resume implements the cluster's Resumer: Rooms.Resume.
func (s *Services) Resume(start MatchLog, batches []LogBatch) error {
	_, err := s.Rooms.Resume(start, batches)
	return err
}

// RecordUnresumable implements the cluster's Resumer: the match is
// recorded aborted, no rating changed.
func (s *Services) RecordUnresumable(start MatchLog, ticks uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := s.Results.RecordUnresumable(ctx, s.Rooms.Games(), start, ticks)
	return err
}

// Abandon implements the cluster's Resumer: this node's room whose match
// another node plays now stops without recording it.
func (s *Services) Abandon(room string) {
	rs := s.Rooms
	rs.mu.Lock()
	r := rs.byID[room]
	rs.mu.Unlock()
	if r == nil {
		return
	}
	r.handedOff.Store(true)
	s.Results.forget(r)
	r.Close()
}

// forget drops the match r plays from what the writer will record: another
// node records it.
func (rs *Results) forget(r *Room) {
	rs.mu.Lock()
	delete(rs.playing, r)
	rs.mu.Unlock()
}

// HandOff stops every room whose match is journalled, so that another
// node resumes each from its log (a drain): each room stops, its last
// batch goes to the journal (the match as it stands, hashed), and its
// lease is handed back; its match is not recorded here and its players
// are sent back to the lobby, to reconnect to another node where their
// seats are held. It returns the ids of the rooms handed off; rooms with
// no match under way are left to end with the node.
func (s *Services) HandOff() []string {
	j := s.Rooms.cfg.Journal
	if j == nil {
		return nil
	}
	var out []string
	for _, r := range s.Rooms.All() {
		rj := r.journal
		if rj == nil {
			continue
		}
		r.handedOff.Store(true)
		r.Close()
		<-r.Done()
		// The room goroutine is gone: its journal and recorder are this
		// goroutine's now (Done happens after its last write).
		if !rj.live {
			r.handedOff.Store(false) // nothing to hand: it ends as ever
			continue
		}
		s.Results.forget(r)
		rj.batch()
		rj.live = false
		j.MatchHandedOff(r.ID())
		out = append(out, r.ID())
	}
	return out
}

// Playing is how many matches are under way on this node (what a
// drain with nowhere to hand them waits for).
func (s *Services) Playing() int {
	s.Results.mu.Lock()
	defer s.Results.mu.Unlock()
	return len(s.Results.playing)
}
