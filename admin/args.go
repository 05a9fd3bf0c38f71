package admin

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/termarena/termarena/sanitize"
)

// parsedArgs is a subcommand's arguments: positionals and --flags.
type parsedArgs struct {
	pos   []string
	bools map[string]bool
	vals  map[string]string
}

// parseArgs accepts --name (bools) and --name VALUE or --name=VALUE (vals)
// anywhere among the positionals, so `ban bob 1d spam --ip 203.0.113.7`
// works. "--" ends the flags. A "-" followed by a digit is a positional,
// so "-5m" reaches the duration parser and is refused as a duration rather
// than as an unknown flag; any other "-…" is a usage error (a name never
// starts with "-").
func parseArgs(args, bools, vals []string) (parsedArgs, error) {
	p := parsedArgs{bools: map[string]bool{}, vals: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.pos = append(p.pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || len(a) > 1 && a[1] >= '0' && a[1] <= '9' {
			p.pos = append(p.pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case slices.Contains(bools, name) && !hasVal:
			p.bools[name] = true
		case slices.Contains(vals, name) && hasVal:
			p.vals[name] = val
		case slices.Contains(vals, name) && i+1 < len(args):
			i++
			p.vals[name] = args[i]
		case slices.Contains(vals, name):
			return p, fmt.Errorf("--%s needs a value", name)
		default:
			return p, fmt.Errorf("unknown flag %q", sanitize.Arg(a))
		}
	}
	return p, nil
}

const (
	// maxDuration bounds every DUR: past ten years a ban is permanent in
	// all but name, and a typo like 99999d is more likely than intent.
	maxDuration = 3650 * 24 * time.Hour

	// permanent is the DUR word that makes a ban's permanence explicit,
	// so a reason starting with a number can follow it unambiguously.
	permanent = "permanent"
)

var errNotDuration = errors.New("not a duration")

// looksLikeDuration tells a DUR argument from the first word of a reason:
// anything starting with a digit (or a minus and a digit) is meant as a
// duration, and a malformed one is refused rather than read as reason text.
func looksLikeDuration(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

// parseDuration reads DUR: one or more number-unit pairs ("90s", "30m",
// "24h", "7d", "2w", "1d12h"), positive and at most ten years. Unlike
// time.ParseDuration it knows days and weeks, and refuses fractions,
// bare numbers and the units no one means here (ms, µs, ns).
func parseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, errNotDuration
	}
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Errorf("duration %q must be positive", sanitize.Arg(s))
	}
	var total time.Duration
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("duration %q: want a number before each unit, as in 90s, 30m, 24h, 7d", sanitize.Arg(s))
		}
		n, err := strconv.Atoi(rest[:i])
		if err != nil { // only digits, so the number is out of range
			return 0, fmt.Errorf("duration %q is too long; at most %dd", sanitize.Arg(s), maxDuration/(24*time.Hour))
		}
		if i == len(rest) {
			return 0, fmt.Errorf("duration %q needs a unit: s, m, h, d or w", sanitize.Arg(s))
		}
		var unit time.Duration
		switch rest[i] {
		case 's':
			unit = time.Second
		case 'm':
			unit = time.Minute
		case 'h':
			unit = time.Hour
		case 'd':
			unit = 24 * time.Hour
		case 'w':
			unit = 7 * 24 * time.Hour
		default:
			return 0, fmt.Errorf("duration %q: unknown unit %q; use s, m, h, d or w", sanitize.Arg(s), sanitize.Arg(rest[i:i+1]))
		}
		// Checked before multiplying: 999999999w would overflow.
		if time.Duration(n) > maxDuration/unit {
			return 0, fmt.Errorf("duration %q is too long; at most %dd", sanitize.Arg(s), maxDuration/(24*time.Hour))
		}
		total += time.Duration(n) * unit
		if total > maxDuration {
			return 0, fmt.Errorf("duration %q is too long; at most %dd", sanitize.Arg(s), maxDuration/(24*time.Hour))
		}
		rest = rest[i+1:]
	}
	if total <= 0 {
		return 0, fmt.Errorf("duration %q must be positive", sanitize.Arg(s))
	}
	return total, nil
}

// formatDuration writes d the way DUR is typed, largest units first:
// "7d", "1d12h", "1m30s". Below a second it says "0s".
func formatDuration(d time.Duration) string {
	d = d.Truncate(time.Second)
	if d <= 0 {
		return "0s"
	}
	var b strings.Builder
	for _, u := range []struct {
		size time.Duration
		name string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if n := d / u.size; n > 0 {
			b.WriteString(strconv.FormatInt(int64(n), 10))
			b.WriteString(u.name)
			d -= n * u.size
		}
	}
	return b.String()
}
