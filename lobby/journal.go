package lobby

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

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

// MatchLog is what a journal records of a match when it starts: enough,
// with its batches, to rebuild the room on another node.
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
}

func (rj *roomJournal) hooks() game.Hooks {
	return game.Hooks{MatchStarted: rj.started, Ticked: rj.ticked, MatchEnded: rj.ended}
}

func (rj *roomJournal) started(room string, seed uint64, seats []game.Seat) {
	r := rj.r
	rj.inputs, rj.events, rj.since = 0, 0, 0
	rj.live = !r.journalOff()
	if !rj.live {
		return
	}
	roster := make([]game.Player, len(seats))
	for i, s := range seats {
		if s.Taken {
			roster[i] = s.Player
		}
	}
	setup, _ := r.Game.Setup(r.Mode.Name) // the room was made from it
	rj.j.MatchStarted(MatchLog{Room: room, Game: r.Game.Name(), Mode: r.Mode.Name, Ranked: r.Ranked, Private: r.Private, Code: r.Code,
		Config: setup.Config, Seed: seed, TickRate: r.recorder.TickRate(), Start: time.Now(), Roster: roster, Seats: maps.Clone(r.Seats)})
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
	if !ok {
		return
	}
	rj.inputs += len(in)
	rj.events += len(ev)
	rj.since = at
	rj.j.MatchBatch(rj.r.ID(), LogBatch{Tick: at, Hash: hash, Inputs: in, Events: ev})
}

func (rj *roomJournal) ended(room string, _ game.Result, _ []game.Seat, _ uint64) {
	if rj.live {
		rj.live = false
		rj.j.MatchOver(room)
	}
}

// journalOff: practice rooms and rooms with bots are not journalled,
// since their bots run on this node and would not follow the room.
func (r *Room) journalOff() bool {
	if r.Practice > 0 {
		return true
	}
	fr, _ := r.Latest()
	return fr != nil && hasBots(fr.Seats)
}

// ErrUnresumable matches every reason Resume refuses a match's log.
var ErrUnresumable = errors.New("the match cannot be resumed")

// Resume rebuilds a match another node's room was playing from its
// journal (start and batches, in order) and plays it on in a room of this
// node with the same id, its players' seats held for them in grace (so
// the game waits, paused, as for any dropped player, until they sit
// again). The log is re-simulated up to its last batch, every batch's
// hash checked; a log that does not reproduce them, or names a game or
// mode this node does not run, is an ErrUnresumable and nothing starts:
// the caller records the match aborted (RecordUnresumable).
func (rs *Rooms) Resume(start MatchLog, batches []LogBatch) (*Room, error) {
	bad := func(format string, args ...any) (*Room, error) {
		return nil, fmt.Errorf("lobby: resume %s: %w: %s", start.Room, ErrUnresumable, fmt.Sprintf(format, args...))
	}
	k, mode, ok := rs.cfg.Games.Mode(start.Game, start.Mode)
	if !ok {
		return bad("a game this node does not run (%s %s)", start.Game, start.Mode)
	}
	if len(batches) == 0 {
		return bad("no batch was logged")
	}
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
		rc.WarmUp = mode.WarmUp
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
	g, err := rec.Resume(log)
	if err != nil {
		return bad("%v", err)
	}
	// Who had left the match: a seat emptied by a leave event since its
	// last join.
	forfeited := make([]bool, len(start.Roster))
	for _, ev := range log.SeatEvents {
		if ev.Tick > 0 && int(ev.Slot) < len(forfeited) {
			forfeited[ev.Slot] = ev.Kind == spectator.SeatLeave
		}
	}
	r := &Room{Game: k, Mode: mode, Ranked: start.Ranked, Private: start.Private || start.Ranked != "", Code: start.Code, Created: time.Now(),
		Seats: maps.Clone(start.Seats), rooms: rs, recorder: rec}
	if start.Ranked != "" {
		switch d := rs.cfg.SpectateDelay; {
		case d == 0:
			r.delayBy = spectator.DefaultRankedDelay
		case d > 0:
			r.delayBy = d
		}
	}
	r.Room = game.ResumeRoom(start.Room, rc, rec.Factory(), game.Resumed{Game: g, Seed: start.Seed, Tick: log.Ticks, Roster: start.Roster, Forfeited: forfeited})
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
		rj.live, rj.inputs, rj.events, rj.since = true, len(log.Inputs), len(log.SeatEvents), log.Ticks
	})
	return r, nil
}

// RecordUnresumable records a match whose log could not be resumed as
// aborted, with no rating change, so that it is never lost silently: who
// played it, when, and how far its log got.
func (rs *Results) RecordUnresumable(ctx context.Context, games interface {
	Mode(game, mode string) (game.Kind, game.Mode, bool)
}, start MatchLog, ticks uint64) (store.MatchRecord, error) {
	mode := filedMode(start.Ranked, start.Mode)
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
// no match under way (or one not journalled: practice) are left to end
// with the node.
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
