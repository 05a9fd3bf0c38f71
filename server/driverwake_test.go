package server

import (
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/termkey"
	"github.com/termarena/termarena/tui"
)

// benchWake times one wake of the play loop's select for a beat of the
// room screen's clock, with the waits a session in a match has (the
// room's end, the chat's next line), by the select statement or by
// reflect.Select.
func benchWake(b *testing.B, sel func(d *driver, beat <-chan struct{}, screenEvents <-chan tui.ScreenEvent, got *received) (int, bool)) {
	d := &driver{sess: &Session{winch: make(chan Window, 1)}, events: make(chan []termkey.Event),
		wake: make(wake, 1)}
	for range 2 {
		d.waits = append(d.waits, tui.WaitMsg{Until: make(chan struct{}), Stop: make(chan struct{})})
	}
	beat := make(chan struct{})
	close(beat) // a beat that has come
	screenEvents := make(chan tui.ScreenEvent)
	var got received
	b.ReportAllocs()
	for b.Loop() {
		if i, _ := sel(d, beat, screenEvents, &got); i != caseBeat {
			b.Fatalf("woke for case %d, want the beat (%d)", i, caseBeat)
		}
	}
}

func BenchmarkPlayLoopWakeTyped(b *testing.B) { benchWake(b, (*driver).selectTyped) }

func BenchmarkPlayLoopWakeReflect(b *testing.B) { benchWake(b, (*driver).selectReflect) }

// A wait whose Stop has fired is dropped though its Until fires after:
// the driver's select no longer waits on Stop, so it looks at Stop when
// Until fires. The next message still comes through the wake.
func TestStoppedWaitIsDroppedWhenItsUntilFires(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := make(wake, 1)
	defer context.AfterFunc(ctx, w.poke)() // as runProgram does
	d := &driver{ctx: ctx, sess: &Session{winch: make(chan Window, 1)}, events: make(chan []termkey.Event),
		wake: w, notes: &msgQueue{wake: w}, term: &terminal{wake: w}}
	d.run = cmdRunner{ctx: ctx, out: msgQueue{wake: w}, guard: func(c tea.Cmd) tea.Cmd { return c }}
	until, stop := make(chan struct{}), make(chan struct{})
	ran := make(chan bool, 1)
	d.addWait(tui.WaitMsg{Until: until, Stop: stop, Then: func(bool) tea.Msg { ran <- true; return nil }})
	close(stop)
	close(until)
	d.notes.put(tui.NoticeMsg{Text: "hi"})
	msgs := d.next()
	if len(msgs) != 1 {
		t.Fatalf("next gave %v, want the notice", msgs)
	}
	if n, ok := msgs[0].(tui.NoticeMsg); !ok || n.Text != "hi" {
		t.Fatalf("next gave %#v, want the notice", msgs[0])
	}
	if len(d.waits) != 0 {
		t.Fatalf("%d waits left, want the stopped one gone", len(d.waits))
	}
	select {
	case <-ran:
		t.Fatal("a stopped wait's Then ran")
	default:
	}
	cancel()
	if msgs := d.next(); msgs != nil {
		t.Fatalf("next after the session's end gave %v, want nil", msgs)
	}
}

// gameKeys takes w and s, as a Pong room screen does.
type gameKeys struct{ n int }

func (g *gameKeys) TakeKey(_ context.Context, key string, _, _ bool) bool {
	g.n++
	return key == "w" || key == "s"
}

// BenchmarkKeyHandOff is the driver's part of a game key: decoding what
// the reader read into its batch (readKeys) and handing it to the room
// screen (next's keyMsgs; the screen's own part is tui's BenchmarkTakeKey),
// press and release in turn, one key a read as a person types.
func BenchmarkKeyHandOff(b *testing.B) {
	ctx := context.Background()
	d := &driver{ctx: ctx, term: &terminal{}}
	g := &gameKeys{}
	d.term.Play(g)
	var dec termkey.Decoder
	var batch []termkey.Event
	emit := func(e termkey.Event) { batch = append(batch, e) }
	reads := [][]byte{[]byte("w"), []byte("\x1b[119;1:3u")} // a press, a kitty release
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		batch = batch[:0]
		dec.Decode(reads[i%2], emit)
		if msgs := d.keyMsgs(batch); msgs != nil {
			b.Fatalf("the room screen did not take %v", msgs)
		}
	}
	if g.n == 0 {
		b.Fatal("no key offered")
	}
}
