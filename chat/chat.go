package chat

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/termarena/termarena/sanitize"
)

// Config tunes a Chat. Zero fields take the defaults.
type Config struct {
	// Filter masks profanity; nil means DefaultFilter(). NewFilter(nil, nil)
	// masks nothing.
	Filter *Filter
	// Buffer is how many messages a subscriber can fall behind by before
	// the oldest are dropped (default 100).
	Buffer int
	// History is how many lobby messages are kept for newcomers (default 50).
	History int
	Flood   FloodConfig
	// Relay, when set, is given every lobby message sent on this Chat (a
	// player's line, a server post), for the other nodes of a cluster to
	// Deliver. It runs under the chat's lock: it must not block. In a
	// cluster whispers are relayed too: the nodes holding the recipient's
	// or the sender's other sessions show it there.
	Relay func(Message)
	// Elsewhere, when set, finds a player online on another node of a
	// cluster by lower-cased name and returns the name as written: a
	// whisper to them is admitted here and handed to Relay. It is called
	// outside the chat's lock.
	Elsewhere func(name string) (string, bool)
}

const (
	defaultBuffer  = 100
	defaultHistory = 50
	// maxIgnores bounds what one member can make the server remember.
	maxIgnores = 100
	// sweepEvery is how many sends pass between sweeps of stale state; it
	// amortises the sweep's scan over many sends.
	sweepEvery = 256
)

// Chat is the server's chat: channels, subscribers, per-member state (flood
// control, ignores, the last whisperer) and mutes. It is safe for concurrent
// use.
//
// One mutex guards it all. Delivery happens while holding it, but delivery
// never blocks (it appends to a subscriber's ring and pokes a capacity-1
// channel), so the lock is held for microseconds however slow the readers.
type Chat struct {
	cfg    Config
	filter *Filter

	mu       sync.Mutex
	nextID   uint64
	members  map[string]*member // by identity; online, or offline with state worth keeping
	names    map[string]*member // lower-cased name → online member
	channels map[ChannelKey][]*Sub
	mutes    map[string]muteEntry // by identity; the server restores them at startup
	// roles are roles changed while the server runs (a promotion), by
	// identity: they win over the role a session was opened with, so a
	// moderator promoted while online moderates at once.
	roles    map[string]Role
	history  []*Message // lobby ring, oldest at histHead
	histN    int
	histHead int
	sends    atomic.Uint64 // Send calls, to pace sweeps
	// latest is the latest time a message was admitted at: a session's
	// Close has no time of its own, and judging against this one can only
	// keep a member's flood memory longer, never drop it early.
	latest time.Time
}

type muteEntry struct {
	until  time.Time // zero: until lifted
	reason string
}

// member is what Chat remembers about one identity.
type member struct {
	Member
	subs          []*Sub
	ignores       map[string]struct{} // lower-cased names
	lastWhisperer string
	flood         floodState
	lastActive    time.Time
}

func (m *member) ignoring(name string) bool {
	if len(m.ignores) == 0 {
		return false
	}
	_, ok := m.ignores[strings.ToLower(name)]
	return ok
}

// New returns an empty Chat.
func New(cfg Config) *Chat {
	if cfg.Filter == nil {
		cfg.Filter = DefaultFilter()
	}
	if cfg.Buffer <= 0 {
		cfg.Buffer = defaultBuffer
	}
	if cfg.History <= 0 {
		cfg.History = defaultHistory
	}
	cfg.Flood = cfg.Flood.withDefaults()
	return &Chat{
		cfg:      cfg,
		filter:   cfg.Filter,
		members:  map[string]*member{},
		names:    map[string]*member{},
		channels: map[ChannelKey][]*Sub{},
		mutes:    map[string]muteEntry{},
		roles:    map[string]Role{},
		history:  make([]*Message, cfg.History),
	}
}

// memberLocked returns the state of m.ID, creating it, and refreshes what
// the caller says about the member (a rename, a role change).
func (c *Chat) memberLocked(m Member) *member {
	m = c.liveLocked(m)
	st := c.members[m.ID]
	if st == nil {
		st = &member{Member: m}
		c.members[m.ID] = st
		return st
	}
	if st.Name != m.Name && len(st.subs) > 0 {
		if c.names[strings.ToLower(st.Name)] == st {
			delete(c.names, strings.ToLower(st.Name))
		}
		c.names[strings.ToLower(m.Name)] = st
	}
	st.Member = m
	return st
}

// SetRole records a role given or taken while id is (or may be) online:
// every session of theirs acts with it from now on, whatever role it was
// opened with. Admins are admins by their key and keep that.
func (c *Chat) SetRole(id string, r Role) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.roles[id] = r
	if st := c.members[id]; st != nil {
		st.Member = c.liveLocked(st.Member)
	}
}

// liveLocked is m with its role as it stands now.
func (c *Chat) liveLocked(m Member) Member {
	if r, ok := c.roles[m.ID]; ok && m.Role != Admin {
		m.Role = r
	}
	return m
}

// Join subscribes a session of m to channels and returns its subscription,
// which the session must Close when it ends. When the lobby is among the
// channels, the lobby history (less what m ignores) is waiting in it.
// WhisperChannel need not be given: whispers reach every session anyway.
func (c *Chat) Join(m Member, channels ...ChannelKey) *Sub {
	s := &Sub{c: c, buf: make([]*Message, c.cfg.Buffer), notify: make(chan struct{}, 1)}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.memberLocked(m)
	s.m = st
	st.subs = append(st.subs, s)
	c.names[strings.ToLower(m.Name)] = st
	c.setChannelsLocked(s, channels)
	return s
}

// setChannelsLocked moves s to exactly channels and, when that brings it
// into the lobby, hands it the history it has not seen.
func (c *Chat) setChannelsLocked(s *Sub, channels []ChannelKey) {
	want := make([]ChannelKey, 0, len(channels))
	for _, ch := range channels {
		if ch != "" && ch != WhisperChannel && !slices.Contains(want, ch) {
			want = append(want, ch)
		}
	}
	for _, ch := range s.channels {
		if !slices.Contains(want, ch) {
			c.channels[ch] = removeSub(c.channels[ch], s)
			if len(c.channels[ch]) == 0 {
				delete(c.channels, ch)
			}
		}
	}
	enteredLobby := false
	for _, ch := range want {
		if !slices.Contains(s.channels, ch) {
			c.channels[ch] = append(c.channels[ch], s)
			enteredLobby = enteredLobby || ch == LobbyChannel
		}
	}
	s.channels = want
	if enteredLobby {
		for i := range c.histN {
			msg := c.history[(c.histHead+i)%len(c.history)]
			if msg.ID > s.lobbySeen && !(msg.Kind.ignorable() && s.m.ignoring(msg.From)) {
				s.push(msg)
			}
		}
	}
}

func removeSub(subs []*Sub, s *Sub) []*Sub {
	if i := slices.Index(subs, s); i >= 0 {
		last := len(subs) - 1
		subs[i] = subs[last]
		subs[last] = nil
		return subs[:last]
	}
	return subs
}

// closeLocked unsubscribes s. A member's state outlives its last session
// only when it still matters (a mute, recent flooding, ignores) so
// reconnecting does not reset flood control; otherwise it goes with the
// session, so memory follows who is online rather than everyone who
// ever connected.
func (c *Chat) closeLocked(s *Sub) {
	c.setChannelsLocked(s, nil)
	st := s.m
	st.subs = removeSub(st.subs, s)
	if len(st.subs) > 0 {
		return
	}
	if key := strings.ToLower(st.Name); c.names[key] == st {
		delete(c.names, key)
	}
	if c.forgettableLocked(st, c.latest) {
		delete(c.members, st.ID)
	}
}

// forgettableLocked: nothing of the offline member st is worth keeping at
// now: a guest (guest identities never come back), or a player with no
// ignores, no mute and no flooding the flood control still remembers.
func (c *Chat) forgettableLocked(st *member, now time.Time) bool {
	if st.Guest {
		return true
	}
	if len(st.ignores) > 0 {
		return false
	}
	if _, muted := c.mutes[st.ID]; muted {
		return false
	}
	if st.lastActive.IsZero() {
		return true // never sent anything: no flood memory to keep
	}
	return now.Sub(st.lastActive) >= c.cfg.Flood.memory() && !st.flood.escalated(c.cfg.Flood, now)
}

// History returns the kept messages of ch, oldest first. Only the lobby has
// history; other channels return nil.
func (c *Chat) History(ch ChannelKey) []Message {
	if ch != LobbyChannel {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Message, 0, c.histN)
	for i := range c.histN {
		out = append(out, *c.history[(c.histHead+i)%len(c.history)])
	}
	return out
}

// Lookup returns the online member called name (any case).
func (c *Chat) Lookup(name string) (Member, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.names[strings.ToLower(name)]; m != nil {
		return m.Member, true
	}
	return Member{}, false
}

// Who returns the members with a session on ch, sorted by name. For
// WhisperChannel it returns everyone online.
func (c *Chat) Who(ch ChannelKey) []Member {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.whoLocked(ch)
}

func (c *Chat) whoLocked(ch ChannelKey) []Member {
	var out []Member
	if ch == WhisperChannel {
		for _, m := range c.names {
			out = append(out, m.Member)
		}
	} else {
		seen := map[*member]bool{}
		for _, s := range c.channels[ch] {
			if !seen[s.m] {
				seen[s.m] = true
				out = append(out, s.m.Member)
			}
		}
	}
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// SetMuted mutes identity id until the given time (zero: until ClearMuted),
// whether or not they are online: the server calls it for mutes it restores
// at startup as well as for new ones.
func (c *Chat) SetMuted(id string, until time.Time, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mutes[id] = muteEntry{until: until, reason: sanitize.Text(reason, maxReason)}
}

// UnmutedText is what a member's sessions are told when their mute is
// lifted.
const UnmutedText = "your mute was lifted: you can chat again"

// ClearMuted is LiftMute now: what the server calls when a moderator
// lifts a mute.
func (c *Chat) ClearMuted(id string) { c.LiftMute(id, time.Now()) }

// LiftMute lifts id's mute. Flood control's escalation is kept: it is
// about behaviour, not about the mute in force. When a mute was in force
// at now, every session of the member is told (a Notice, UnmutedText),
// whoever lifted it: that is also what makes a session drop its "you are
// muted" line at once. A mute that ran out is not announced here: the
// sessions see it end on their own clock.
func (c *Chat) LiftMute(id string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, muted := c.mutedLocked(id, now)
	delete(c.mutes, id)
	st := c.members[id]
	if !muted || st == nil {
		return
	}
	msg := c.newMessageLocked(Message{Time: now, Kind: Notice, Text: UnmutedText})
	for _, s := range st.subs {
		s.push(msg)
	}
}

// Muted reports whether id is muted at now, until when (zero: until
// lifted) and why.
func (c *Chat) Muted(id string, now time.Time) (until time.Time, reason string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.mutedLocked(id, now)
	return e.until, e.reason, ok
}

func (c *Chat) mutedLocked(id string, now time.Time) (muteEntry, bool) {
	e, ok := c.mutes[id]
	if !ok {
		return muteEntry{}, false
	}
	if !e.until.IsZero() && !now.Before(e.until) {
		delete(c.mutes, id)
		return muteEntry{}, false
	}
	return e, true
}

// maxPost bounds server text, which may quote a moderator's reason.
const maxPost = 2 * MaxText

// Post sends server text (an announcement, a moderation notice) to everyone
// on ch. It is not filtered and nobody can ignore it; it is sanitised, since
// it may quote a name or a reason. Lobby posts join the history.
func (c *Chat) Post(ch ChannelKey, kind Kind, text string, now time.Time) Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	msg := c.newMessageLocked(Message{Time: now, Channel: ch, Kind: kind, Text: sanitize.Text(text, maxPost)})
	c.fanoutLocked(msg)
	return *msg
}

// Tell sends server text to every session of identity id (a warning, the
// reason for a kick) and returns how many sessions got it. Its Channel is
// empty: it belongs to no channel.
func (c *Chat) Tell(id string, kind Kind, text string, now time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.members[id]
	if st == nil || len(st.subs) == 0 {
		return 0
	}
	msg := c.newMessageLocked(Message{Time: now, Kind: kind, Text: sanitize.Text(text, maxPost)})
	for _, s := range st.subs {
		s.push(msg)
	}
	return len(st.subs)
}

func (c *Chat) newMessageLocked(m Message) *Message {
	c.nextID++
	m.ID = c.nextID
	return &m
}

// Deliver shows a lobby message sent on another node of a cluster to this
// Chat's lobby (ignores apply; it joins the history) without relaying it
// again, and a whisper to the sessions here of its recipient (unless
// ignoring the sender; /r then answers them) and of its sender. Messages
// of other channels are not shared and are dropped.
func (c *Chat) Deliver(m Message) {
	if m.Channel == WhisperChannel {
		c.deliverWhisper(m)
		return
	}
	if m.Channel != LobbyChannel {
		return
	}
	m.Text = sanitize.Text(m.Text, maxPost) // from the wire: never trusted to be clean
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fanoutTo(c.newMessageLocked(m))
}

func (c *Chat) deliverWhisper(m Message) {
	m.Kind = Whisper
	m.Text = sanitize.Text(m.Text, MaxText) // from the wire: never trusted to be clean
	c.mu.Lock()
	defer c.mu.Unlock()
	msg := c.newMessageLocked(m)
	if from := c.members[m.FromID]; from != nil {
		for _, s := range from.subs {
			s.push(msg) // the sender's sessions on this node follow the conversation
		}
	}
	to := c.names[strings.ToLower(m.To)]
	if to == nil || to.ID == m.FromID || to.ignoring(m.From) {
		return
	}
	for _, s := range to.subs {
		s.push(msg)
	}
	to.lastWhisperer = strings.ToLower(m.From)
}

// fanoutLocked delivers a channel message to its subscribers (less those
// ignoring the sender) and keeps lobby history.
func (c *Chat) fanoutLocked(msg *Message) {
	if msg.Channel == LobbyChannel && c.cfg.Relay != nil {
		c.cfg.Relay(*msg)
	}
	c.fanoutTo(msg)
}

// fanoutTo is fanoutLocked without the relay.
func (c *Chat) fanoutTo(msg *Message) {
	ignorable := msg.Kind.ignorable()
	for _, s := range c.channels[msg.Channel] {
		if ignorable && s.m.ignoring(msg.From) {
			continue
		}
		s.push(msg)
	}
	if msg.Channel == LobbyChannel {
		if c.histN < len(c.history) {
			c.history[(c.histHead+c.histN)%len(c.history)] = msg
			c.histN++
		} else {
			c.history[c.histHead] = msg
			c.histHead = (c.histHead + 1) % len(c.history)
		}
	}
}

// sweepLocked forgets offline members whose state no longer matters and
// expired mutes, so memory follows the people active lately rather than
// everyone ever seen.
func (c *Chat) sweepLocked(now time.Time) {
	for id, e := range c.mutes {
		if !e.until.IsZero() && !now.Before(e.until) {
			delete(c.mutes, id)
		}
	}
	for id, st := range c.members {
		if len(st.subs) == 0 && c.forgettableLocked(st, now) {
			delete(c.members, id)
		}
	}
}
