package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"time"

	"github.com/termarena/termarena/moderation"
	"github.com/termarena/termarena/store"
)

// Moderation carries out moderation actions, from chat commands (/mute,
// /ban … and flood control's automatic mutes) and from `admin` commands
// alike: it asks moderation.Allow with the ranks it knows (admin keys,
// stored roles), persists the action with its audit entry, applies it to
// live sessions and tells the player. Its callers only parse and word the
// outcome, so the two ways to moderate cannot drift apart again.
//
// It lives here rather than in a package of its own because it is what the
// admin commands are made of; the server builds one for chat.
type Moderation struct {
	Store    ModStore
	Sessions Sessions         // nil reaches nobody
	Now      func() time.Time // nil means time.Now
	// IsAdmin reports whether a key is in the admin keys file; nil means
	// none is.
	IsAdmin func(fingerprint string) bool
}

// ModStore is what moderation persists to: the actions with their audit
// entries, and the player records ranks are read from.
type ModStore interface {
	store.Bans
	store.Mutes
	store.Audit
	PlayerByFingerprint(ctx context.Context, fp string) (store.Player, error)
}

// Store is what the admin commands read and write: moderation, roles,
// players by name, and backups.
type Store interface {
	ModStore
	store.Roles
	PlayerByName(ctx context.Context, name string) (store.Player, error)
	Backup(ctx context.Context, w io.Writer) (int64, error)
}

// ErrNotOnline is returned by Kick and Warn when the player has no live
// session: nothing happened, so nothing is logged.
var ErrNotOnline = errors.New("not online")

// StoreError is a failure to persist an action or its audit entry.
type StoreError struct {
	What string // "save the ban"
	Err  error
}

func (e *StoreError) Error() string { return "could not " + e.What + ": " + e.Err.Error() }
func (e *StoreError) Unwrap() error { return e.Err }

func (m Moderation) now() time.Time {
	if m.Now == nil {
		return time.Now()
	}
	return m.Now()
}

func (m Moderation) live() Sessions {
	if m.Sessions == nil {
		return nobodyOnline{}
	}
	return m.Sessions
}

// RankOf is a key's rank: admin keys are admins, stored moderators
// moderators, anyone else (a guest, a key never seen) a player.
func (m Moderation) RankOf(ctx context.Context, fingerprint string) (moderation.Rank, error) {
	if m.IsAdmin != nil && m.IsAdmin(fingerprint) {
		return moderation.Admin, nil
	}
	if isGuest(fingerprint) {
		return moderation.Player, nil
	}
	p, err := m.Store.PlayerByFingerprint(ctx, fingerprint)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return moderation.Player, nil
	case err != nil:
		return 0, &StoreError{"read the player", err}
	case p.Role == store.RoleModerator:
		return moderation.Moderator, nil
	}
	return moderation.Player, nil
}

// allow fills in the target's rank and asks the one access decision.
func (m Moderation) allow(ctx context.Context, actor moderation.Party, target *moderation.Party, lift bool) error {
	if err := moderation.MayModerate(actor); err != nil {
		return err
	}
	r, err := m.RankOf(ctx, target.ID)
	if err != nil {
		return err
	}
	target.Rank = r
	return moderation.Allow(actor, *target, lift)
}

func isGuest(fingerprint string) bool { return strings.HasPrefix(fingerprint, "guest:") }

// Mute silences target in chat for d. A guest's mute lasts as long as
// their session: they have no key to store it under.
func (m Moderation) Mute(ctx context.Context, actor, target moderation.Party, d time.Duration, reason string, auto bool) (store.Mute, error) {
	if err := m.allow(ctx, actor, &target, false); err != nil {
		return store.Mute{}, err
	}
	now := m.now()
	mu := store.Mute{Fingerprint: target.ID, Name: target.Name, Reason: reason, Actor: actor.Name, Created: now, Expires: now.Add(d), Auto: auto}
	if !isGuest(target.ID) {
		if err := m.Store.SetMute(ctx, mu); err != nil {
			return store.Mute{}, &StoreError{"save the mute", err}
		}
	}
	m.live().Muted(target.ID, mu.Expires, reason)
	return mu, nil
}

// Unmute lifts target's mute and reports whether there was one to lift.
// Live chat is cleared either way, so a session never stays muted by a
// mute the store no longer has.
func (m Moderation) Unmute(ctx context.Context, actor, target moderation.Party, reason string) (bool, error) {
	if err := m.allow(ctx, actor, &target, true); err != nil {
		return false, err
	}
	lifted := false
	if !isGuest(target.ID) {
		var err error
		if lifted, err = m.Store.RemoveMute(ctx, target.ID, store.By{Actor: actor.Name, Reason: reason}); err != nil {
			return false, &StoreError{"lift the mute", err}
		}
	}
	m.live().Muted(target.ID, time.Time{}, "")
	return lifted, nil
}

// Warn shows target a warning and returns how many sessions it reached.
func (m Moderation) Warn(ctx context.Context, actor, target moderation.Party, text string) (int, error) {
	if err := m.allow(ctx, actor, &target, false); err != nil {
		return 0, err
	}
	n := m.live().Tell(target.ID, text)
	if n == 0 {
		return 0, ErrNotOnline
	}
	return n, m.audit(ctx, actor, target, store.ActionWarn, text)
}

// Kick ends target's live sessions and returns how many it ended.
func (m Moderation) Kick(ctx context.Context, actor, target moderation.Party, reason string) (int, error) {
	if err := m.allow(ctx, actor, &target, false); err != nil {
		return 0, err
	}
	msg := "you were kicked by " + actor.Rank.Article()
	if reason != "" {
		msg += ": " + reason
	}
	n := m.live().Kick(target.ID, msg)
	if n == 0 {
		return 0, ErrNotOnline
	}
	return n, m.audit(ctx, actor, target, store.ActionKick, reason)
}

// ErrGuestBan refuses a key ban of a guest, who has no key.
var ErrGuestBan = errors.New("guests have no key to ban: kick them, or ban their address with admin ban … --ip")

// Ban refuses target's key (and, with a valid cidr, an address range) at
// login for d (0: permanently), and kicks every session the ban covers. It
// returns the stored ban and how many sessions it ended.
func (m Moderation) Ban(ctx context.Context, actor, target moderation.Party, d time.Duration, reason string, cidr netip.Prefix) (store.Ban, int, error) {
	if isGuest(target.ID) {
		return store.Ban{}, 0, ErrGuestBan
	}
	if err := m.allow(ctx, actor, &target, false); err != nil {
		return store.Ban{}, 0, err
	}
	now := m.now()
	b := store.Ban{Fingerprint: target.ID, Name: target.Name, Reason: reason, Actor: actor.Name, Created: now}
	if cidr.IsValid() {
		b.CIDR = cidr.String()
	}
	if d > 0 {
		b.Expires = now.Add(d)
	}
	b, err := m.Store.AddBan(ctx, b)
	if err != nil {
		return store.Ban{}, 0, &StoreError{"save the ban", err}
	}
	msg := BanMessage(b)
	kicked := m.live().Kick(target.ID, msg)
	if cidr.IsValid() {
		kicked += m.kickRange(cidr, map[string]bool{target.ID: true, actor.ID: true}, msg)
	}
	return b, kicked, nil
}

// kickRange ends the sessions of everyone else connected from a banned
// range, as the ban would refuse them at their next login anyway. The
// actor is spared: an admin in the range is still the one holding the
// keyboard.
func (m Moderation) kickRange(prefix netip.Prefix, done map[string]bool, msg string) int {
	n := 0
	for _, si := range m.live().List() {
		if done[si.Fingerprint] {
			continue
		}
		if a, ok := sessionAddr(si.Addr); ok && prefix.Contains(a) {
			done[si.Fingerprint] = true
			n += m.live().Kick(si.Fingerprint, msg)
		}
	}
	return n
}

// audit records an action that changes no stored state. It runs after the
// action, so a failure here means the action happened but its log line is
// missing, which an operator must know.
func (m Moderation) audit(ctx context.Context, actor, target moderation.Party, action, reason string) error {
	label := target.Name
	if label == "" {
		label = target.ID
	}
	err := m.Store.Audit(ctx, store.AuditEntry{Actor: actor.Name, Action: action, Target: label, TargetID: target.ID, Reason: reason})
	if err != nil {
		return fmt.Errorf("%s done, but the audit log was not written: %w", action, err)
	}
	return nil
}
