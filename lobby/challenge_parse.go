package lobby

import (
	"strings"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/sanitize"
)

// ChallengeUsage is the chat command's shape.
const ChallengeUsage = "/challenge NAME [MODE] [casual|ranked]"

// ParseChallenge reads the arguments of /challenge: NAME, then MODE and
// casual or ranked in either order. MODE is what practice takes (a mode's
// name, a game's, GAME-MODE or a ranked queue's name; none means the first
// game's first mode). Without casual or ranked, a mode that has a casual
// room is casual and a ranked-only one (tron-ffa) ranked.
func ParseChallenge(c game.Catalog, args string) (name string, spec ChallengeSpec, err error) {
	words := strings.Fields(args)
	if len(words) == 0 {
		return "", ChallengeSpec{}, refuse("Whom? %s", ChallengeUsage)
	}
	name, words = words[0], words[1:]
	mode, kind := "", ""
	for _, w := range words {
		switch lw := strings.ToLower(w); {
		case lw == "casual" || lw == "ranked" || lw == "rated" || lw == "unrated":
			if kind != "" {
				return "", ChallengeSpec{}, refuse("Casual or ranked, not both: %s", ChallengeUsage)
			}
			kind = lw
		case mode == "":
			mode = lw
		default:
			return "", ChallengeSpec{}, refuse("Too many words: %s", ChallengeUsage)
		}
	}
	k, m, ok := ParsePractice(c, mode)
	if !ok {
		return "", ChallengeSpec{}, refuse("No mode %q: try %s", sanitize.Arg(mode), strings.Join(PracticeModes(c), ", "))
	}
	spec = ChallengeSpec{Game: k.Name(), Mode: m.Name, Ranked: !m.Casual}
	switch kind {
	case "ranked", "rated":
		spec.Ranked = true
	case "casual", "unrated":
		spec.Ranked = false
	}
	return name, spec, nil
}
