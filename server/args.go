package server

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/termarena/termarena/sanitize"
)

// parsedArgs is a command's arguments: positionals and --flags.
type parsedArgs struct {
	pos   []string
	bools map[string]bool
	vals  map[string]string
}

// parseArgs accepts --name (bools) and --name VALUE / --name=VALUE (vals).
// Anything else that starts with "-" is a usage error, never a positional:
// a name cannot start with "-".
func parseArgs(args []string, bools, vals []string) (parsedArgs, error) {
	p := parsedArgs{bools: map[string]bool{}, vals: map[string]string{}}
	isBool := func(n string) bool { return contains(bools, n) }
	isVal := func(n string) bool { return contains(vals, n) }
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			p.pos = append(p.pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case isBool(name) && !hasVal:
			p.bools[name] = true
		case isVal(name) && hasVal:
			p.vals[name] = val
		case isVal(name) && i+1 < len(args):
			i++
			p.vals[name] = args[i]
		case isVal(name):
			return p, fmt.Errorf("--%s needs a value", name)
		default:
			return p, fmt.Errorf("unknown flag %q", sanitize.Arg(a))
		}
	}
	return p, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// limit reads --limit with a default and a cap.
func (p parsedArgs) limit(def, maxN int) (int, error) {
	v, ok := p.vals["limit"]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxN {
		return 0, fmt.Errorf("--limit %q: want a number from 1 to %d", sanitize.Arg(v), maxN)
	}
	return n, nil
}
