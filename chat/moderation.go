package chat

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/termarena/termarena/moderation"
	"github.com/termarena/termarena/sanitize"
)

// ModKind is what a moderation action does.
type ModKind uint8

const (
	Mute ModKind = iota + 1
	Unmute
	Warn
	Kick
	Ban
)

func (k ModKind) String() string {
	switch k {
	case Mute:
		return "mute"
	case Unmute:
		return "unmute"
	case Warn:
		return "warn"
	case Kick:
		return "kick"
	case Ban:
		return "ban"
	}
	return "modkind(" + strconv.Itoa(int(k)) + ")"
}

// modCommand maps a staff command to its kind.
func modCommand(cmd string) (ModKind, bool) {
	for k := Mute; k <= Ban; k++ {
		if cmd == k.String() {
			return k, true
		}
	}
	return 0, false
}

// ModAction is a moderation decision for the server to carry out: persist
// it, write the audit log, apply it to sessions (SetMuted for mutes) and tell
// the people concerned. Chat never carries them out itself because only the
// server can make them survive a restart and reach offline players.
type ModAction struct {
	Kind   ModKind
	Target string // name as typed, lower-cased; the server resolves offline names
	// TargetID is the target's identity when they are online, else "".
	TargetID string
	// Duration of a Mute (never 0: DefaultMute when none was given) or a Ban
	// (0 means permanent). Unused for the other kinds.
	Duration time.Duration
	Reason   string // sanitised; may be empty except for Warn
	Actor    string // moderator's name, or "system"
	ActorID  string // moderator's identity; "" for the system
	Auto     bool   // decided by flood control, not by a person
	Time     time.Time
}

// DefaultMute is how long /mute lasts without a duration: long enough to end
// an argument, short enough that a mistaken mute fixes itself.
const DefaultMute = 10 * time.Minute

// SystemActor is ModAction.Actor for automatic actions.
const SystemActor = "system"

// maxReason bounds a moderator's reason, which is stored and shown to the
// target.
const maxReason = 200

// MaxDuration is the longest mute or ban a duration can say.
const MaxDuration = moderation.MaxDuration

// ErrInvalidDuration is matched by every error ParseDuration returns.
var ErrInvalidDuration = moderation.ErrInvalidDuration

// ParseDuration reads a moderation duration ("30m", "1d12h"). It is
// moderation.ParseDuration, the one parser chat and admin share.
func ParseDuration(s string) (time.Duration, error) { return moderation.ParseDuration(s) }

// FormatDuration writes d the way ParseDuration reads it (4m12s, 1d3h). It
// is moderation.FormatDuration, the one formatter chat and admin share.
func FormatDuration(d time.Duration) string { return moderation.FormatDuration(d) }

// moderate parses a staff command. It returns the action, or replies
// explaining why there is none.
func (c *Chat) moderate(from Member, kind ModKind, args string, now time.Time) (*ModAction, string) {
	cmd := "/" + kind.String()
	if moderation.MayModerate(party(from)) != nil {
		return nil, "not allowed: " + cmd + " is for moderators"
	}
	var usage string
	switch kind {
	case Mute:
		usage = "usage: /mute NAME [DURATION] [REASON] (e.g. /mute bob 30m spam)"
	case Unmute:
		usage = "usage: /unmute NAME"
	case Warn:
		usage = "usage: /warn NAME REASON"
	case Kick:
		usage = "usage: /kick NAME [REASON]"
	case Ban:
		usage = "usage: /ban NAME [DURATION] [REASON] (no duration: permanent)"
	}
	name, rest := splitWord(args)
	if name == "" {
		return nil, usage
	}
	target, err := parseName(name)
	if err != "" {
		return nil, err
	}
	a := &ModAction{Kind: kind, Target: target, Actor: from.Name, ActorID: from.ID, Time: now}
	if kind == Mute || kind == Ban {
		if word, after := splitWord(rest); word != "" && word[0] >= '0' && word[0] <= '9' {
			d, err := ParseDuration(word)
			if err != nil {
				return nil, err.Error()
			}
			a.Duration, rest = d, after
		}
		if kind == Mute && a.Duration == 0 {
			a.Duration = DefaultMute
		}
	}
	if kind != Unmute {
		a.Reason = sanitize.Text(strings.TrimSpace(rest), maxReason)
	} else if strings.TrimSpace(rest) != "" {
		return nil, usage
	}
	if kind == Warn && a.Reason == "" {
		return nil, usage
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.names[target]
	if m == nil {
		// Offline: the server resolves the name, and decides with the
		// same rule once it knows the player's rank.
		return a, ""
	}
	a.TargetID = m.ID
	// Answered here, at once, for someone online; the server asks the
	// same question again with the ranks it stores.
	switch err := moderation.Allow(party(from), party(m.Member), kind == Unmute); {
	case errors.Is(err, moderation.ErrSelf):
		return nil, "you cannot " + cmd + " yourself"
	case err != nil:
		return nil, err.Error()
	}
	return a, ""
}

// party is a chat member as the moderation rules see them.
func party(m Member) moderation.Party {
	r := moderation.Player
	switch m.Role {
	case Moderator:
		r = moderation.Moderator
	case Admin:
		r = moderation.Admin
	}
	return moderation.Party{ID: m.ID, Name: m.Name, Rank: r}
}
