// Package cmdargs parses the arguments of termarena's plain commands
// (`ssh HOST profile bob --json`) and of `admin` subcommands alike, so that
// flags, "--" and numbers behave the same in both.
package cmdargs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/termarena/termarena/sanitize"
)

// Args is a command's arguments: positionals and --flags.
type Args struct {
	Pos   []string
	Bools map[string]bool
	Vals  map[string]string
}

// Parse accepts --name (bools) and --name VALUE or --name=VALUE (vals)
// anywhere among the positionals, so `ban bob 1d spam --ip 203.0.113.7`
// works; one dash does as well as two. "--" ends the flags. A "-" followed
// by a digit is a positional, so "-5m" reaches the duration parser and is
// refused as a duration rather than as an unknown flag; any other "-…" is a
// usage error, never a positional (a name never starts with "-").
func Parse(args, bools, vals []string) (Args, error) {
	p := Args{Bools: map[string]bool{}, Vals: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.Pos = append(p.Pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || len(a) > 1 && a[1] >= '0' && a[1] <= '9' {
			p.Pos = append(p.Pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case slices.Contains(bools, name) && !hasVal:
			p.Bools[name] = true
		case slices.Contains(vals, name) && hasVal:
			p.Vals[name] = val
		case slices.Contains(vals, name) && i+1 < len(args):
			i++
			p.Vals[name] = args[i]
		case slices.Contains(vals, name):
			return p, fmt.Errorf("--%s needs a value", name)
		default:
			return p, fmt.Errorf("unknown flag %q", sanitize.Arg(a))
		}
	}
	return p, nil
}

// Limit reads --limit: def when absent, else a number from 1 to maxN.
func (p Args) Limit(def, maxN int) (int, error) {
	v, ok := p.Vals["limit"]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxN {
		return 0, fmt.Errorf("--limit %q: want a number from 1 to %d", sanitize.Arg(v), maxN)
	}
	return n, nil
}
