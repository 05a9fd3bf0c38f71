package chat

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

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

// MaxDuration is the longest mute or ban a duration can say; longer is almost
// certainly a typo, and "permanent" has its own spelling (no duration).
const MaxDuration = 10 * 365 * 24 * time.Hour

// ErrInvalidDuration is matched by every error ParseDuration returns.
var ErrInvalidDuration = errors.New("invalid duration")

func durationUnit(c byte) (time.Duration, bool) {
	switch c {
	case 's':
		return time.Second, true
	case 'm':
		return time.Minute, true
	case 'h':
		return time.Hour, true
	case 'd':
		return 24 * time.Hour, true
	case 'w':
		return 7 * 24 * time.Hour, true
	}
	return 0, false
}

// ParseDuration reads a moderation duration: a number and a unit, s, m, h, d
// or w ("90s", "30m", "24h", "7d", "2w"), or several of them ("1d12h"). Unlike
// time.ParseDuration it knows days and weeks (what moderators think in),
// rejects a bare number (minutes or seconds?), and refuses zero, negative and
// absurd (over 10 years) durations.
func ParseDuration(s string) (time.Duration, error) {
	bad := func(why string) (time.Duration, error) {
		return 0, fmt.Errorf("%w %q: %s", ErrInvalidDuration, sanitize.Arg(s), why)
	}
	in := strings.ToLower(strings.TrimSpace(s))
	switch {
	case in == "":
		return bad("empty (write e.g. 90s, 30m, 24h or 7d)")
	case in[0] == '-':
		return bad("must be positive")
	case in[0] == '+':
		in = in[1:]
	}
	var total time.Duration
	for in != "" {
		i := 0
		for i < len(in) && in[i] >= '0' && in[i] <= '9' {
			i++
		}
		if i == 0 {
			return bad("expected a number (write e.g. 90s, 30m, 24h or 7d)")
		}
		if i == len(in) {
			return bad("missing unit: s, m, h, d or w")
		}
		unit, ok := durationUnit(in[i])
		if !ok {
			return bad(fmt.Sprintf("unknown unit %q: use s, m, h, d or w", in[i:i+1]))
		}
		// Any number of more than 10 digits is out of range whatever the unit,
		// and stopping here keeps ParseUint and the multiply below from
		// overflowing.
		digits := strings.TrimLeft(in[:i], "0")
		if len(digits) > 10 {
			return bad("longer than 10 years")
		}
		n, err := strconv.ParseUint("0"+digits, 10, 64)
		if err != nil {
			return bad("not a number")
		}
		if time.Duration(n) > MaxDuration/unit {
			return bad("longer than 10 years")
		}
		total += time.Duration(n) * unit
		if total > MaxDuration {
			return bad("longer than 10 years")
		}
		in = in[i+1:]
	}
	if total <= 0 {
		return bad("must be more than zero")
	}
	return total, nil
}

// FormatDuration writes d the way ParseDuration reads it, rounded up to the
// second so "0s left" is never shown while something still applies: 4m12s,
// 2h, 1d3h.
func FormatDuration(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	secs := int64((d + time.Second - 1) / time.Second)
	var b strings.Builder
	for _, u := range [...]struct {
		n    int64
		unit byte
	}{{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}} {
		if secs >= u.n {
			b.WriteString(strconv.FormatInt(secs/u.n, 10))
			b.WriteByte(u.unit)
			secs %= u.n
		}
	}
	return b.String()
}

// moderate parses a staff command. It returns the action, or replies
// explaining why there is none.
func (c *Chat) moderate(from Member, kind ModKind, args string, now time.Time) (*ModAction, string) {
	cmd := "/" + kind.String()
	if !from.staff() {
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
	if target == strings.ToLower(from.Name) {
		return nil, "you cannot " + cmd + " yourself"
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
	if m := c.names[target]; m != nil {
		a.TargetID = m.ID
		// Offline targets are the server's to check: only it knows their
		// role.
		if kind != Unmute && m.Role >= from.Role {
			return nil, fmt.Sprintf("not allowed: %s is %s", m.Name, article(m.Role))
		}
	}
	return a, ""
}

func article(r Role) string {
	if r == Admin {
		return "an admin"
	}
	return "a " + r.String()
}
