package chat

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func TestSayReachesChannel(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice, bob, carol := player("alice"), player("bob"), player("carol")
	as := e.c.Join(alice, LobbyChannel)
	bs := e.c.Join(bob, LobbyChannel)
	cs := e.c.Join(carol, RoomChannel("r1"))

	e.mustSend(alice, LobbyChannel, "  hello   there ")
	for _, s := range []*Sub{as, bs} {
		got := s.Drain()
		if len(got) != 1 {
			t.Fatalf("got %d messages, want 1", len(got))
		}
		m := got[0]
		if m.Text != "hello   there" || m.From != "alice" || m.FromID != alice.ID || m.Kind != Say ||
			m.Channel != LobbyChannel || !m.Time.Equal(t0) || m.ID == 0 {
			t.Errorf("message %+v", m)
		}
	}
	if got := cs.Drain(); len(got) != 0 {
		t.Errorf("room member got lobby chat: %+v", got)
	}
}

func TestSendSanitises(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice := player("alice")
	sub := e.c.Join(alice, LobbyChannel)
	cases := []struct{ in, want string }{
		{"\x1b[31mred\x1b[0m", "[31mred[0m"},
		{"a\u202eevil", "aevil"},
		{"bell\x07 \x9b2J", "bell \ufffd2J"},
		{"//slash", "/slash"},
		{strings.Repeat("é", 400), strings.Repeat("é", MaxText)},
	}
	for _, c := range cases {
		e.mustSend(alice, LobbyChannel, c.in)
		e.advance(time.Minute)
	}
	got := texts(sub.Drain())
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("Send(%.20q) delivered %.20q…, want %.20q…", c.in, got[i], c.want)
		}
	}
	if n := utf8.RuneCountInString(got[len(got)-1]); n != MaxText {
		t.Errorf("long message kept %d runes, want %d", n, MaxText)
	}
	e.refused(alice, LobbyChannel, "   ", "the message is empty")
	e.refused(alice, LobbyChannel, "", "the message is empty")
	e.refused(alice, LobbyChannel, "\x1b\x00\u200b\u202e", "only control or invisible characters")
	e.refused(alice, LobbyChannel, "/me   ", "usage: /me")
}

func TestNotSubscribedCannotSpeak(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice := player("alice")
	e.c.Join(alice, LobbyChannel)
	e.refused(alice, RoomChannel("r1"), "hi", "not sent: you are not in room:r1")
	e.refused(player("nobody"), LobbyChannel, "hi", "you are not in lobby")
}

// The server subscribes spectators to watch:<room> and never the players of
// a ranked room; chat keeps the two channels apart in both directions.
func TestWatchChannelSeparation(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	room := "r7"
	p1, p2 := player("p1"), player("p2")
	w1, w2 := player("w1"), player("w2")
	p1s := e.c.Join(p1, RoomChannel(room), TeamChannel(room, 0))
	p2s := e.c.Join(p2, RoomChannel(room), TeamChannel(room, 1))
	w1s := e.c.Join(w1, WatchChannel(room))
	w2s := e.c.Join(w2, WatchChannel(room))

	e.mustSend(w1, WatchChannel(room), "p1 is about to miss")
	e.refused(w1, RoomChannel(room), "p1 look left", "you are not in room:r7")
	e.refused(w1, TeamChannel(room, 0), "p1 look left", "you are not in team:r7:0")
	e.refused(p1, WatchChannel(room), "hi spectators", "you are not in watch:r7")
	e.mustSend(p1, RoomChannel(room), "gl hf")
	e.mustSend(p1, TeamChannel(room, 0), "I take the left")

	for _, c := range []struct {
		name string
		sub  *Sub
		want []string
	}{
		{"p1", p1s, []string{"gl hf", "I take the left"}},
		{"p2", p2s, []string{"gl hf"}},
		{"w1", w1s, []string{"p1 is about to miss"}},
		{"w2", w2s, []string{"p1 is about to miss"}},
	} {
		if got := texts(c.sub.Drain()); !slices.Equal(got, c.want) {
			t.Errorf("%s got %q, want %q", c.name, got, c.want)
		}
	}
	// Whispers cross channels, as they do anywhere; the server may refuse
	// to route them for a ranked match by not offering /w there.
}

func TestWhisperAndReply(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice, bob, carol := player("alice"), player("bob"), player("carol")
	as := e.c.Join(alice, LobbyChannel)
	as2 := e.c.Join(alice, RoomChannel("r1")) // a second session
	bs := e.c.Join(bob, RoomChannel("r2"))
	cs := e.c.Join(carol, LobbyChannel)

	e.mustSend(alice, LobbyChannel, "/w Bob psst")
	e.mustSend(alice, LobbyChannel, "/msg @bob you there?")
	e.advance(time.Second)
	e.mustSend(bob, RoomChannel("r2"), "/r yes")
	e.mustSend(bob, WhisperChannel, "plain text in the whisper pane replies too")

	want := []Message{
		{Channel: WhisperChannel, Kind: Whisper, From: "alice", FromID: alice.ID, To: "bob", Text: "psst"},
		{Channel: WhisperChannel, Kind: Whisper, From: "alice", FromID: alice.ID, To: "bob", Text: "you there?"},
		{Channel: WhisperChannel, Kind: Whisper, From: "bob", FromID: bob.ID, To: "alice", Text: "yes"},
		{Channel: WhisperChannel, Kind: Whisper, From: "bob", FromID: bob.ID, To: "alice", Text: "plain text in the whisper pane replies too"},
	}
	strip := func(ms []Message) []Message {
		for i := range ms {
			ms[i].ID, ms[i].Time = 0, time.Time{}
		}
		return ms
	}
	for name, s := range map[string]*Sub{"alice": as, "alice#2": as2, "bob": bs} {
		if got := strip(s.Drain()); !slices.Equal(got, want) {
			t.Errorf("%s got %+v\nwant %+v", name, got, want)
		}
	}
	if got := cs.Drain(); len(got) != 0 {
		t.Errorf("carol overheard %+v", got)
	}

	e.refused(carol, LobbyChannel, "/r hi", "nobody has whispered to you yet")
	e.refused(carol, LobbyChannel, "/w dave hi", "dave is not online")
	e.refused(carol, LobbyChannel, "/w carol hi", "you cannot whisper to yourself")
	e.refused(carol, LobbyChannel, "/w bob", "usage: /w NAME message")
	e.refused(carol, LobbyChannel, "/w", "usage: /w NAME message")
	e.refused(carol, LobbyChannel, "/w b\u00f6b hi", "is not a name")
	e.refused(carol, LobbyChannel, "/r", "usage: /r")

	// The last whisperer goes offline: /r says so.
	as.Close()
	as2.Close()
	e.refused(bob, LobbyChannel, "/r still there?", "alice is not online")
}

func TestMe(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice := player("alice")
	s := e.c.Join(alice, LobbyChannel)
	e.mustSend(alice, LobbyChannel, "/me waves")
	e.mustSend(alice, LobbyChannel, "/ME  bows ")
	got := s.Drain()
	if len(got) != 2 || got[0].Kind != Me || got[0].Text != "waves" || got[1].Text != "bows" {
		t.Fatalf("got %+v", got)
	}
}

func TestIgnore(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice, bob, carol := player("alice"), player("bob"), player("carol")
	e.c.Join(alice, LobbyChannel)
	bs := e.c.Join(bob, LobbyChannel)
	cs := e.c.Join(carol, LobbyChannel)

	if r := e.send(bob, LobbyChannel, "/ignore ALICE"); r.Delivered || !strings.Contains(replyText(r), "ignoring alice") {
		t.Fatalf("/ignore: %+v", r)
	}
	e.mustSend(alice, LobbyChannel, "hello all")
	e.mustSend(alice, LobbyChannel, "/me dances")
	e.mustSend(alice, LobbyChannel, "/w bob why won't you answer")
	e.c.Post(LobbyChannel, Moderation, "alice was warned", e.now)
	e.mustSend(carol, LobbyChannel, "hi bob")

	if got, want := texts(bs.Drain()), []string{"alice was warned", "hi bob"}; !slices.Equal(got, want) {
		t.Errorf("bob got %q, want %q", got, want)
	}
	if got, want := texts(cs.Drain()), []string{"hello all", "dances", "alice was warned", "hi bob"}; !slices.Equal(got, want) {
		t.Errorf("carol got %q, want %q", got, want)
	}
	// An ignored whisper does not set /r either.
	e.refused(bob, LobbyChannel, "/r hm", "nobody has whispered to you yet")

	e.refused(bob, LobbyChannel, "/ignore alice", "already ignoring alice")
	e.refused(bob, LobbyChannel, "/ignore bob", "cannot ignore yourself")
	e.refused(bob, LobbyChannel, "/ignore dave", "ignoring dave") // offline names too
	e.refused(bob, LobbyChannel, "/ignore", "you are ignoring: alice, dave")
	e.refused(bob, LobbyChannel, "/ignore a b", "usage: /ignore")
	e.refused(bob, LobbyChannel, "/unignore Alice", "no longer ignoring alice")
	e.refused(bob, LobbyChannel, "/unignore alice", "you were not ignoring alice")
	e.refused(bob, LobbyChannel, "/unignore", "usage: /unignore")

	e.advance(time.Minute)
	e.mustSend(alice, LobbyChannel, "hello again")
	if got := texts(bs.Drain()); !slices.Equal(got, []string{"hello again"}) {
		t.Errorf("after /unignore bob got %q", got)
	}

	// Ignores survive reconnecting, and apply to the history on Join.
	e.refused(carol, LobbyChannel, "/ignore alice", "ignoring alice")
	cs.Close()
	cs = e.c.Join(carol, LobbyChannel)
	for _, m := range cs.Drain() {
		if m.From == "alice" {
			t.Errorf("history gave carol ignored message %+v", m)
		}
	}
}

func TestIgnoreListBounded(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	bob := player("bob")
	e.c.Join(bob, LobbyChannel)
	for i := range maxIgnores {
		e.refused(bob, LobbyChannel, fmt.Sprintf("/ignore p%d", i), "ignoring")
	}
	e.refused(bob, LobbyChannel, "/ignore one-more", "ignore list is full")
}

func TestWho(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	e.c.Join(player("carol"), LobbyChannel)
	e.c.Join(staff("bob", Moderator), LobbyChannel)
	e.c.Join(staff("bob", Moderator), LobbyChannel) // two sessions, listed once
	e.c.Join(guest("guest-1a2b"), LobbyChannel)
	e.c.Join(staff("alice", Admin), LobbyChannel)
	e.c.Join(player("dave"), RoomChannel("r1"))

	r := e.send(player("carol"), LobbyChannel, "/who")
	if want := "4 in lobby: alice (admin), bob (mod), carol, guest-1a2b (guest)"; replyText(r) != want || r.Delivered {
		t.Errorf("/who = %q, want %q", replyText(r), want)
	}
	if r := e.send(player("dave"), RoomChannel("r1"), "/who"); replyText(r) != "1 in room:r1: dave" {
		t.Errorf("/who in room = %q", replyText(r))
	}
	if r := e.send(player("dave"), WhisperChannel, "/who"); !strings.HasPrefix(replyText(r), "5 online: ") {
		t.Errorf("/who on whisper = %q", replyText(r))
	}
	if r := e.send(player("dave"), RoomChannel("r9"), "/who"); replyText(r) != "nobody in room:r9" {
		t.Errorf("/who empty = %q", replyText(r))
	}
	// A crowded lobby is summarised.
	for i := range 60 {
		e.c.Join(player(fmt.Sprintf("p%02d", i)), LobbyChannel)
	}
	if r := e.send(player("carol"), LobbyChannel, "/who"); !strings.HasSuffix(replyText(r), " and 14 more") {
		t.Errorf("/who crowded = %q", replyText(r))
	}
	if m, ok := e.c.Lookup("BOB"); !ok || m.Role != Moderator {
		t.Errorf("Lookup(BOB) = %+v, %v", m, ok)
	}
}

func TestHelpAndUnknown(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	r := e.send(player("alice"), LobbyChannel, "/help")
	h := replyText(r)
	if r.Delivered || !strings.Contains(h, "/w NAME") || !strings.Contains(h, "/ignore") || strings.Contains(h, "/mute") {
		t.Errorf("player /help:\n%s", h)
	}
	if h := replyText(e.send(staff("mo", Moderator), LobbyChannel, "/?")); !strings.Contains(h, "/ban NAME") {
		t.Errorf("moderator /help:\n%s", h)
	}
	for _, m := range r.Reply {
		if strings.ContainsAny(m.Text, "\n\r") {
			t.Errorf("help line with a line break: %q", m.Text)
		}
	}
	r = e.refused(player("alice"), LobbyChannel, "/dance now", "unknown command /dance: /help lists the commands")
	if len(r.Reply) != 1 || r.Action != nil {
		t.Errorf("unknown command: %+v", r)
	}
	e.refused(player("alice"), LobbyChannel, "/"+strings.Repeat("x", 100), "unknown command /"+strings.Repeat("x", 64)+"…")
}

func TestModerationCommands(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	mod, mod2, adm := staff("mo", Moderator), staff("mia", Moderator), staff("root1", Admin)
	bob := player("bob")
	for _, m := range []Member{mod, mod2, adm, bob} {
		e.c.Join(m, LobbyChannel)
	}
	for _, c := range []struct {
		from  Member
		in    string
		want  *ModAction // nil: refused
		reply string
	}{
		{mod, "/mute bob 30m spamming links", &ModAction{Kind: Mute, Target: "bob", TargetID: bob.ID, Duration: 30 * time.Minute, Reason: "spamming links"}, ""},
		{mod, "/mute @Bob", &ModAction{Kind: Mute, Target: "bob", TargetID: bob.ID, Duration: DefaultMute}, ""},
		{mod, "/mute bob being rude", &ModAction{Kind: Mute, Target: "bob", TargetID: bob.ID, Duration: DefaultMute, Reason: "being rude"}, ""},
		{mod, "/mute bob 0s", nil, `invalid duration "0s": must be more than zero`},
		{mod, "/mute bob 5", nil, "missing unit"},
		{mod, "/mute", nil, "usage: /mute NAME"},
		{mod, "/unmute bob", &ModAction{Kind: Unmute, Target: "bob", TargetID: bob.ID}, ""},
		{mod, "/unmute bob now", nil, "usage: /unmute"},
		{mod, "/warn bob language\x1b[2J", &ModAction{Kind: Warn, Target: "bob", TargetID: bob.ID, Reason: "language[2J"}, ""},
		{mod, "/warn bob", nil, "usage: /warn NAME REASON"},
		{mod, "/kick bob", &ModAction{Kind: Kick, Target: "bob", TargetID: bob.ID}, ""},
		{mod, "/kick bob afk in ranked", &ModAction{Kind: Kick, Target: "bob", TargetID: bob.ID, Reason: "afk in ranked"}, ""},
		{mod, "/ban bob", &ModAction{Kind: Ban, Target: "bob", TargetID: bob.ID}, ""},
		{mod, "/BAN bob 7d cheating", &ModAction{Kind: Ban, Target: "bob", TargetID: bob.ID, Duration: 7 * 24 * time.Hour, Reason: "cheating"}, ""},
		{mod, "/ban bob 11y", nil, "unknown unit"},
		{mod, "/ban bob 3651d", nil, "longer than 10 years"},
		// Offline targets: the server resolves the name and checks the role.
		{mod, "/ban carol 1d", &ModAction{Kind: Ban, Target: "carol", Duration: 24 * time.Hour}, ""},
		{mod, "/mute mo", nil, "you cannot /mute yourself"},
		{mod, "/kick mia", nil, "not allowed: mia is a moderator"},
		{mod, "/ban root1", nil, "not allowed: root1 is an admin"},
		{adm, "/kick mia rogue", &ModAction{Kind: Kick, Target: "mia", TargetID: mod2.ID, Reason: "rogue"}, ""},
		{mod, "/kick b!b", nil, "is not a name"},
		{bob, "/mute mo", nil, "not allowed: /mute is for moderators"},
		{bob, "/ban mo 1d", nil, "not allowed: /ban is for moderators"},
		{bob, "/unmute bob", nil, "not allowed: /unmute is for moderators"},
		{guest("guest-0001"), "/kick bob", nil, GuestRefusal},
	} {
		r := e.send(c.from, LobbyChannel, c.in)
		if r.Delivered {
			t.Errorf("%s %q: delivered as chat", c.from.Name, c.in)
		}
		if c.want == nil {
			if r.Action != nil || !strings.Contains(replyText(r), c.reply) {
				t.Errorf("%s %q: action %+v reply %q, want refusal %q", c.from.Name, c.in, r.Action, replyText(r), c.reply)
			}
			continue
		}
		w := *c.want
		w.Actor, w.ActorID, w.Time = c.from.Name, c.from.ID, e.now
		if r.Action == nil || *r.Action != w {
			t.Errorf("%s %q: action %+v (reply %q), want %+v", c.from.Name, c.in, r.Action, replyText(r), w)
		}
	}
	// Commands only describe actions: bob is not muted until the server
	// says so.
	e.mustSend(bob, LobbyChannel, "still here")
}

func TestGuestsReadButCannotChat(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	g := guest("guest-1a2b")
	gs := e.c.Join(g, LobbyChannel)
	alice := player("alice")
	as := e.c.Join(alice, LobbyChannel)

	for _, in := range []string{"hello", "/me waves", "/w alice hi", "/r hi", "//x", "/mute alice"} {
		r := e.refused(g, LobbyChannel, in, GuestRefusal)
		if r.Action != nil {
			t.Errorf("guest %q produced %+v", in, r.Action)
		}
	}
	if len(as.Drain()) != 0 {
		t.Error("guest text reached alice")
	}
	// Reading, and the commands that only answer the guest, work.
	e.mustSend(alice, LobbyChannel, "welcome")
	e.mustSend(alice, LobbyChannel, "/w guest-1a2b try ssh-keygen")
	if got := texts(gs.Drain()); !slices.Equal(got, []string{"welcome", "try ssh-keygen"}) {
		t.Errorf("guest read %q", got)
	}
	if r := e.send(g, LobbyChannel, "/who"); !strings.Contains(replyText(r), "guest-1a2b (guest)") {
		t.Errorf("guest /who: %q", replyText(r))
	}
	if r := e.send(g, LobbyChannel, "/help"); !strings.Contains(replyText(r), GuestRefusal) {
		t.Errorf("guest /help: %q", replyText(r))
	}
	e.refused(g, LobbyChannel, "/ignore alice", "ignoring alice")
}

func TestHistory(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	senders := []Member{player("alice"), player("bob"), player("carol")}
	for _, m := range senders {
		e.c.Join(m, LobbyChannel, RoomChannel("r1"))
	}
	for i := range 70 {
		e.mustSend(senders[i%3], LobbyChannel, fmt.Sprintf("lobby %d", i))
		e.mustSend(senders[i%3], RoomChannel("r1"), fmt.Sprintf("room %d", i))
		e.advance(time.Second)
	}
	h := e.c.History(LobbyChannel)
	if len(h) != 50 || h[0].Text != "lobby 20" || h[49].Text != "lobby 69" {
		t.Fatalf("history: %d messages, %q … %q", len(h), h[0].Text, h[len(h)-1].Text)
	}
	for i := 1; i < len(h); i++ {
		if h[i].ID <= h[i-1].ID {
			t.Fatal("history out of order")
		}
	}
	if e.c.History(RoomChannel("r1")) != nil {
		t.Error("room has history")
	}

	// A newcomer to the lobby finds the history waiting.
	dave := player("dave")
	ds := e.c.Join(dave, LobbyChannel)
	if got := ds.Drain(); len(got) != 50 || got[0].Text != "lobby 20" {
		t.Fatalf("join delivered %d messages", len(got))
	}
	// Going to a room and back delivers only what was said meanwhile.
	ds.SetChannels(RoomChannel("r1"))
	e.mustSend(senders[0], LobbyChannel, "while dave was away")
	e.mustSend(senders[0], RoomChannel("r1"), "in the room")
	ds.SetChannels(LobbyChannel)
	if got := texts(ds.Drain()); !slices.Equal(got, []string{"in the room", "while dave was away"}) {
		t.Errorf("back in lobby: %q", got)
	}
	if ch := ds.Channels(); !slices.Equal(ch, []ChannelKey{LobbyChannel}) {
		t.Errorf("channels %q", ch)
	}
	// Joining a room only does not replay the lobby.
	es := e.c.Join(player("erin"), RoomChannel("r1"))
	if got := es.Drain(); len(got) != 0 {
		t.Errorf("room join delivered %d messages", len(got))
	}
}

func TestPostAndTell(t *testing.T) {
	e := newEnv(t, Config{})
	alice, bob := player("alice"), player("bob")
	as := e.c.Join(alice, LobbyChannel)
	bs := e.c.Join(bob, RoomChannel("r1"))
	m := e.c.Post(LobbyChannel, Moderation, "bob was muted for 10m: \x1b[31mspam", e.now)
	if m.Text != "bob was muted for 10m: [31mspam" || m.ID == 0 || m.Kind != Moderation {
		t.Errorf("Post returned %+v", m)
	}
	if n := e.c.Tell(bob.ID, Notice, "warning from mo: language", e.now); n != 1 {
		t.Errorf("Tell reached %d sessions", n)
	}
	if n := e.c.Tell("SHA256:nobody", Notice, "x", e.now); n != 0 {
		t.Errorf("Tell to nobody reached %d", n)
	}
	if got := as.Drain(); len(got) != 1 || got[0].Kind != Moderation {
		t.Errorf("alice got %+v", got)
	}
	if got := bs.Drain(); len(got) != 1 || got[0].Kind != Notice || got[0].Channel != "" {
		t.Errorf("bob got %+v", got)
	}
	if h := e.c.History(LobbyChannel); len(h) != 1 {
		t.Errorf("post not in history: %+v", h)
	}
}

func TestStalledSubscriberNeverBlocks(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	stalled := e.c.Join(player("zed"), LobbyChannel) // never drains
	senders := make([]Member, 20)
	for i := range senders {
		senders[i] = player(fmt.Sprintf("s%02d", i))
		e.c.Join(senders[i], LobbyChannel)
	}
	const n = 10000
	for i := range n {
		// 20 senders, 100 ms apart: each sends every 2 s, within its rate.
		if r := e.send(senders[i%len(senders)], LobbyChannel, fmt.Sprintf("msg %d", i)); !r.Delivered {
			t.Fatalf("send %d: %q", i, replyText(r))
		}
		e.advance(100 * time.Millisecond)
	}
	if got := stalled.Missed(); got != n-defaultBuffer {
		t.Errorf("Missed = %d, want %d", got, n-defaultBuffer)
	}
	// One coalesced wake-up, however many messages.
	<-stalled.Messages()
	select {
	case <-stalled.Messages():
		t.Error("more than one pending wake-up")
	default:
	}
	got := stalled.Drain()
	if len(got) != defaultBuffer || got[0].Text != fmt.Sprintf("msg %d", n-defaultBuffer) || got[len(got)-1].Text != fmt.Sprintf("msg %d", n-1) {
		t.Errorf("ring kept %d messages, %q … %q", len(got), got[0].Text, got[len(got)-1].Text)
	}
	if stalled.Drain() != nil {
		t.Error("second Drain not empty")
	}
}

func TestCloseSub(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice, bob := player("alice"), player("bob")
	e.c.Join(alice, LobbyChannel)
	bs := e.c.Join(bob, LobbyChannel)
	e.mustSend(alice, LobbyChannel, "before")
	bs.Close()
	bs.Close()
	e.mustSend(alice, LobbyChannel, "after")
	if _, open := <-bs.Messages(); open {
		// The pending wake-up from "before" may come first.
		if _, open := <-bs.Messages(); open {
			t.Error("Messages not closed")
		}
	}
	if got := texts(bs.Drain()); !slices.Equal(got, []string{"before"}) {
		t.Errorf("after Close drained %q", got)
	}
	if _, ok := e.c.Lookup("bob"); ok {
		t.Error("bob still online")
	}
	bs.SetChannels(LobbyChannel) // no effect on a closed sub
	if len(e.c.Who(LobbyChannel)) != 1 {
		t.Errorf("who: %+v", e.c.Who(LobbyChannel))
	}
}

func TestRename(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	old := player("bob")
	e.c.Join(old, LobbyChannel)
	renamed := old
	renamed.Name = "robert"
	e.mustSend(renamed, LobbyChannel, "new name")
	if _, ok := e.c.Lookup("bob"); ok {
		t.Error("old name still resolves")
	}
	if m, ok := e.c.Lookup("robert"); !ok || m.ID != old.ID {
		t.Error("new name does not resolve")
	}
}

func TestStateSweep(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice, bob, carol := player("alice"), player("bob"), player("carol")
	talker := player("talker")
	e.c.Join(talker, LobbyChannel)
	for _, m := range []Member{alice, bob, carol} {
		s := e.c.Join(m, LobbyChannel)
		e.mustSend(m, LobbyChannel, "bye")
		s.Close()
	}
	e.c.SetMuted(bob.ID, e.now.Add(time.Hour), "")
	e.send(carol, LobbyChannel, "/ignore talker")
	g := guest("guest-9")
	e.c.Join(g, LobbyChannel).Close()

	e.c.mu.Lock()
	_, guestKept := e.c.members[g.ID]
	e.c.mu.Unlock()
	if guestKept {
		t.Error("guest state outlived the guest")
	}
	e.advance(2 * time.Minute)
	for i := range sweepEvery {
		e.send(talker, LobbyChannel, fmt.Sprintf("tick %d", i))
		e.advance(time.Second)
	}
	e.c.mu.Lock()
	defer e.c.mu.Unlock()
	for _, c := range []struct {
		m    Member
		kept bool
	}{{alice, false}, {bob, true}, {carol, true}, {talker, true}} {
		if _, ok := e.c.members[c.m.ID]; ok != c.kept {
			t.Errorf("%s kept=%v, want %v", c.m.Name, ok, c.kept)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	c := New(Config{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := player(fmt.Sprintf("p%d", g))
			s := c.Join(m, LobbyChannel)
			now := t0
			for i := range 300 {
				now = now.Add(300 * time.Millisecond)
				switch i % 7 {
				case 0:
					s.SetChannels(RoomChannel("r"), LobbyChannel)
				case 1:
					c.Send(m, LobbyChannel, fmt.Sprintf("/w p%d hi %d", (g+1)%8, i), now)
				case 2:
					s.Drain()
				case 3:
					c.Send(m, LobbyChannel, "/who", now)
				case 4:
					c.Send(m, LobbyChannel, fmt.Sprintf("/ignore p%d", i%8), now)
				default:
					c.Send(m, LobbyChannel, fmt.Sprintf("hello %d", i), now)
				}
				if i%50 == 0 {
					s.Close()
					s = c.Join(m, LobbyChannel)
				}
			}
			s.Close()
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 200 {
			c.History(LobbyChannel)
			c.Post(LobbyChannel, System, "tick", t0)
			c.SetMuted("SHA256:p3", t0.Add(time.Second), "x")
			c.ClearMuted("SHA256:p3")
		}
	}()
	wg.Wait()
}

// A player whose state no longer matters is forgotten when their last
// session closes, not at the next sweep (which waits for chat traffic):
// a quiet server kept every player who ever connected. One who chatted
// a moment ago is kept, so reconnecting does not reset flood control.
func TestQuietMemberIsForgottenAtClose(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	quiet, talker := player("quiet"), player("talker")
	e.c.Join(quiet, LobbyChannel).Close()
	s := e.c.Join(talker, LobbyChannel)
	e.mustSend(talker, LobbyChannel, "hello")
	s.Close()
	e.c.mu.Lock()
	defer e.c.mu.Unlock()
	if _, ok := e.c.members[quiet.ID]; ok {
		t.Error("a player who never chatted outlived their session")
	}
	if _, ok := e.c.members[talker.ID]; !ok {
		t.Error("a player who chatted a moment ago was forgotten: reconnecting would reset flood control")
	}
}

// Issue 20: stacked combining marks ("zalgo") got through to every
// reader's screen, spilling over the lines around them. Each character
// keeps at most three marks, which every language's accents fit in;
// whispers alike.
func TestZalgoIsCappedAccentsAreNot(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice, bob := player("alice"), player("bob")
	sub := e.c.Join(alice, LobbyChannel)
	bs := e.c.Join(bob, LobbyChannel)
	zalgo := "h" + strings.Repeat("\u0300\u0301\u0302\u0303", 10) + "i" + strings.Repeat("\u0489", 30)
	cases := []struct{ in, want string }{
		{zalgo, "h\u0300\u0301\u0302i\u0489\u0489\u0489"},
		{"Tie\u0323\u0302ng Vie\u0323\u0302t", "Tie\u0323\u0302ng Vie\u0323\u0302t"}, // Vietnamese, decomposed: kept
		{"cafe\u0301", "cafe\u0301"},
	}
	for _, c := range cases {
		e.mustSend(alice, LobbyChannel, c.in)
		e.advance(time.Minute)
	}
	got := texts(sub.Drain())
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("Send(%+q) delivered %+q, want %+q", c.in, got[i], c.want)
		}
	}
	bs.Drain()
	if r := e.send(alice, LobbyChannel, "/w bob "+zalgo); !r.Delivered {
		t.Fatalf("whisper: %q", replyText(r))
	}
	if w := texts(bs.Drain()); len(w) != 1 || w[0] != cases[0].want {
		t.Errorf("whisper delivered %+q", w)
	}
}
