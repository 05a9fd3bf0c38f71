package lobby

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/termarena/termarena/game"
)

// Challenge timing and limits (ChallengeConfig's defaults).
const (
	// DefaultChallengeExpiry is how long a challenge waits for an answer:
	// long enough to finish a rally, short enough that a challenger is
	// not left waiting on someone who walked away.
	DefaultChallengeExpiry = 60 * time.Second
	// DefaultDeclineCooldown is how long a declined challenger may not
	// challenge the same player again: a "no" must stick for a while, or
	// a challenge is a way to nag.
	DefaultDeclineCooldown = 5 * time.Minute
	// DefaultChallengeRate challenges per DefaultChallengeWindow is what
	// one challenger may send: enough to find a willing opponent among a
	// handful online, too few to flood everyone's screen.
	DefaultChallengeRate   = 3
	DefaultChallengeWindow = time.Minute
)

// ChallengeConfig tunes challenges; zero fields take the defaults above.
type ChallengeConfig struct {
	Expiry          time.Duration
	DeclineCooldown time.Duration
	Rate            int
	Window          time.Duration
}

func (c ChallengeConfig) withDefaults() ChallengeConfig {
	if c.Expiry <= 0 {
		c.Expiry = DefaultChallengeExpiry
	}
	if c.DeclineCooldown <= 0 {
		c.DeclineCooldown = DefaultDeclineCooldown
	}
	if c.Rate <= 0 {
		c.Rate = DefaultChallengeRate
	}
	if c.Window <= 0 {
		c.Window = DefaultChallengeWindow
	}
	return c
}

// ChatMutes says whether a player is muted in chat: *chat.Chat implements
// it. A muted player may not challenge either, or a challenge notice
// would be a way to say what chat does not let them.
type ChatMutes interface {
	Muted(id string, now time.Time) (until time.Time, reason string, ok bool)
}

// ErrChallenge is what every refusal of Challenges wraps; its text is
// written for the player who asked.
var ErrChallenge = errors.New("challenge refused")

// ChallengeError is a refusal, in words for the player.
type ChallengeError struct{ Why string }

func (e *ChallengeError) Error() string        { return e.Why }
func (e *ChallengeError) Is(target error) bool { return target == ErrChallenge }

func refuse(format string, a ...any) error {
	return &ChallengeError{Why: fmt.Sprintf(format, a...)}
}

// Challenge is one player's invitation to another to play a mode.
type Challenge struct {
	ID       uint64
	From, To game.Player
	Game     string     // the game's name ("pong")
	Mode     string     // the mode's name ("1v1")
	Ranked   RankedMode // the rated queue's name, "" for a casual match
	Expires  time.Time
}

// What is the match in the players' words, as they type it: "pong-1v1, casual" or
// "pong-1v1, ranked".
func (c Challenge) What() string {
	if c.Ranked != "" {
		return string(c.Ranked) + ", ranked"
	}
	return c.Game + "-" + c.Mode + ", casual"
}

// ChallengeStart hands one side of an accepted challenge its room: the
// session joins it on Slot.
type ChallengeStart struct {
	Room *Room
	Slot int
	With string // the opponent's name
}

// ChallengeEvent is something that happened to a session's challenges:
// Text for the player, and Start when a room waits for them.
type ChallengeEvent struct {
	Text  string
	Start *ChallengeStart
	// Offer: the text offers a challenge, which the session shows on its
	// own (Take's incoming) where it can; elsewhere it shows the text.
	Offer bool
}

// maxInboxEvents bounds what an inbox keeps unread; the oldest text goes
// first, and a session reads its inbox as soon as it changes anyway.
const maxInboxEvents = 16

// Inbox is one lobby session's view of challenges: those waiting for its
// player's answer, the one it sent, and what happened since it last
// looked. Its player counts as online for challenges while it is open.
type Inbox struct {
	cs     *Challenges
	player game.Player

	// wake, when set, is called (under cs.mu: it must not block) when the
	// inbox has something new and the last news was taken: the session's
	// own loop reads it, with no goroutine parked on Changed.
	wake func()

	// Under cs.mu.
	events  []ChallengeEvent
	changed chan struct{}
	closed  bool
	woken   bool // wake was called and nothing was taken since
}

// Changed is closed when the inbox has something new: the lobby waits on
// it instead of polling.
func (in *Inbox) Changed() <-chan struct{} {
	in.cs.mu.Lock()
	defer in.cs.mu.Unlock()
	return in.changed
}

// Take returns and clears the events since the last Take, with the
// challenges now waiting for this player's answer (oldest first) and the
// one this session sent (nil if none).
func (in *Inbox) Take() (events []ChallengeEvent, incoming []Challenge, outgoing *Challenge) {
	in.cs.mu.Lock()
	defer in.cs.mu.Unlock()
	events, in.events = in.events, nil
	in.woken = false
	for _, id := range in.cs.order {
		p := in.cs.pending[id]
		if p.To.ID == in.player.ID && !p.outbound() {
			incoming = append(incoming, p.Challenge)
		}
		if p.from == in {
			c := p.Challenge
			outgoing = &c
		}
	}
	return events, incoming, outgoing
}

// Close takes the session away: a challenge it sent is off, and so are
// those to its player when this was their last session. Call it once,
// when the session ends.
func (in *Inbox) Close() {
	cs := in.cs
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if in.closed {
		return
	}
	in.closed = true
	list := cs.inboxes[string(in.player.ID)]
	list = slices.DeleteFunc(list, func(o *Inbox) bool { return o == in })
	if len(list) == 0 {
		delete(cs.inboxes, string(in.player.ID))
	} else {
		cs.inboxes[string(in.player.ID)] = list
	}
	for _, id := range slices.Clone(cs.order) {
		p := cs.pending[id]
		switch {
		case p.from == in:
			cs.dropLocked(id)
			cs.tellLocked(p.To.ID, nil, fmt.Sprintf("%s left: their challenge (%s) is off.", p.From.Name, p.What()))
			cs.sendLocked(p, ChallengeNote{Op: NoteWithdrawn, Text: fmt.Sprintf("%s left: their challenge (%s) is off.", p.From.Name, p.What())})
		case p.To.ID == in.player.ID && len(list) == 0:
			cs.dropLocked(id)
			cs.postFromLocked(p, fmt.Sprintf("%s went offline: your challenge is off.", p.To.Name))
			cs.sendLocked(p, ChallengeNote{Op: NoteEnded, Text: fmt.Sprintf("%s went offline: your challenge is off.", p.To.Name)})
		}
	}
}

// pending is a challenge waiting for its answer.
type pending struct {
	Challenge
	from  *Inbox // the session that sent it, which the room is handed to; nil when it was sent on another node
	timer *time.Timer
	// node is the other side's node when the two are on different nodes
	// of a cluster ("" on one node): the challenged player's on the
	// challenger's node, the challenger's on the challenged's. peer is
	// the challenge's id on the challenger's node.
	node string
	peer uint64
}

// Challenges are the open invitations between online players. It is safe
// for concurrent use, and never blocks on a session: what it has to tell
// one goes to the session's Inbox, which the session reads when told it
// changed. Expiry runs on a timer per challenge; nothing else runs.
type Challenges struct {
	cfg   ChallengeConfig
	rooms *Rooms
	mm    *Matchmaker
	mutes ChatMutes
	now   func() time.Time
	// elsewhere finds a player on another node of a cluster (nil on a
	// single node): challenges do not cross nodes yet, and the refusal
	// says where the player is.
	elsewhere func(name string) (Presence, bool)
	// relay carries a challenge's news to the other side's node
	// (challenge_remote.go); nil: challenges stay on one node.
	relay ChallengeRelay

	mu       sync.Mutex
	seq      uint64
	inboxes  map[string][]*Inbox // player id → open lobby sessions
	pending  map[uint64]*pending
	order    []uint64                // pending ids, oldest first
	sent     map[string][]time.Time  // challenger → when each recent challenge went out
	declined map[[2]string]time.Time // {challenger, challenged} → when the answer was no
}

// NewChallenges serves challenges into rooms from rs; ranked challenges go
// through mm (nil: no ranked challenges), and mutes (nil: none) refuse
// muted challengers.
func NewChallenges(cfg ChallengeConfig, rs *Rooms, mm *Matchmaker, mutes ChatMutes) *Challenges {
	return &Challenges{cfg: cfg.withDefaults(), rooms: rs, mm: mm, mutes: mutes, now: time.Now,
		inboxes: map[string][]*Inbox{}, pending: map[uint64]*pending{}, sent: map[string][]time.Time{}, declined: map[[2]string]time.Time{}}
}

// Config is the challenges' tuning, defaults filled in.
func (cs *Challenges) Config() ChallengeConfig { return cs.cfg }

// Open registers a lobby session of p. Guests have no account a challenge
// could reach (their names are throwaways) and get no inbox: nil.
func (cs *Challenges) Open(p game.Player) *Inbox { return cs.OpenWaking(p, nil) }

// OpenWaking is Open with wake called, instead of the session waiting on
// Changed, when the inbox has news (once until the session Takes it).
// wake is called with the challenges locked: it must return at once and
// not call back into them (hand a message to the session and return).
func (cs *Challenges) OpenWaking(p game.Player, wake func()) *Inbox {
	if p.Guest || p.ID == "" {
		return nil
	}
	in := &Inbox{cs: cs, player: p, changed: make(chan struct{}), wake: wake}
	cs.mu.Lock()
	cs.inboxes[string(p.ID)] = append(cs.inboxes[string(p.ID)], in)
	cs.mu.Unlock()
	return in
}

// ChallengeSpec is what a challenger asks for: a game's mode, casual or
// ranked.
type ChallengeSpec struct {
	Game, Mode string
	Ranked     bool
}

// Issue sends a challenge from the session in to the online player named
// to. Refusals are *ChallengeError with the reason in the challenger's
// words: a muted challenger; either side offline, a guest, or holding a
// seat in a ranked match; the same player declined this challenger
// recently; too many challenges sent lately; one already waiting; and for
// ranked, a mode two players cannot fill, a leaver's cooldown on either
// side, or the two having played each other's last ranked match.
func (cs *Challenges) Issue(in *Inbox, to string, spec ChallengeSpec) (Challenge, error) {
	if in == nil {
		return Challenge{}, refuse("Guests can't challenge: connect with an SSH key")
	}
	now := cs.now()
	from := in.player
	if cs.mutes != nil {
		if until, _, muted := cs.mutes.Muted(string(from.ID), now); muted {
			return Challenge{}, refuse("You are muted, so you can't challenge anyone for %s", until.Sub(now).Round(time.Second))
		}
	}
	k, m, ok := cs.rooms.Games().Mode(spec.Game, spec.Mode)
	if !ok {
		return Challenge{}, refuse("There is no %s %s to play", spec.Game, spec.Mode)
	}
	c := Challenge{From: from, Game: k.Name(), Mode: m.Name}
	if spec.Ranked {
		switch {
		case m.Ranked == "" || cs.mm == nil:
			return Challenge{}, refuse("%s %s is not played ranked here: challenge casual", k.Name(), m.Name)
		case m.Table != 2:
			return Challenge{}, refuse("A ranked %s match needs %d players and a challenge seats two: queue for it (P), or challenge casual", m.Ranked, m.Table)
		}
		c.Ranked = RankedMode(m.Ranked)
	} else if !m.Casual {
		return Challenge{}, refuse("%s %s is played ranked only: add ranked", k.Name(), m.Name)
	}

	// Asked before taking the lock: the hub's lock is never taken under
	// the challenges'.
	var remote Presence
	remoteOK := false
	if cs.elsewhere != nil {
		remote, remoteOK = cs.elsewhere(to)
	}

	cs.mu.Lock()
	defer cs.mu.Unlock()
	if in.closed {
		return Challenge{}, refuse("This session has ended")
	}
	target, online := cs.findLocked(to)
	node := ""
	switch {
	case strings.EqualFold(to, from.Name) || target.ID == from.ID:
		return Challenge{}, refuse("You can't challenge yourself")
	case !online && remoteOK && !remote.Guest && cs.relay == nil:
		return Challenge{}, refuse("%s is on node %s: connect to %s to challenge them (challenges stay on one node for now)", remote.Name, remote.Node, remote.Node)
	case !online && remoteOK && !remote.Guest:
		if remote.ID == string(from.ID) {
			return Challenge{}, refuse("You can't challenge yourself")
		}
		// On another node: the challenge goes there (challenge_remote.go).
		target, online, node = game.Player{ID: game.PlayerID(remote.ID), Name: remote.Name}, true, remote.Node
	case !online:
		return Challenge{}, refuse("Nobody named %s is online (guests can't be challenged)", to)
	}
	c.To = target
	if p := cs.outgoingLocked(in); p != nil {
		return Challenge{}, refuse("You are already challenging %s (%s left): /cancel it first", p.To.Name, p.Expires.Sub(now).Round(time.Second))
	}
	if when, ok := cs.declined[[2]string{string(from.ID), string(target.ID)}]; ok {
		if left := when.Add(cs.cfg.DeclineCooldown).Sub(now); left > 0 {
			return Challenge{}, refuse("%s declined your challenge lately: you can challenge them again in %s", target.Name, left.Round(time.Second))
		}
		delete(cs.declined, [2]string{string(from.ID), string(target.ID)})
	}
	recent := slices.DeleteFunc(cs.sent[string(from.ID)], func(t time.Time) bool { return !t.Add(cs.cfg.Window).After(now) })
	cs.sent[string(from.ID)] = recent
	if len(recent) >= cs.cfg.Rate {
		return Challenge{}, refuse("You sent %d challenges in the last %s: wait %s", len(recent), cs.cfg.Window, recent[0].Add(cs.cfg.Window).Sub(now).Round(time.Second))
	}
	if err := cs.busyLocked(c, now); err != nil {
		return Challenge{}, err
	}

	cs.seq++
	c.ID = cs.seq
	c.Expires = now.Add(cs.cfg.Expiry)
	id := c.ID
	p := &pending{Challenge: c, from: in, node: node, peer: id}
	p.timer = time.AfterFunc(cs.cfg.Expiry, func() { cs.expire(id) })
	cs.pending[id] = p
	cs.order = append(cs.order, id)
	cs.sent[string(from.ID)] = append(recent, now)
	if node != "" {
		cs.sendLocked(p, ChallengeNote{Op: NoteOffer, Challenge: c})
		return c, nil
	}
	cs.offerLocked(c)
	return c, nil
}

// offerLocked shows challenge c to every session of its challenged player.
func (cs *Challenges) offerLocked(c Challenge) {
	offer := ChallengeEvent{Offer: true, Text: fmt.Sprintf("%s challenges you to %s · y accept · n decline (or /accept, /decline) · %s to answer",
		c.From.Name, c.What(), cs.cfg.Expiry.Round(time.Second))}
	for _, in := range cs.inboxes[string(c.To.ID)] {
		cs.postStartLocked(in, offer)
	}
}

// busyLocked refuses a challenge either side cannot play now: a seat in
// a ranked match (one ranked match per key, casual or not: the challenge
// would call them away from it), and for a ranked challenge the leave
// cooldown and the rematch rule the ranked queue applies.
func (cs *Challenges) busyLocked(c Challenge, now time.Time) error {
	if cs.mm == nil {
		return nil
	}
	if r := cs.mm.InMatch(string(c.From.ID)); r != nil {
		return refuse("You are playing a ranked %s match in %s: challenge when it ends", r.Ranked, r.ID())
	}
	if r := cs.mm.InMatch(string(c.To.ID)); r != nil {
		return refuse("%s is playing a ranked match (%s): challenge them when it ends", c.To.Name, r.ID())
	}
	if c.Ranked == "" {
		return nil
	}
	if until, blocked := cs.mm.cooldowns.Check(string(c.From.ID), now); blocked {
		return refuse("You left ranked matches lately: you can play ranked again in %s (casual is open)", until.Sub(now).Round(time.Second))
	}
	if until, blocked := cs.mm.cooldowns.Check(string(c.To.ID), now); blocked {
		return refuse("%s left ranked matches lately and can't play ranked for %s: challenge them casual", c.To.Name, until.Sub(now).Round(time.Second))
	}
	if cs.mm.lastOpponents(string(c.From.ID), string(c.To.ID)) {
		return refuse("You and %s played each other's last ranked match: play someone else ranked first, or challenge %s casual", c.To.Name, c.To.Name)
	}
	return nil
}

// findLocked finds the online player named name (not a guest).
func (cs *Challenges) findLocked(name string) (game.Player, bool) {
	for _, list := range cs.inboxes {
		if len(list) > 0 && strings.EqualFold(list[0].player.Name, name) {
			return list[0].player, true
		}
	}
	return game.Player{}, false
}

func (cs *Challenges) outgoingLocked(in *Inbox) *pending {
	for _, id := range cs.order {
		if p := cs.pending[id]; p.from == in {
			return p
		}
	}
	return nil
}

// answerLocked finds the challenge to in's player that name sent ("" for
// the newest).
func (cs *Challenges) answerLocked(in *Inbox, name string) (*pending, error) {
	for i := len(cs.order) - 1; i >= 0; i-- {
		p := cs.pending[cs.order[i]]
		if p.To.ID == in.player.ID && !p.outbound() && (name == "" || strings.EqualFold(p.From.Name, name)) {
			return p, nil
		}
	}
	if name != "" {
		return nil, refuse("%s has not challenged you (or it expired)", name)
	}
	return nil, refuse("Nobody is challenging you now")
}

// Accept takes the challenge to in's player from name ("" for the
// newest) and makes its room: a private casual room, or a ranked match
// made as the ranked queue makes one (seats bound to the two, rated, the
// one-ranked-match-per-key rule). Both sessions get a ChallengeStart:
// the challenger's on slot 0, in's on the first seat of the other side.
func (cs *Challenges) Accept(in *Inbox, name string) (Challenge, error) {
	if in == nil {
		return Challenge{}, refuse("Guests can't be challenged")
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	p, err := cs.answerLocked(in, name)
	if err != nil {
		return Challenge{}, err
	}
	now := cs.now()
	// Time passed since the challenge: the rules hold at the start too.
	if err := cs.busyLocked(p.Challenge, now); err != nil {
		cs.dropLocked(p.ID)
		cs.postFromLocked(p, fmt.Sprintf("Your challenge to %s could not start. %v.", p.To.Name, err))
		cs.sendLocked(p, ChallengeNote{Op: NoteEnded, Text: fmt.Sprintf("Your challenge to %s could not start. %v.", p.To.Name, err)})
		return Challenge{}, err
	}
	var r *Room
	var slots [2]int
	if p.Ranked != "" {
		r, err = cs.mm.startChallenge(p.Challenge)
		if err == nil {
			slots = [2]int{r.Seats[p.From.ID], r.Seats[p.To.ID]}
		}
	} else {
		r, err = cs.rooms.Create(p.Game, p.Mode, true)
		if err == nil {
			slots = [2]int{0, opponentSlot(r.Mode)}
		}
	}
	cs.dropLocked(p.ID)
	if err != nil {
		why := strings.TrimPrefix(err.Error(), "lobby: ")
		cs.postFromLocked(p, fmt.Sprintf("Your challenge to %s could not start: %s.", p.To.Name, why))
		cs.sendLocked(p, ChallengeNote{Op: NoteEnded, Text: fmt.Sprintf("Your challenge to %s could not start: %s.", p.To.Name, why)})
		return Challenge{}, refuse("The match could not start: %s", why)
	}
	accepted := fmt.Sprintf("%s accepted your challenge: %s in %s.", p.To.Name, p.What(), r.ID())
	if p.from != nil {
		cs.postStartLocked(p.from, ChallengeEvent{Text: accepted, Start: &ChallengeStart{Room: r, Slot: slots[0], With: p.To.Name}})
	}
	// The challenger on another node sits in it from there.
	cs.sendLocked(p, ChallengeNote{Op: NoteAccepted, Text: accepted, Room: r.ID(), Slot: slots[0]})
	cs.postStartLocked(in, ChallengeEvent{Start: &ChallengeStart{Room: r, Slot: slots[1], With: p.From.Name}})
	cs.tellLocked(p.To.ID, in, "") // other terminals drop the notice
	return p.Challenge, nil
}

// opponentSlot is where the challenged player sits: across the table
// (the other team's first seat in a team mode).
func opponentSlot(m game.Mode) int {
	if len(m.Teams) > 1 && len(m.Teams[1]) > 0 {
		return m.Teams[1][0]
	}
	return 1
}

// Decline turns down the challenge to in's player from name ("" for the
// newest); the challenger may not challenge this player again for
// DeclineCooldown.
func (cs *Challenges) Decline(in *Inbox, name string) (Challenge, error) {
	if in == nil {
		return Challenge{}, refuse("Guests can't be challenged")
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	p, err := cs.answerLocked(in, name)
	if err != nil {
		return Challenge{}, err
	}
	cs.dropLocked(p.ID)
	cs.declined[[2]string{string(p.From.ID), string(p.To.ID)}] = cs.now()
	cs.postFromLocked(p, fmt.Sprintf("%s declined your challenge (%s).", p.To.Name, p.What()))
	cs.sendLocked(p, ChallengeNote{Op: NoteDeclined, Text: fmt.Sprintf("%s declined your challenge (%s).", p.To.Name, p.What())})
	cs.tellLocked(p.To.ID, nil, "")
	return p.Challenge, nil
}

// Cancel withdraws the challenge in's session sent.
func (cs *Challenges) Cancel(in *Inbox) (Challenge, error) {
	if in == nil {
		return Challenge{}, refuse("Guests can't challenge")
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	p := cs.outgoingLocked(in)
	if p == nil {
		return Challenge{}, refuse("You have no challenge waiting")
	}
	cs.dropLocked(p.ID)
	cs.tellLocked(p.To.ID, nil, fmt.Sprintf("%s withdrew their challenge (%s).", p.From.Name, p.What()))
	cs.sendLocked(p, ChallengeNote{Op: NoteWithdrawn, Text: fmt.Sprintf("%s withdrew their challenge (%s).", p.From.Name, p.What())})
	cs.postLocked(p.from, "")
	return p.Challenge, nil
}

// expire ends a challenge nobody answered in time.
func (cs *Challenges) expire(id uint64) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	p := cs.pending[id]
	if p == nil {
		return
	}
	cs.dropLocked(id)
	cs.postFromLocked(p, fmt.Sprintf("Your challenge to %s expired: no answer in %s.", p.To.Name, cs.cfg.Expiry.Round(time.Second)))
	cs.tellLocked(p.To.ID, nil, fmt.Sprintf("%s's challenge expired.", p.From.Name))
}

func (cs *Challenges) dropLocked(id uint64) {
	if p := cs.pending[id]; p != nil {
		p.timer.Stop()
		delete(cs.pending, id)
		cs.order = slices.DeleteFunc(cs.order, func(o uint64) bool { return o == id })
	}
}

// tellLocked posts text to every session of player id but skip ("" posts
// nothing but still says the challenges changed).
func (cs *Challenges) tellLocked(id game.PlayerID, skip *Inbox, text string) {
	for _, in := range cs.inboxes[string(id)] {
		if in != skip {
			cs.postLocked(in, text)
		}
	}
}

func (cs *Challenges) postLocked(in *Inbox, text string) {
	if text == "" {
		cs.signalLocked(in)
		return
	}
	cs.postStartLocked(in, ChallengeEvent{Text: text})
}

func (cs *Challenges) postStartLocked(in *Inbox, e ChallengeEvent) {
	if in.closed {
		return
	}
	if len(in.events) >= maxInboxEvents {
		// Drop the oldest words, never a start.
		if i := slices.IndexFunc(in.events, func(e ChallengeEvent) bool { return e.Start == nil }); i >= 0 {
			in.events = slices.Delete(in.events, i, i+1)
		}
	}
	in.events = append(in.events, e)
	cs.signalLocked(in)
}

func (cs *Challenges) signalLocked(in *Inbox) {
	close(in.changed)
	in.changed = make(chan struct{})
	if in.wake != nil && !in.woken && !in.closed {
		in.woken = true
		in.wake()
	}
}
