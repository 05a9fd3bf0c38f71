package chat

import (
	"testing"
	"time"
)

// Whispers cross the nodes of a cluster: a whisper to a player on the
// other node reaches him there (and the sender's own session), /r
// answers across, an ignore on the recipient's node holds, and a name on
// neither node is still "not online".
func TestWhisperAcrossNodes(t *testing.T) {
	var e1, e2 *env
	on := func(names ...string) func(string) (string, bool) {
		return func(n string) (string, bool) {
			for _, name := range names {
				if name == n {
					return name, true
				}
			}
			return "", false
		}
	}
	e1 = newEnv(t, Config{Filter: noFilter(t), Relay: func(m Message) { e2.c.Deliver(m) }, Elsewhere: on("bob", "dave")})
	e2 = newEnv(t, Config{Filter: noFilter(t), Relay: func(m Message) { e1.c.Deliver(m) }, Elsewhere: on("alice")})
	alice, bob, dave := player("alice"), player("bob"), player("dave")
	as := e1.c.Join(alice, LobbyChannel)
	bs := e2.c.Join(bob, LobbyChannel)
	ds := e2.c.Join(dave, LobbyChannel)

	e1.mustSend(alice, LobbyChannel, "/w bob psst")
	e2.mustSend(bob, LobbyChannel, "/r back at you")
	e2.send(dave, LobbyChannel, "/ignore alice")
	e1.advance(time.Second)
	e1.mustSend(alice, LobbyChannel, "/w dave hello?")
	e1.advance(time.Second)
	e1.refused(alice, LobbyChannel, "/w carol hi", "carol is not online")

	texts := func(s *Sub) []string {
		var out []string
		for _, m := range s.Drain() {
			if m.Kind == Whisper {
				out = append(out, m.From+">"+m.To+": "+m.Text)
			}
		}
		return out
	}
	want := []string{"alice>bob: psst", "bob>alice: back at you"}
	if got := texts(bs); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("bob on n2 saw %q, want %q", got, want)
	}
	want = append(want, "alice>dave: hello?")
	if got := texts(as); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("alice on n1 saw %q, want %q", got, want)
	}
	if got := texts(ds); len(got) != 0 {
		t.Errorf("dave, ignoring alice, saw %q", got)
	}
}
