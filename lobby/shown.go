package lobby

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// shownEvery is how often the follower looks at this node's rooms for a
// change a list would show (a seat taken, a phase, a score): a person
// glancing at a list does not see a second's delay, and it is one look
// for the whole server, not one per lobby.
const shownEvery = time.Second

// Shown returns a channel closed when anything a room list shows may have
// changed: a room came or went, or a listed room's phase, seats, score or
// watchers moved on (this node's rooms are looked at once a second while
// there are any, other nodes' as their heartbeats say). Lobbies wait on it
// instead of redrawing on a clock of their own.
func (rs *Rooms) Shown() <-chan struct{} {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.shownLocked()
}

func (rs *Rooms) shownLocked() chan struct{} {
	if rs.shown == nil {
		rs.shown = make(chan struct{})
	}
	return rs.shown
}

// signalShownLocked wakes whoever waits on Shown.
func (rs *Rooms) signalShownLocked() {
	if rs.shown != nil {
		close(rs.shown)
		rs.shown = nil
	}
}

// followShown is the one goroutine that turns rooms' frames into Shown's
// events: while there are watchable rooms it compares what lists show of
// each, once a second, and signals only a difference; with none it waits
// for one to open. It ends with the registry's context.
func (rs *Rooms) followShown() {
	last := map[*Room]string{}
	for {
		rooms, changed := rs.Live()
		if len(rooms) == 0 {
			clear(last)
			select {
			case <-changed:
				continue
			case <-rs.ctx.Done():
				return
			}
		}
		t := time.NewTimer(shownEvery)
		select {
		case <-t.C:
		case <-rs.ctx.Done():
			t.Stop()
			return
		}
		rooms, _ = rs.Live()
		moved := len(rooms) != len(last)
		now := make(map[*Room]string, len(rooms))
		for _, r := range rooms {
			sig := shownSig(r.Info())
			now[r] = sig
			if old, ok := last[r]; !ok || old != sig {
				moved = true
			}
		}
		last = now
		if moved {
			rs.mu.Lock()
			rs.signalShownLocked()
			rs.mu.Unlock()
		}
	}
}

// shownSig is what lists show of a room, as one comparable string: its
// phase, seats and who sits in them (connected or not), score and
// watchers; not its game state, which moves every tick.
func shownSig(ri RoomInfo) string {
	var b strings.Builder
	b.WriteString(ri.ID)
	b.WriteByte(' ')
	b.WriteString(strconv.FormatBool(ri.Started))
	b.WriteByte(' ')
	b.WriteString(ri.Phase.String())
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(ri.Seats))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(ri.Watchers))
	for _, p := range ri.Players {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(p.Slot))
		b.WriteByte(':')
		b.WriteString(p.Name)
		if !p.Connected {
			b.WriteByte('~')
		}
	}
	for _, s := range ri.Standing {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(s))
	}
	return b.String()
}

// sameShown says whether two nodes' listings show the same.
func sameShown(a, b []RoomInfo) bool {
	return slices.EqualFunc(a, b, func(x, y RoomInfo) bool { return shownSig(x) == shownSig(y) })
}
