package chat

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/termarena/termarena/sanitize"
)

// Result is what Send did.
type Result struct {
	// Delivered: a message went out (a whisper to someone ignoring the
	// sender counts as delivered; the sender is not told they are ignored).
	Delivered bool
	// Reply is for the sender's eyes only: why nothing was sent, hints,
	// /who and /help output. Reply messages have ID 0 and never pass
	// through a Sub.
	Reply []Message
	// Action is a moderation action for the server to carry out: a
	// moderator's command, or an automatic mute (Auto). The server tells the
	// moderator how it went.
	Action *ModAction
}

// GuestRefusal is why guests cannot chat.
const GuestRefusal = "guests can read but not chat: connect with an SSH key"

// maxInput leaves room for a command and a name in front of a full message.
const maxInput = MaxText + 64

// Send handles one line typed by from on channel ch at now: plain text is
// said on ch; a line starting with "/" is a command (/help lists them); "//"
// sends a line that starts with "/". Plain text typed on WhisperChannel
// replies to the last whisperer.
//
// The sender is always told, in Reply, why something was not sent.
func (c *Chat) Send(from Member, ch ChannelKey, input string, now time.Time) Result {
	if c.sends.Add(1)%sweepEvery == 0 {
		c.mu.Lock()
		c.sweepLocked(now)
		c.mu.Unlock()
	}
	in := strings.TrimSpace(sanitize.Text(input, maxInput))
	if in == "" {
		if strings.TrimSpace(input) == "" {
			return c.reply(ch, now, "nothing to send: the message is empty")
		}
		return c.reply(ch, now, "nothing to send: the message had only control or invisible characters")
	}
	if from.ID == "" {
		// The server always knows who is typing; refusing beats filing
		// flood state under "".
		return c.reply(ch, now, "not sent: unknown sender")
	}
	c.mu.Lock()
	from = c.liveLocked(from) // a promotion since the session opened counts
	c.mu.Unlock()
	if in[0] != '/' || strings.HasPrefix(in, "//") {
		text := in
		if strings.HasPrefix(in, "//") {
			text = in[1:]
		}
		if ch == WhisperChannel {
			return c.replyWhisper(from, ch, text, now)
		}
		return c.say(from, ch, Say, text, now)
	}
	cmd, args := splitWord(in[1:])
	switch strings.ToLower(cmd) {
	case "help", "h", "?":
		return c.help(from, ch, now)
	case "who":
		return c.who(ch, now)
	case "ignore":
		return c.ignore(from, ch, args, now)
	case "unignore":
		return c.unignore(from, ch, args, now)
	case "me":
		return c.say(from, ch, Me, args, now)
	case "w", "whisper", "msg", "tell":
		return c.whisperCmd(from, ch, args, now)
	case "r", "reply":
		return c.replyWhisper(from, ch, args, now)
	}
	if kind, ok := modCommand(strings.ToLower(cmd)); ok {
		if from.Guest {
			return c.reply(ch, now, GuestRefusal)
		}
		a, why := c.moderate(from, kind, args, now)
		if why != "" {
			return c.reply(ch, now, why)
		}
		return Result{Action: a}
	}
	return c.reply(ch, now, fmt.Sprintf("unknown command /%s: /help lists the commands", sanitize.Arg(cmd)))
}

func (c *Chat) reply(ch ChannelKey, now time.Time, lines ...string) Result {
	r := Result{Reply: make([]Message, len(lines))}
	for i, l := range lines {
		r.Reply[i] = Message{Time: now, Channel: ch, Kind: System, Text: l}
	}
	return r
}

// splitWord cuts s at its first run of spaces.
func splitWord(s string) (word, rest string) {
	s = strings.TrimLeft(s, " ")
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i], strings.TrimLeft(s[i+1:], " ")
	}
	return s, ""
}

// maxNameLen is generous: chat only looks names up, the store decides them.
const maxNameLen = 32

// parseName reads a name argument ("@Bob" means bob), or says why it is not
// one.
func parseName(s string) (string, string) {
	n := strings.ToLower(strings.TrimPrefix(s, "@"))
	ok := n != "" && len(n) <= maxNameLen
	for i := 0; ok && i < len(n); i++ {
		c := n[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	if !ok {
		return "", fmt.Sprintf("%q is not a name: names are a-z, 0-9, _ and -", sanitize.Arg(s))
	}
	return n, ""
}

// mutedLine explains a mute to the muted.
func mutedLine(e muteEntry, now time.Time) string {
	s := "you are muted until a moderator lifts it"
	if !e.until.IsZero() {
		s = "you are muted for " + FormatDuration(e.until.Sub(now))
	}
	if e.reason != "" {
		s += ": " + e.reason
	}
	return s
}

// admitLocked runs the checks every outgoing message passes once it is
// well-formed: mutes, then flood control. It returns ok, or the refusal
// (with an automatic mute when this refusal was one too many).
func (c *Chat) admitLocked(st *member, ch ChannelKey, kind Kind, text string, now time.Time) (Result, bool) {
	if e, muted := c.mutedLocked(st.ID, now); muted {
		return c.reply(ch, now, mutedLine(e, now)), false
	}
	st.lastActive = now
	if now.After(c.latest) {
		c.latest = now
	}
	why := st.flood.check(c.cfg.Flood, dupKey(kind, text), now)
	if why == "" {
		return Result{}, true
	}
	res := c.reply(ch, now, why)
	d, mute := st.flood.violation(c.cfg.Flood, now)
	if !mute {
		return res, false
	}
	e := muteEntry{until: now.Add(d), reason: floodReason}
	c.mutes[st.ID] = e
	res.Reply = append(res.Reply, c.reply(ch, now, mutedLine(e, now)).Reply...)
	res.Action = &ModAction{
		Kind: Mute, Target: strings.ToLower(st.Name), TargetID: st.ID, Duration: d,
		Reason: floodReason, Actor: SystemActor, Auto: true, Time: now,
	}
	return res, false
}

// say posts a Say or Me on ch.
func (c *Chat) say(from Member, ch ChannelKey, kind Kind, text string, now time.Time) Result {
	if from.Guest {
		return c.reply(ch, now, GuestRefusal)
	}
	text = strings.TrimSpace(capMarks(sanitize.Text(text, MaxText)))
	if text == "" {
		if kind == Me {
			return c.reply(ch, now, "usage: /me ACTION (e.g. /me waves)")
		}
		return c.reply(ch, now, "nothing to send: the message is empty")
	}
	if ch == WhisperChannel {
		return c.reply(ch, now, "whispers need a name: /w NAME message, or /r message")
	}
	// The filter is pure and the slowest step, so it runs outside the lock.
	shown := c.filter.Mask(text)

	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.memberLocked(from)
	if !st.on(ch) {
		// A session speaks only where it listens: this is what keeps a
		// spectator out of a ranked room's channel.
		return c.reply(ch, now, fmt.Sprintf("not sent: you are not in %s", ch))
	}
	if res, ok := c.admitLocked(st, ch, kind, text, now); !ok {
		return res
	}
	msg := c.newMessageLocked(Message{
		Time: now, Channel: ch, From: from.Name, FromID: from.ID, Kind: kind, Text: shown,
	})
	c.fanoutLocked(msg)
	return Result{Delivered: true}
}

func (m *member) on(ch ChannelKey) bool {
	for _, s := range m.subs {
		for _, c := range s.channels {
			if c == ch {
				return true
			}
		}
	}
	return false
}

func (c *Chat) whisperCmd(from Member, ch ChannelKey, args string, now time.Time) Result {
	if from.Guest {
		return c.reply(ch, now, GuestRefusal)
	}
	name, text := splitWord(args)
	if name == "" || strings.TrimSpace(text) == "" {
		return c.reply(ch, now, "usage: /w NAME message")
	}
	target, why := parseName(name)
	if why != "" {
		return c.reply(ch, now, why)
	}
	return c.whisper(from, ch, target, text, now)
}

func (c *Chat) replyWhisper(from Member, ch ChannelKey, text string, now time.Time) Result {
	if from.Guest {
		return c.reply(ch, now, GuestRefusal)
	}
	if strings.TrimSpace(text) == "" {
		return c.reply(ch, now, "usage: /r message (replies to your last whisper)")
	}
	c.mu.Lock()
	target := ""
	if st := c.members[from.ID]; st != nil {
		target = st.lastWhisperer
	}
	c.mu.Unlock()
	if target == "" {
		return c.reply(ch, now, "nobody has whispered to you yet: /w NAME message")
	}
	return c.whisper(from, ch, target, text, now)
}

// whisper sends text from from to the online member named target (lower
// case). Replies go on ch, the channel the sender typed in.
func (c *Chat) whisper(from Member, ch ChannelKey, target, text string, now time.Time) Result {
	text = strings.TrimSpace(capMarks(sanitize.Text(text, MaxText)))
	if text == "" {
		return c.reply(ch, now, "usage: /w NAME message")
	}
	shown := c.filter.Mask(text)
	// On another node of a cluster? Asked before taking the chat's lock,
	// so the chat never waits on who-is-online's lock.
	var remote string
	if c.cfg.Elsewhere != nil && target != strings.ToLower(from.Name) {
		remote, _ = c.cfg.Elsewhere(target)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.memberLocked(from)
	if e, muted := c.mutedLocked(st.ID, now); muted {
		return c.reply(ch, now, mutedLine(e, now)) // before anything about the target
	}
	to := c.names[target]
	toName := remote
	switch {
	case to == st || target == strings.ToLower(from.Name):
		return c.reply(ch, now, "you cannot whisper to yourself")
	case to == nil && remote == "":
		return c.reply(ch, now, fmt.Sprintf("%s is not online (/who lists who is here)", target))
	case to != nil:
		toName = to.Name
	}
	if res, ok := c.admitLocked(st, ch, Whisper, text, now); !ok {
		return res
	}
	msg := c.newMessageLocked(Message{
		Time: now, Channel: WhisperChannel, From: from.Name, FromID: from.ID,
		Kind: Whisper, Text: shown, To: toName,
	})
	for _, s := range st.subs {
		s.push(msg) // the sender's other sessions see the conversation too
	}
	if to != nil && !to.ignoring(from.Name) {
		for _, s := range to.subs {
			s.push(msg)
		}
		to.lastWhisperer = strings.ToLower(from.Name)
	}
	if c.cfg.Relay != nil {
		// The recipient's sessions on other nodes (all of them, when he
		// is on none here) and the sender's get it from their node.
		c.cfg.Relay(*msg)
	}
	return Result{Delivered: true}
}

func (c *Chat) ignore(from Member, ch ChannelKey, args string, now time.Time) Result {
	name, rest := splitWord(args)
	if rest != "" {
		return c.reply(ch, now, "usage: /ignore NAME (or /ignore alone to list)")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.memberLocked(from)
	if name == "" {
		if len(st.ignores) == 0 {
			return c.reply(ch, now, "you are not ignoring anyone (usage: /ignore NAME)")
		}
		names := make([]string, 0, len(st.ignores))
		for n := range st.ignores {
			names = append(names, n)
		}
		slices.Sort(names)
		return c.reply(ch, now, "you are ignoring: "+strings.Join(names, ", "))
	}
	target, why := parseName(name)
	switch {
	case why != "":
		return c.reply(ch, now, why)
	case target == strings.ToLower(from.Name):
		return c.reply(ch, now, "you cannot ignore yourself")
	}
	if _, ok := st.ignores[target]; ok {
		return c.reply(ch, now, "you are already ignoring "+target)
	}
	if len(st.ignores) >= maxIgnores {
		return c.reply(ch, now, "your ignore list is full ("+strconv.Itoa(maxIgnores)+" names): /unignore someone first")
	}
	if st.ignores == nil {
		st.ignores = map[string]struct{}{}
	}
	st.ignores[target] = struct{}{}
	return c.reply(ch, now, fmt.Sprintf("ignoring %s: you will not see their messages or whispers (/unignore %s to undo)", target, target))
}

func (c *Chat) unignore(from Member, ch ChannelKey, args string, now time.Time) Result {
	name, rest := splitWord(args)
	if name == "" || rest != "" {
		return c.reply(ch, now, "usage: /unignore NAME")
	}
	target, why := parseName(name)
	if why != "" {
		return c.reply(ch, now, why)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.memberLocked(from)
	if _, ok := st.ignores[target]; !ok {
		return c.reply(ch, now, "you were not ignoring "+target)
	}
	delete(st.ignores, target)
	return c.reply(ch, now, "no longer ignoring "+target)
}

// maxWho bounds /who output in a busy lobby.
const maxWho = 50

func (c *Chat) who(ch ChannelKey, now time.Time) Result {
	members := c.Who(ch)
	where := "in " + string(ch)
	if ch == WhisperChannel {
		where = "online"
	}
	if len(members) == 0 {
		return c.reply(ch, now, "nobody "+where)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s: ", len(members), where)
	for i, m := range members {
		if i == maxWho {
			fmt.Fprintf(&b, " and %d more", len(members)-maxWho)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sanitize.Arg(m.Name))
		switch {
		case m.Role == Admin:
			b.WriteString(" (admin)")
		case m.Role == Moderator:
			b.WriteString(" (mod)")
		case m.Guest:
			b.WriteString(" (guest)")
		}
	}
	return c.reply(ch, now, b.String())
}

func (c *Chat) help(from Member, ch ChannelKey, now time.Time) Result {
	lines := []string{
		"commands:",
		"  /w NAME message       whisper (also /msg, /tell)",
		"  /r message            reply to your last whisper",
		"  /me ACTION            * you do something",
		"  /ignore NAME          hide someone's messages (/ignore alone lists them)",
		"  /unignore NAME        stop ignoring",
		"  /who                  who is on this channel",
		"  //text                send text that starts with /",
	}
	if from.Guest {
		lines = append(lines, GuestRefusal)
	}
	if from.staff() {
		lines = append(lines,
			"moderation (durations like 90s, 30m, 24h, 7d):",
			"  /mute NAME [DURATION] [REASON]   default "+FormatDuration(DefaultMute),
			"  /unmute NAME",
			"  /warn NAME REASON",
			"  /kick NAME [REASON]",
			"  /ban NAME [DURATION] [REASON]    no duration: permanent",
		)
	}
	return c.reply(ch, now, lines...)
}
