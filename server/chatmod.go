package server

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/termarena/termarena/admin"
	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/moderation"
	"github.com/termarena/termarena/store"
)

// chatMember is a session as chat knows it: admin keys are admins, stored
// moderators moderators, guests can only read.
func chatMember(id Identity) chat.Member {
	m := chat.Member{ID: id.ID, Name: id.Name, Guest: id.Guest, Role: chat.Player}
	switch {
	case id.Admin:
		m.Role = chat.Admin
	case id.Role == store.RoleModerator:
		m.Role = chat.Moderator
	}
	return m
}

// moderation is the service that carries out moderation for chat and for
// `admin` alike.
func (srv *Server) moderation() admin.Moderation {
	return admin.Moderation{Store: srv.deps.Store, Sessions: srv.live, IsAdmin: srv.isAdmin}
}

func (srv *Server) isAdmin(fp string) bool { return srv.admins[fp] }

// chatAct carries out a moderation action taken in chat (a moderator's
// /mute, /warn, /kick, /ban, or flood control's automatic mute) through
// the moderation service, and returns the line shown to whoever acted.
func (srv *Server) chatAct(a chat.ModAction) string {
	mod := srv.moderation()
	// Chat hands over no context: the writes are a few small transactions.
	ctx := context.Background()
	actor := moderation.Party{ID: a.ActorID, Name: a.Actor, Rank: moderation.System}
	if !a.Auto {
		r, err := mod.RankOf(ctx, a.ActorID)
		if err != nil {
			srv.log.Error("chat moderation", "action", a.Kind.String(), "err", err)
			return fmt.Sprintf("could not %s %s; please try again", a.Kind, a.Target)
		}
		actor.Rank = r
	}
	target := moderation.Party{ID: a.TargetID, Name: a.Target}
	if target.ID == "" {
		// Offline: the target is a stored player.
		p, err := srv.deps.Store.PlayerByName(ctx, a.Target)
		if err != nil {
			return fmt.Sprintf("no player named %s", a.Target)
		}
		target = moderation.Party{ID: p.Fingerprint, Name: p.Name}
	} else if m, ok := srv.lookupChat(a.Target); ok && m.ID == a.TargetID {
		target.Name = m.Name // as they spell it, not lower-cased
	}
	name, cmd := target.Name, "/"+a.Kind.String()

	var err error
	var line string
	switch a.Kind {
	case chat.Mute:
		_, err = mod.Mute(ctx, actor, target, a.Duration, a.Reason, a.Auto)
		line = fmt.Sprintf("%s is muted for %s", name, moderation.FormatDuration(a.Duration))
	case chat.Unmute:
		_, err = mod.Unmute(ctx, actor, target, a.Reason)
		line = fmt.Sprintf("%s is no longer muted", name)
	case chat.Warn:
		_, err = mod.Warn(ctx, actor, target, a.Reason)
		line = fmt.Sprintf("%s was warned", name)
	case chat.Kick:
		var n int
		n, err = mod.Kick(ctx, actor, target, a.Reason)
		line = fmt.Sprintf("%s was kicked (%s)", name, sessionsWord(n))
	case chat.Ban:
		_, _, err = mod.Ban(ctx, actor, target, a.Duration, a.Reason, netip.Prefix{})
		line = fmt.Sprintf("%s is banned", name)
	default:
		return "unknown moderation action"
	}
	var rank *moderation.RankError
	var st *admin.StoreError
	switch {
	case err == nil:
		return line
	case errors.Is(err, moderation.ErrNotStaff):
		return "not allowed: " + cmd + " is for moderators"
	case errors.Is(err, moderation.ErrSelf):
		return "you cannot " + cmd + " yourself"
	case errors.As(err, &rank):
		return fmt.Sprintf("not allowed: %s is %s", name, rank.Target.Rank.Article())
	case errors.Is(err, admin.ErrNotOnline):
		return fmt.Sprintf("%s is not online", name)
	case errors.Is(err, admin.ErrGuestBan):
		return "guests have no key to ban: kick them, or ban their address with ssh HOST admin ban … --ip"
	case errors.As(err, &st):
		srv.log.Error("chat moderation", "action", a.Kind.String(), "target", name, "err", err)
		return fmt.Sprintf("could not %s %s; please try again", a.Kind, name)
	}
	// The action happened but its audit entry is missing.
	srv.log.Error("chat moderation", "action", a.Kind.String(), "target", name, "err", err)
	return strings.TrimSpace(fmt.Sprintf("%s (%v)", line, err))
}

func sessionsWord(n int) string {
	if n == 1 {
		return "1 session"
	}
	return fmt.Sprintf("%d sessions", n)
}

// muteNotice is what a muted player reads in chat.
func muteNotice(until time.Time, reason string, now time.Time) string {
	msg := "you are muted for " + moderation.FormatDuration(until.Sub(now))
	if reason != "" {
		msg += ": " + reason
	}
	return msg
}

func (srv *Server) lookupChat(name string) (chat.Member, bool) {
	if srv.deps.Chat == nil {
		return chat.Member{}, false
	}
	return srv.deps.Chat.Lookup(name)
}
