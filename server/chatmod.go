package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/termarena/termarena/admin"
	"github.com/termarena/termarena/chat"
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

// chatAct carries out a moderation action taken in chat (a moderator's
// /mute, /warn, /kick, /ban, or flood control's automatic mute): it is
// persisted with its audit entry, applied to live sessions, and the
// returned line is shown to whoever acted.
func (srv *Server) chatAct(a chat.ModAction) string {
	st, now := srv.deps.Store, time.Now()
	live := liveSessions{srv}
	fp, name := a.TargetID, a.Target
	guest := strings.HasPrefix(fp, "guest:")
	if fp == "" {
		// Offline: the target is a stored player, and chat could not check
		// their rank, so it is checked here.
		p, err := st.PlayerByName(a.Target)
		if err != nil {
			return fmt.Sprintf("no player named %s", a.Target)
		}
		fp, name = p.Fingerprint, p.Name
		if !a.Auto && (srv.admins[fp] || (p.Role == store.RoleModerator && !srv.admins[a.ActorID])) {
			return fmt.Sprintf("not allowed: %s is a moderator", name)
		}
	}
	by := store.By{Actor: a.Actor, Reason: a.Reason, Auto: a.Auto}
	fail := func(what string, err error) string {
		srv.log.Error("chat moderation", "action", what, "target", name, "err", err)
		return fmt.Sprintf("could not %s %s; please try again", what, name)
	}
	switch a.Kind {
	case chat.Mute:
		until := now.Add(a.Duration)
		if !guest {
			if err := st.SetMute(store.Mute{Fingerprint: fp, Name: name, Reason: a.Reason, Actor: a.Actor, Created: now, Expires: until, Auto: a.Auto}); err != nil {
				return fail("mute", err)
			}
		}
		live.Muted(fp, until, a.Reason)
		msg := fmt.Sprintf("you are muted for %s", chat.FormatDuration(a.Duration))
		if a.Reason != "" {
			msg += ": " + a.Reason
		}
		srv.deps.Chat.Tell(fp, chat.Moderation, msg, now)
		return fmt.Sprintf("%s is muted for %s", name, chat.FormatDuration(a.Duration))
	case chat.Unmute:
		if !guest {
			if _, err := st.RemoveMute(fp, by); err != nil {
				return fail("unmute", err)
			}
		}
		live.Muted(fp, time.Time{}, "")
		return fmt.Sprintf("%s is no longer muted", name)
	case chat.Warn:
		if err := st.Audit(store.AuditEntry{Actor: a.Actor, Action: store.ActionWarn, Target: name, TargetID: fp, Reason: a.Reason}); err != nil {
			return fail("warn", err)
		}
		live.Tell(fp, a.Reason)
		return fmt.Sprintf("%s was warned", name)
	case chat.Kick:
		if err := st.Audit(store.AuditEntry{Actor: a.Actor, Action: store.ActionKick, Target: name, TargetID: fp, Reason: a.Reason}); err != nil {
			return fail("kick", err)
		}
		n := live.Kick(fp, "You were kicked by a moderator: "+a.Reason)
		return fmt.Sprintf("%s was kicked (%d sessions)", name, n)
	case chat.Ban:
		if guest {
			return "guests have no key to ban: kick them, or ban their address with ssh HOST admin ban … --ip"
		}
		b := store.Ban{Fingerprint: fp, Name: name, Reason: a.Reason, Actor: a.Actor, Created: now}
		if a.Duration > 0 {
			b.Expires = now.Add(a.Duration)
		}
		b, err := st.AddBan(b)
		if err != nil {
			return fail("ban", err)
		}
		live.Kick(fp, admin.BanMessage(b))
		return fmt.Sprintf("%s is banned", name)
	}
	return "unknown moderation action"
}
