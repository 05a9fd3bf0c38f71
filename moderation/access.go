package moderation

import (
	"errors"
	"fmt"
)

// Rank orders who may moderate whom.
type Rank uint8

const (
	Player    Rank = iota
	Moderator      // promoted by an admin; acts from chat
	Admin          // holds a key from the operator's admin keys file
	System         // flood control's automatic actions
)

func (r Rank) String() string {
	switch r {
	case Player:
		return "player"
	case Moderator:
		return "moderator"
	case Admin:
		return "admin"
	case System:
		return "system"
	}
	return fmt.Sprintf("rank(%d)", uint8(r))
}

// Article is the rank with its article: "a moderator", "an admin".
func (r Rank) Article() string {
	if r == Admin {
		return "an admin"
	}
	return "a " + r.String()
}

// Party is someone a moderation action is about: who acts, or whom it
// acts on.
type Party struct {
	ID   string // key fingerprint, or a guest's session id; "" for the system
	Name string
	Rank Rank
}

// Errors of Allow. A refusal for rank is a *RankError.
var (
	ErrNotStaff = errors.New("not allowed: only moderators and admins moderate")
	ErrSelf     = errors.New("not allowed on yourself")
)

// RankError refuses an action on someone of the actor's rank or above.
type RankError struct{ Target Party }

func (e *RankError) Error() string {
	return fmt.Sprintf("not allowed: %s is %s", e.Target.Name, e.Target.Rank.Article())
}

// Allow is the one access decision for every moderation action, from chat
// and from admin alike: only staff moderate, nobody acts on themselves, and
// nobody on someone of their own rank or above (a moderator cannot mute
// another moderator or an admin; an admin cannot ban another admin's key).
// Lifting a mute (lift) is the exception to rank: undoing a restriction
// harms nobody, so any moderator may.
func Allow(actor, target Party, lift bool) error {
	if err := MayModerate(actor); err != nil {
		return err
	}
	switch {
	case actor.ID != "" && actor.ID == target.ID:
		return ErrSelf
	case !lift && target.Rank >= actor.Rank:
		return &RankError{Target: target}
	}
	return nil
}

// MayModerate is the first half of Allow, for when the target is not known
// yet: whether actor moderates at all.
func MayModerate(actor Party) error {
	if actor.Rank < Moderator {
		return ErrNotStaff
	}
	return nil
}
