package lobby

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/termarena/termarena/game"
)

// RemoteRooms reaches the rooms other nodes of a cluster run, so that a
// session here plays or watches them (cluster.Node's room links implement
// it). Attach finds the room's owner by the room's id alone.
type RemoteRooms interface {
	Attach(ctx context.Context, id string) (*RemoteRoom, error)
}

// RemoteRoom is a room another node runs, as Attach found it.
type RemoteRoom struct {
	// Room is the handle sessions hold (game.NewRemoteRoom): its frames
	// come from the owner until Detach or the room closes.
	Room    *game.Room
	Game    string
	Mode    string
	Ranked  RankedMode
	Private bool
	// Code is a private room's join code, shown to its players here as
	// on its node; the code is bound to the room there, not here.
	Code     string
	Practice int
	// Seats is, for a ranked room, the slot each matched player takes.
	Seats map[game.PlayerID]int
	// Delay is how far behind the game the owner's watchers are.
	Delay time.Duration
	// Detach stops the frames and the link's goroutine, without waiting
	// for them; the handle ends.
	Detach func()
	// Seated counts the sessions here the room seated (joins less leaves
	// and disconnects): with no watchers either, nobody here needs it.
	Seated func() int
	// Outcomes brings each rated match's outcome from the owner (its
	// rating changes): the handle's Outcome, as a local room's.
	Outcomes <-chan *Outcome
	// CountWatchers, when set, is handed the mirror's count of its
	// watchers here, which the link reports to the owner so its count
	// (admin rooms, the web page) includes them.
	CountWatchers func(func() int)
}

// SetRemoteRooms lets lookups of another node's room (an id "r3@n2") play
// and watch it from here instead of naming its node. Call it before
// sessions look rooms up.
func (rs *Rooms) SetRemoteRooms(rr RemoteRooms) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.linker = rr
}

// Owned returns this node's live room id, private or not: what another
// node's session asks to join or watch through the cluster.
func (rs *Rooms) Owned(id string) (*Room, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r, ok := rs.byID[id]
	return r, ok
}

// Mirrors lists the other nodes' rooms sessions here play or watch.
func (rs *Rooms) Mirrors() []*Room {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	out := make([]*Room, 0, len(rs.mirrors))
	for _, r := range rs.mirrors {
		out = append(out, r)
	}
	return out
}

// remoteLocked is the room another node runs under id ref, when the
// directory lists it and a link to it can be made; errNotRemote when ref
// is not another node's room. One handle serves every session here: the
// first lookup attaches, the rest share it until the room closes. It is
// called with rs.mu held and releases it while the owner answers.
func (rs *Rooms) remoteLocked(ref string, byID func(*Room) bool) (*Room, error) {
	if rs.linker == nil || !strings.Contains(ref, "@") {
		return nil, errNotRemote
	}
	if r := rs.mirrors[ref]; r != nil {
		if !byID(r) {
			return nil, ErrNoRoom
		}
		return r, nil
	}
	if rs.elsewhereLocked(ref) == nil {
		return nil, errNotRemote // no node lists it
	}
	r, err := rs.attachLocked(ref)
	if err != nil {
		return nil, err
	}
	if !byID(r) {
		return nil, ErrNoRoom
	}
	return r, nil
}

// Attach returns this node's handle on room id, which another node runs,
// attaching to it if no session here has yet: the matchmaker seats a
// match made on another node before the directory lists its room.
func (rs *Rooms) Attach(id string) (*Room, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.linker == nil {
		return nil, fmt.Errorf("%w: %s (this node is in no cluster)", ErrNoRoom, id)
	}
	return rs.attachLocked(id)
}

// attachLocked is remoteLocked's attachment, with rs.mu held (released
// while the owner answers).
func (rs *Rooms) attachLocked(ref string) (*Room, error) {
	if r := rs.mirrors[ref]; r != nil {
		return r, nil
	}
	linker := rs.linker
	rs.mu.Unlock()
	ctx, cancel := context.WithTimeout(rs.ctx, 3*time.Second)
	rr, err := linker.Attach(ctx, ref)
	cancel()
	var r *Room
	if err == nil {
		r, err = rs.mirrorOf(ref, rr)
		if err != nil {
			rr.Detach()
		}
	}
	rs.mu.Lock()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNoRoom, ref, err)
	}
	if other := rs.mirrors[ref]; other != nil {
		// Another session attached meanwhile: share its handle.
		r.cancel()
		rr.Detach()
		r = other
	} else {
		rs.mirrors[ref] = r
		if rr.CountWatchers != nil {
			rr.CountWatchers(r.Watchers)
		}
		go rs.endMirror(ref, r, rr)
	}
	return r, nil
}

// mirrorOf is the lobby's room around a remote handle.
func (rs *Rooms) mirrorOf(id string, rr *RemoteRoom) (*Room, error) {
	var (
		k    game.Kind
		mode game.Mode
		ok   bool
	)
	if rr.Ranked != "" {
		k, mode, ok = rs.cfg.Games.Ranked(string(rr.Ranked))
	} else {
		k, mode, ok = rs.cfg.Games.Mode(rr.Game, rr.Mode)
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s %s (this node does not run it)", ErrNoMode, rr.Game, rr.Mode)
	}
	ctx, cancel := context.WithCancel(rs.ctx)
	r := &Room{Room: rr.Room, Game: k, Mode: mode, Ranked: rr.Ranked, Private: rr.Private, Code: rr.Code, Practice: rr.Practice,
		Created: time.Now(), Seats: rr.Seats, rooms: rs, ctx: ctx, cancel: cancel, delayBy: rr.Delay}
	return r, nil
}

// mirrorIdleCheck is how often a remote room's handle is checked for use.
const mirrorIdleCheck = 5 * time.Second

// endMirror forgets a remote room once it closes (or the node stops, or
// the handle is dropped), detaching from its owner.
func (rs *Rooms) endMirror(id string, r *Room, rr *RemoteRoom) {
	// A handle nobody here has used for two checks in a row is dropped,
	// so the owner stops sending frames nobody draws; the first check
	// leaves a session that has just looked the room up time to sit.
	check := time.NewTicker(mirrorIdleCheck)
	defer check.Stop()
	idle := 0
wait:
	for {
		select {
		case <-r.Done():
			break wait
		case <-r.ctx.Done():
			break wait
		case o := <-rr.Outcomes:
			r.SetOutcome(o)
		case <-check.C:
			if r.Watchers() > 0 || (rr.Seated != nil && rr.Seated() > 0) {
				idle = 0
			} else if idle++; idle >= 2 {
				break wait
			}
		}
	}
	r.cancel()
	rr.Detach()
	rs.mu.Lock()
	if rs.mirrors[id] == r {
		delete(rs.mirrors, id)
	}
	rs.mu.Unlock()
}

// SeatHolders is what of RemoteRooms answers whether a room another node
// runs holds a player's dropped seat in grace: its owner knows, the
// directory's copy of its seats may be seconds old.
type SeatHolders interface {
	Holds(ctx context.Context, room string, id game.PlayerID) (bool, error)
}

// SeatFinders is what of RemoteRooms asks every other node of the
// cluster for the rooms it runs where a player holds a dropped seat in
// grace: the directory does not list private casual rooms, and a node
// that has just started has not yet heard the others' rooms.
type SeatFinders interface {
	FindHeld(ctx context.Context, id game.PlayerID) ([]string, error)
}

// holdingWait bounds how long a login asks the cluster for a seat held
// elsewhere: a slow NATS must not hold a login up.
const holdingWait = time.Second

// resumeWait bounds how long a login waits for a room listing the player
// whose owner does not answer: another node resumes a dead node's room
// within about 2 s of its death (the lease's TTL and a rebuild).
// resumePoll is how often its owner is asked again meanwhile.
const (
	resumeWait = 3 * time.Second
	resumePoll = 200 * time.Millisecond
)

// holdingElsewhere is Holding for a seat in another node's room: the
// player's connection dropped on another node (or the room's owner died
// and another node resumed it), and he reconnected here. Rooms the
// directory lists him in are asked about first, each candidate's owner
// confirming the seat is his and in grace; then every other node is
// asked at once (SeatFinders). A single node asks nothing.
func (rs *Rooms) holdingElsewhere(id game.PlayerID) (*Room, bool) {
	if id == "" {
		return nil, false
	}
	rs.mu.Lock()
	if rs.linker == nil {
		rs.mu.Unlock()
		return nil, false
	}
	holders, _ := rs.linker.(SeatHolders)
	var candidates []string
	if holders != nil {
		for _, infos := range rs.remote {
			for _, ri := range infos {
				if ri.Phase == game.Finished || slices.Contains(candidates, ri.ID) {
					continue
				}
				for _, p := range ri.Players {
					if p.ID == id {
						candidates = append(candidates, ri.ID)
						break
					}
				}
			}
		}
	}
	finder, _ := rs.linker.(SeatFinders)
	rs.mu.Unlock()
	// A candidate whose owner does not answer may be a room whose node
	// just died and that another node is about to resume from its log
	// (a lease lapses in about 2 s): a player who reconnects at once
	// waits for it, up to resumeWait, instead of landing in a lobby that
	// does not show his match. An owner that answers "not held" is not
	// waited for.
	resumeBy := time.Now().Add(resumeWait)
	for len(candidates) > 0 {
		// This node may be the one that resumed it.
		if r, ok := rs.HoldingHere(id); ok {
			return r, true
		}
		var silent []string
		for _, ref := range candidates {
			ctx, cancel := context.WithTimeout(rs.ctx, holdingWait)
			held, err := holders.Holds(ctx, ref, id)
			cancel()
			if err != nil {
				silent = append(silent, ref)
				continue
			}
			if !held {
				continue
			}
			r, err := rs.Attach(ref)
			if err != nil {
				return nil, false
			}
			return r, true
		}
		candidates = silent
		if len(candidates) == 0 || !time.Now().Before(resumeBy) {
			break
		}
		select {
		case <-rs.ctx.Done():
			return nil, false
		case <-time.After(resumePoll):
		}
	}
	ctx, cancel := context.WithTimeout(rs.ctx, holdingWait)
	defer cancel()
	if finder == nil {
		return nil, false
	}
	// Not in a room the directory lists: a private room's, or one this
	// node has not heard of yet. Every other node says which of its own
	// rooms hold the seat; each names only a seat in grace.
	refs, err := finder.FindHeld(ctx, id)
	if err != nil {
		rs.log.Warn("asking the cluster for a dropped seat", "err", err)
	}
	for _, ref := range refs {
		if r, err := rs.Attach(ref); err == nil {
			return r, true
		}
	}
	return nil, false
}
