package chat

import (
	"strings"
	"testing"
	"time"
)

// t0 is the start of every simulated clock: tests never read the wall clock.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type env struct {
	t   *testing.T
	c   *Chat
	now time.Time
}

func newEnv(t *testing.T, cfg Config) *env {
	t.Helper()
	return &env{t: t, c: New(cfg), now: t0}
}

func (e *env) advance(d time.Duration) { e.now = e.now.Add(d) }

func (e *env) send(m Member, ch ChannelKey, in string) Result {
	return e.c.Send(m, ch, in, e.now)
}

// mustSend fails the test unless in was delivered.
func (e *env) mustSend(m Member, ch ChannelKey, in string) {
	e.t.Helper()
	if r := e.send(m, ch, in); !r.Delivered {
		e.t.Fatalf("%s: Send(%q) not delivered: %q", m.Name, in, replyText(r))
	}
}

// refused fails the test unless in was refused with a reply containing want.
func (e *env) refused(m Member, ch ChannelKey, in, want string) Result {
	e.t.Helper()
	r := e.send(m, ch, in)
	if r.Delivered {
		e.t.Fatalf("%s: Send(%q) delivered, want refusal %q", m.Name, in, want)
	}
	if !strings.Contains(replyText(r), want) {
		e.t.Fatalf("%s: Send(%q) replied %q, want it to contain %q", m.Name, in, replyText(r), want)
	}
	return r
}

func player(name string) Member { return Member{ID: "SHA256:" + name, Name: name} }

func staff(name string, r Role) Member {
	m := player(name)
	m.Role = r
	return m
}

func guest(name string) Member { return Member{ID: "guest:" + name, Name: name, Guest: true} }

func replyText(r Result) string {
	var lines []string
	for _, m := range r.Reply {
		lines = append(lines, m.Text)
	}
	return strings.Join(lines, "\n")
}

func texts(msgs []Message) []string {
	out := []string{}
	for _, m := range msgs {
		out = append(out, m.Text)
	}
	return out
}

// noFilter keeps tests about other things independent of the word list.
func noFilter(t *testing.T) *Filter {
	t.Helper()
	f, err := NewFilter(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
