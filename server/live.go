package server

import (
	"context"
	"time"

	"github.com/termarena/termarena/admin"
	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/store"
)

// liveSessions is what moderation reaches into: the sessions online now
// and their chat. It implements admin.Sessions.
type liveSessions struct{ srv *Server }

var _ admin.Sessions = liveSessions{}

// Kick ends every session of the player, showing why; the session exits
// with 77 ("not allowed"). First the player gives up every seat they hold,
// as a leave: kicked or banned, they are not coming back within a grace,
// and the others should not wait for them.
func (l liveSessions) Kick(id, reason string) int {
	ctx, cancel := context.WithTimeout(context.Background(), evictTimeout)
	defer cancel()
	l.srv.deps.Rooms.Evict(ctx, game.PlayerID(id))
	return l.srv.deps.Hub.Tell(id, lobby.Notice{Text: reason, Final: true, Code: ExitDenied})
}

// evictTimeout bounds the wait for a room to take a kicked player's seat
// back; a room answers within one turn of its loop.
const evictTimeout = 5 * time.Second

// Tell shows a moderator's warning on the player's screen and in chat.
func (l liveSessions) Tell(id, text string) int {
	if c := l.srv.deps.Chat; c != nil {
		c.Tell(id, chat.Moderation, "warning from a moderator: "+text, time.Now())
	}
	return l.srv.deps.Hub.Tell(id, lobby.Notice{Text: "Warning from a moderator: " + text})
}

// Announce shows text to everyone online.
func (l liveSessions) Announce(text string) int {
	if c := l.srv.deps.Chat; c != nil {
		now := time.Now()
		for _, p := range l.srv.deps.Hub.List() {
			c.Tell(p.ID, chat.Notice, "announcement: "+text, now)
		}
	}
	return l.srv.deps.Hub.Broadcast(lobby.Notice{Text: "Announcement: " + text})
}

// List describes every live session.
func (l liveSessions) List() []admin.SessionInfo {
	var out []admin.SessionInfo
	for _, p := range l.srv.deps.Hub.SessionList() {
		out = append(out, admin.SessionInfo{Name: p.Name, Fingerprint: p.ID, Addr: p.Addr, Where: p.Where, Since: p.Since, Guest: p.Guest, Node: p.Node})
	}
	return out
}

// Rooms summarises every live room, private ones included.
func (l liveSessions) Rooms() []lobby.RoomInfo {
	return l.srv.deps.Rooms.Infos(lobby.Every)
}

// Muted applies a mute to live chat and tells the player why and for how
// long, whoever muted them; a zero until lifts it.
func (l liveSessions) Muted(id string, until time.Time, reason string) {
	c := l.srv.deps.Chat
	if c == nil {
		return
	}
	if until.IsZero() {
		c.ClearMuted(id)
		return
	}
	c.SetMuted(id, until, reason)
	now := time.Now()
	c.Tell(id, chat.Moderation, muteNotice(until, reason, now), now)
}

// RoleChanged applies a promotion or demotion to the player's live chat:
// a moderator promoted while online moderates without reconnecting.
func (l liveSessions) RoleChanged(id, role string) {
	c := l.srv.deps.Chat
	if c == nil {
		return
	}
	r := chat.Player
	if role == store.RoleModerator {
		r = chat.Moderator
	}
	c.SetRole(id, r)
}
