package postgres

import (
	"errors"
	"fmt"
	"math"

	"github.com/termarena/termarena/store"
)

// The bounds and input rules of the bbolt backend (store/bolt), which the
// conformance suite holds both to: the same input is refused by both, so
// moving a server from one to the other changes nothing a caller sees.
const (
	maxFingerprintLen = 128
	maxKeyTypeLen     = 64
	maxModeLen        = 32
	maxMatchPlayers   = 16
	maxReplayLen      = 8 << 20
	maxReasonLen      = 1024
	maxActorLen       = 64
	maxActionLen      = 32
	maxLabelLen       = 128

	defaultListLimit = 20
	maxListLimit     = 1000
)

func checkFingerprint(fp string) error { return checkToken("fingerprint", fp, maxFingerprintLen) }
func checkMode(mode string) error      { return checkToken("mode", mode, maxModeLen) }

// checkToken accepts 1..maxLen bytes of printable ASCII without spaces.
func checkToken(what, s string, maxLen int) error {
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

// cleanKeyType keeps only printable ASCII: the value comes from the
// client's side of the handshake.
func cleanKeyType(kt string) string {
	b := make([]byte, 0, min(len(kt), maxKeyTypeLen))
	for i := 0; i < len(kt) && len(b) < maxKeyTypeLen; i++ {
		if c := kt[i]; c > ' ' && c <= '~' {
			b = append(b, c)
		}
	}
	return string(b)
}

func clampLimit(limit int) int {
	if limit <= 0 {
		return defaultListLimit
	}
	return min(limit, maxListLimit)
}

// checkRating refuses a rating that would poison every later update of
// everyone who plays that player.
func checkRating(r store.Rating) error {
	if math.IsNaN(r.Rating) || math.IsInf(r.Rating, 0) {
		return fmt.Errorf("rating %v is not a finite number", r.Rating)
	}
	if !(r.Deviation > 0 && r.Deviation < math.Inf(1)) || !(r.Volatility > 0 && r.Volatility < math.Inf(1)) {
		return fmt.Errorf("deviation %v and volatility %v must be positive finite numbers", r.Deviation, r.Volatility)
	}
	if r.Games < 0 || r.Wins < 0 || r.Losses < 0 || r.Draws < 0 {
		return fmt.Errorf("negative count: games %d, wins %d, losses %d, draws %d", r.Games, r.Wins, r.Losses, r.Draws)
	}
	return nil
}

func checkBy(b store.By) error {
	return errors.Join(checkActor(b.Actor), checkLen("reason", b.Reason, maxReasonLen))
}

func checkActor(actor string) error {
	return errors.Join(nonEmpty("actor", actor), checkLen("actor", actor, maxActorLen))
}

func nonEmpty(what, s string) error {
	if s == "" {
		return fmt.Errorf("%s is required", what)
	}
	return nil
}

func checkLen(what, s string, maxLen int) error {
	if len(s) > maxLen {
		return fmt.Errorf("%s is %d bytes, at most %d", what, len(s), maxLen)
	}
	return nil
}

func checkEntry(e store.AuditEntry) error {
	return errors.Join(
		checkActor(e.Actor),
		checkLen("action", e.Action, maxActionLen),
		nonEmpty("action", e.Action),
		checkLen("target", e.Target, maxLabelLen),
		checkLen("target id", e.TargetID, maxLabelLen),
		checkLen("cidr", e.CIDR, maxLabelLen),
		checkLen("reason", e.Reason, maxReasonLen),
	)
}

// label is how an audit entry names a target: by name when one is known.
func label(name, fp string) string {
	if name != "" {
		return name
	}
	return fp
}
