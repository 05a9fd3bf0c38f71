package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/hinshun/vt10x"

	"github.com/termarena/termarena/screen"
)

// termOut is a watcher's terminal: what it is written goes to an emulator;
// with gate set, every write first waits for the gate to open (a client
// that stopped reading).
type termOut struct {
	mu     sync.Mutex
	term   vt10x.Terminal
	writes int
	gate   chan struct{}
}

func newTermOut(w, h int, gate chan struct{}) *termOut {
	return &termOut{term: vt10x.New(vt10x.WithSize(w, h)), gate: gate}
}

func (o *termOut) WriteFrame(p []byte) error {
	if o.gate != nil {
		<-o.gate
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.writes++
	_, err := o.term.Write(p)
	return err
}

// text is the emulator's screen as lines.
func (o *termOut) text(w, h int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var b strings.Builder
	for y := range h {
		for x := range w {
			b.WriteRune(o.term.Cell(x, y).Char)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// gridText is what the painter's grid shows, as lines.
func gridText(scr *screen.Screen) string {
	w, h := scr.Size()
	var b strings.Builder
	for y := range h {
		for x := range w {
			r := scr.Get(x, y).R
			if r == 0 {
				r = ' '
			}
			b.WriteRune(r)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// A watcher whose terminal stops reading slows neither the painter nor a
// watcher sharing it: the painter paints 300 frames while that watcher's
// first write is stuck, the other watcher's terminal shows every change as
// it comes, and once the stuck terminal reads again it is brought to the
// painter's newest frame (the whole screen, not the 300 diffs it missed).
func TestSlowWatcherSlowsNeitherThePainterNorAnotherWatcher(t *testing.T) {
	const w, h = 80, 24
	hub := NewWatchHub(nil)
	g := &watchGroup{hub: hub, done: make(chan struct{}), seats: map[*watchSeat]struct{}{}}
	scr := screen.New(w, h, gamePalette(colorprofile.ANSI256, nil))
	gate := make(chan struct{})
	stuck, quick := newTermOut(w, h, gate), newTermOut(w, h, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seats []*watchSeat
	for _, out := range []*termOut{stuck, quick} {
		s := &watchSeat{hub: hub, out: out, done: make(chan struct{})}
		s.group.Store(g)
		g.seats[s] = struct{}{}
		seats = append(seats, s)
		s.start(ctx)
	}
	paint := func(i int) {
		scr.Text(i%70, 2+i%20, fmt.Sprintf("%d", i), stDefault)
		scr.Text(0, 0, fmt.Sprintf("frame %d", i), stDefault)
		if out := scr.Render(); out != nil {
			_ = g.WriteFrame(out)
		}
		g.drawn(scr)
	}
	painted := make(chan struct{})
	go func() {
		defer close(painted)
		for i := range 300 {
			paint(i)
			if i%10 == 9 {
				// The quick watcher keeps up: its screen is the grid's.
				want := gridText(scr)
				deadline := time.Now().Add(5 * time.Second)
				for quick.text(w, h) != want {
					if time.Now().After(deadline) {
						t.Errorf("frame %d: the quick watcher's screen is not the painter's:\n%s\nwant\n%s", i, quick.text(w, h), want)
						return
					}
					time.Sleep(time.Millisecond)
					g.drawn(scr) // the painter's beats go on
				}
			}
		}
	}()
	select {
	case <-painted:
	case <-time.After(20 * time.Second):
		t.Fatal("the painter was held up by a watcher that does not read")
	}
	if t.Failed() {
		return
	}
	if stuck.writes != 0 {
		t.Fatalf("the stuck watcher wrote %d frames", stuck.writes)
	}
	close(gate)
	want := gridText(scr)
	deadline := time.Now().Add(5 * time.Second)
	for stuck.text(w, h) != want {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher that read again does not show the painter's frame:\n%s\nwant\n%s", stuck.text(w, h), want)
		}
		time.Sleep(time.Millisecond)
		g.drawn(scr) // the painter's beats go on
	}
	if stuck.writes > 3 {
		t.Fatalf("the watcher that read again was sent %d writes to catch up, want the whole screen at most twice after the stuck one", stuck.writes)
	}
	cancel()
	for _, s := range seats {
		<-s.done
	}
}
