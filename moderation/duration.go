package moderation

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/termarena/termarena/sanitize"
)

// MaxDuration is the longest mute or ban a duration can say: past ten
// years a ban is permanent in all but name, and a typo like 99999d is more
// likely than intent. Permanence has its own spelling (no duration).
const MaxDuration = 3650 * 24 * time.Hour

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

// LooksLikeDuration tells a duration argument from the first word of a
// reason: anything starting with a digit (or a sign and a digit) is meant
// as a duration, and a malformed one is refused rather than read as reason
// text.
func LooksLikeDuration(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

// ParseDuration reads a moderation duration: a number and a unit, s, m, h,
// d or w ("90s", "30m", "24h", "7d", "2w"), or several of them ("1d12h").
// Unlike time.ParseDuration it knows days and weeks (what moderators think
// in), rejects a bare number (minutes or seconds?), fractions and the units
// nobody means here (ms), and refuses zero, negative and absurd (over 10
// years) durations.
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
		// Any number of more than 10 digits is out of range whatever the
		// unit, and stopping here keeps ParseUint and the multiply below
		// from overflowing.
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

// FormatDuration writes d the way ParseDuration reads it, largest units
// first: 4m12s, 2h, 1d3h. It rounds up to the second, so "0s left" is never
// shown while something still applies; zero and less is "0s".
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
