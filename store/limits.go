package store

import (
	"errors"
	"fmt"
	"math"
)

// The bounds and input rules every backend applies before it writes, in
// one place so the same input is refused by bbolt and PostgreSQL alike
// (the conformance suite holds both to it) and moving a server from one
// to the other changes nothing a caller sees. They only keep a bug or a
// hostile caller from bloating records every listing reads; callers cut
// text for display long before this.
const (
	// A SHA256 fingerprint is 50 bytes; the bound only stops absurd keys.
	MaxFingerprintLen = 128
	MaxKeyTypeLen     = 64
	MaxModeLen        = 32
	// Pong seats at most four; the bound only stops a bug from writing a
	// huge record inside the one transaction a match end is.
	MaxMatchPlayers = 16
	// MaxReplayLen is twice the largest decoded replay the spectator
	// package accepts, room enough for any real compressed one.
	MaxReplayLen = 8 << 20
	MaxReasonLen = 1024
	MaxActorLen  = 64
	MaxActionLen = 32
	MaxLabelLen  = 128 // names and targets copied into records

	// DefaultListLimit and MaxListLimit bound a listing's page.
	DefaultListLimit = 20
	MaxListLimit     = 1000
)

// CheckFingerprint refuses keys that cannot be a fingerprint, so nothing
// odd becomes a key or reaches a log line through an error message.
func CheckFingerprint(fp string) error { return CheckToken("fingerprint", fp, MaxFingerprintLen) }

// CheckMode holds mode names to the same byte rules as fingerprints,
// which is what keeps keys built of both unambiguous.
func CheckMode(mode string) error { return CheckToken("mode", mode, MaxModeLen) }

// CheckToken accepts 1..maxLen bytes of printable ASCII without spaces.
// Keys built from tokens rely on it: no token holds the zero byte that
// separates key parts.
func CheckToken(what, s string, maxLen int) error {
	if s == "" || len(s) > maxLen {
		return fmt.Errorf("invalid %s: length %d", what, len(s))
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("invalid %s: byte 0x%02x at %d", what, c, i)
		}
	}
	return nil
}

// CleanKeyType keeps only printable ASCII: key type names are ASCII, and
// the value comes from the client's side of the handshake.
func CleanKeyType(kt string) string {
	b := make([]byte, 0, min(len(kt), MaxKeyTypeLen))
	for i := 0; i < len(kt) && len(b) < MaxKeyTypeLen; i++ {
		if c := kt[i]; c > ' ' && c <= '~' {
			b = append(b, c)
		}
	}
	return string(b)
}

// ClampLimit is a listing's page length: DefaultListLimit for none,
// never over MaxListLimit.
func ClampLimit(limit int) int {
	if limit <= 0 {
		return DefaultListLimit
	}
	return min(limit, MaxListLimit)
}

// CheckRating refuses a rating that would poison the data: JSON cannot
// encode NaN or Inf, and one bad number would spread through every later
// update of everyone who plays that player.
func CheckRating(r Rating) error {
	if math.IsNaN(r.Rating) || math.IsInf(r.Rating, 0) {
		return fmt.Errorf("rating %v is not a finite number", r.Rating)
	}
	// Glicko-2 divides by both: zero would be as poisonous as NaN.
	if !(r.Deviation > 0 && r.Deviation < math.Inf(1)) || !(r.Volatility > 0 && r.Volatility < math.Inf(1)) {
		return fmt.Errorf("deviation %v and volatility %v must be positive finite numbers", r.Deviation, r.Volatility)
	}
	if r.Games < 0 || r.Wins < 0 || r.Losses < 0 || r.Draws < 0 {
		return fmt.Errorf("negative count: games %d, wins %d, losses %d, draws %d", r.Games, r.Wins, r.Losses, r.Draws)
	}
	return nil
}

// CheckBy checks who did a moderation act and why.
func CheckBy(b By) error {
	if err := CheckActor(b.Actor); err != nil {
		return err
	}
	return CheckLen("reason", b.Reason, MaxReasonLen)
}

// CheckActor requires an actor of at most MaxActorLen bytes.
func CheckActor(actor string) error {
	return errors.Join(nonEmpty("actor", actor), CheckLen("actor", actor, MaxActorLen))
}

// CheckEntry checks an audit entry before it is appended.
func CheckEntry(e AuditEntry) error {
	return errors.Join(
		CheckActor(e.Actor),
		CheckLen("action", e.Action, MaxActionLen),
		nonEmpty("action", e.Action),
		CheckLen("target", e.Target, MaxLabelLen),
		CheckLen("target id", e.TargetID, MaxLabelLen),
		CheckLen("cidr", e.CIDR, MaxLabelLen),
		CheckLen("reason", e.Reason, MaxReasonLen),
	)
}

// CheckLen refuses s longer than maxLen bytes.
func CheckLen(what, s string, maxLen int) error {
	if len(s) > maxLen {
		return fmt.Errorf("%s is %d bytes, at most %d", what, len(s), maxLen)
	}
	return nil
}

func nonEmpty(what, s string) error {
	if s == "" {
		return fmt.Errorf("%s is required", what)
	}
	return nil
}

// AuditLabel is how an audit entry names a target: by name when one is
// known.
func AuditLabel(name, fp string) string {
	if name != "" {
		return name
	}
	return fp
}
