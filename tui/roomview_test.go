package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/hinshun/vt10x"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	pongview "github.com/termarena/termarena/game/pong/view"
)

// fakeRoom publishes frames the test builds and records submitted inputs.
type fakeRoom struct {
	mu     sync.Mutex
	fr     *game.Frame
	at     time.Time
	inputs []game.Input
}

func newFakeRoom(fr *game.Frame) *fakeRoom { return &fakeRoom{fr: fr, at: time.Now()} }

// newTestRoomView is a room screen hosting the Pong view, as a Pong room's
// is, unless cfg names another game's view.
func newTestRoomView(cfg RoomViewConfig) *RoomView {
	if cfg.Game == nil {
		cfg.Game = pongview.NewScreen(viewBase, cfg.Profile)
	}
	return NewRoomView(cfg)
}

// pong is the Pong view the room screen hosts.
func (v *RoomView) pong() *pongview.Screen { return v.cfg.Game.(*pongview.Screen) }

// boardRect is the cells the board takes on the screen.
func (v *RoomView) boardRect() (x, y, w, h int) {
	return v.lay.board[0], v.lay.board[1], v.lay.board[2], v.lay.board[3]
}

func (f *fakeRoom) ID() string { return "r1" }
func (f *fakeRoom) LatestAt() (*game.Frame, time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fr, f.at
}
func (f *fakeRoom) Submit(_ game.PlayerID, in game.Input) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inputs = append(f.inputs, in)
	return true
}
func (f *fakeRoom) publish(fr *game.Frame) {
	f.mu.Lock()
	f.fr, f.at = fr, time.Now()
	f.mu.Unlock()
}

// vtWriter is a session output feeding a terminal emulator.
type vtWriter struct {
	mu     sync.Mutex
	vt     vt10x.Terminal
	bytes  int
	frames int
}

func newVT(w, h int) *vtWriter { return &vtWriter{vt: vt10x.New(vt10x.WithSize(w, h))} }
func (v *vtWriter) WriteFrame(p []byte) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.bytes += len(p)
	v.frames++
	_, err := v.vt.Write(p)
	return err
}
func (v *vtWriter) screen() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.vt.String()
}

// match1v1 is a live 1v1 snapshot after some ticks.
func match1v1(t testing.TB, ticks int) (*pong.Game, *game.Frame) {
	t.Helper()
	g := pong.New(pong.DefaultConfig(pong.OneVOne), 42)
	if err := g.Join(0); err != nil {
		t.Fatal(err)
	}
	if err := g.Join(1); err != nil {
		t.Fatal(err)
	}
	for range ticks {
		g.Step(nil)
	}
	return g, frameOf(g, 0)
}

func frameOf(g *pong.Game, ack uint32) *game.Frame {
	return &game.Frame{
		Room: "r1", TickRate: 60, Phase: game.Playing,
		Seats: []game.Seat{
			{Player: game.Player{ID: "a", Name: "alice"}, Taken: true, Connected: true},
			{Player: game.Player{ID: "b", Name: "bob"}, Taken: true, Connected: true},
		},
		Acks:  []uint32{ack, 0},
		State: g.Snapshot(),
		Tick:  g.Snapshot().(*pong.Snapshot).Tick,
	}
}

func TestRoomViewDrawsBoardNamesAndScores(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		_, fr := match1v1(t, 90)
		room := newFakeRoom(fr)
		out := newVT(size[0], size[1])
		clock := time.Unix(1000, 0)
		v := newTestRoomView(RoomViewConfig{Room: room, Me: "a", Slot: 0, Title: "r1 · 1v1 · casual", Out: out,
			Profile: colorprofile.ANSI256, Width: size[0], Height: size[1], Now: func() time.Time { return clock }})
		v.in.frAt = clock
		v.setFrame(fr, v.cfg.Now())
		v.draw()
		scr := out.screen()
		for _, want := range []string{"▸alice 0", "bob 0", "w/s ↑/↓ move", "r1 · 1v1 · casual", "█"} {
			if !strings.Contains(scr, want) {
				t.Fatalf("%v: screen lacks %q:\n%s", size, want, scr)
			}
		}
	}
}

// TestOwnPaddleMovesBeforeTheServerConfirms is prediction: after a key the
// very next frame shows our paddle moved although no new snapshot came.
func TestOwnPaddleMovesBeforeTheServerConfirms(t *testing.T) {
	_, fr := match1v1(t, 10)
	room := newFakeRoom(fr)
	out := newVT(80, 24)
	now := time.Unix(1000, 0)
	v := newTestRoomView(RoomViewConfig{Room: room, Me: "a", Slot: 0, Out: out, Profile: colorprofile.ANSI256,
		Width: 80, Height: 24, Now: func() time.Time { return now }})
	v.setFrame(fr, v.cfg.Now())
	v.draw()
	before := paddleRows(out, 0)

	now = now.Add(5 * time.Millisecond)
	v.in.ctl.press(keyEvent{dir: 1, at: now})
	v.in.submit()
	now = now.Add(100 * time.Millisecond) // six ticks' worth, still no snapshot
	v.draw()
	after := paddleRows(out, 0)
	if len(room.inputs) != 1 || room.inputs[0].Action != 1 || room.inputs[0].Slot != 0 || room.inputs[0].Seq != 1 {
		t.Fatalf("inputs sent: %+v", room.inputs)
	}
	if after[0] <= before[0] {
		t.Fatalf("own paddle did not move down before confirmation: rows %v → %v", before, after)
	}

	// An auto-repeat makes it a held key; when the repeats stop for the
	// hold window, the view sends a stop.
	v.in.ctl.press(keyEvent{dir: 1, at: now})
	if v.in.ctl.tap {
		t.Fatal("a repeat within the auto-repeat window is still a tap")
	}
	now = now.Add(holdRepeat + time.Millisecond)
	v.in.ctl.expire(now)
	v.in.submit()
	if n := len(room.inputs); n != 2 || room.inputs[1].Action != 0 {
		t.Fatalf("after the hold window: %+v", room.inputs)
	}
}

func TestReconcileDropsAckedInputs(t *testing.T) {
	g, fr := match1v1(t, 10)
	room := newFakeRoom(fr)
	now := time.Unix(1000, 0)
	v := newTestRoomView(RoomViewConfig{Room: room, Me: "a", Slot: 0, Out: newVT(80, 24), Profile: colorprofile.ANSI256,
		Width: 80, Height: 24, Now: func() time.Time { return now }})
	v.setFrame(fr, v.cfg.Now())
	v.in.ctl.press(keyEvent{dir: 1, at: now})
	v.in.submit()
	if len(v.in.pending) != 1 {
		t.Fatalf("pending %d", len(v.in.pending))
	}
	// The server applies it: the next frame acks seq 1 and carries the move.
	g.Step([]game.Input{{Slot: 0, Seq: 1, Action: 1}})
	v.setFrame(frameOf(g, 1), v.cfg.Now())
	if len(v.in.pending) != 0 {
		t.Fatalf("acked input still pending: %+v", v.in.pending)
	}
	v.draw()
	snap := v.in.fr.State.(*pong.Snapshot)
	if got, want := v.in.steer.Drawn(), v.pong().Rect(0, snap.Paddles[0].Pos, snap.Paddles[0].Len); got != want {
		t.Fatalf("prediction at the snapshot instant drawn at %v, the server's paddle at %v", got, want)
	}
}

func TestTooSmallForTheBoardRecovers(t *testing.T) {
	_, fr := match1v1(t, 10)
	out := newVT(40, 12)
	now := time.Unix(1000, 0)
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Out: out, Profile: colorprofile.ANSI256,
		Width: 40, Height: 12, Now: func() time.Time { return now }})
	v.setFrame(fr, v.cfg.Now())
	v.draw()
	if scr := out.screen(); !strings.Contains(scr, "Terminal too small") || !strings.Contains(scr, "need 76×22") {
		t.Fatalf("small screen:\n%s", scr)
	}
	out.mu.Lock()
	out.vt.Resize(80, 24)
	out.mu.Unlock()
	v.w, v.h = 80, 24
	v.scr.Resize(80, 24)
	v.mode = modeNone
	v.draw()
	if scr := out.screen(); strings.Contains(scr, "too small") || !strings.Contains(scr, "alice") {
		t.Fatalf("after resize:\n%s", scr)
	}
}

func TestKeyFloodIsRateLimited(t *testing.T) {
	_, fr := match1v1(t, 10)
	room := newFakeRoom(fr)
	now := time.Unix(1000, 0)
	v := newTestRoomView(RoomViewConfig{Room: room, Me: "a", Slot: 0, Out: newVT(80, 24), Profile: colorprofile.ANSI256,
		Width: 80, Height: 24, Now: func() time.Time { return now }})
	v.setFrame(fr, v.cfg.Now())
	// 1,000 alternating presses within 100 ms.
	for i := range 1000 {
		now = now.Add(100 * time.Microsecond)
		d := int8(1)
		if i%2 == 1 {
			d = -1
		}
		v.in.ctl.press(keyEvent{dir: d, at: now})
		v.in.submit()
	}
	if n := len(room.inputs); n > 14 {
		t.Fatalf("a 100 ms key flood sent %d inputs to the room", n)
	}
	// The final direction still gets through on a later frame.
	now = now.Add(submitGap)
	v.in.submit()
	if last := room.inputs[len(room.inputs)-1]; last.Action != -1 {
		t.Fatalf("last input %+v, want the final direction -1", last)
	}
}

func TestRunEndsWithContextAndPacesFrames(t *testing.T) {
	_, fr := match1v1(t, 10)
	room := newFakeRoom(fr)
	out := newVT(80, 24)
	v := newTestRoomView(RoomViewConfig{Room: room, Me: "a", Slot: 0, Out: out, Profile: colorprofile.ANSI256, Width: 80, Height: 24, FPS: 30})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { v.Run(ctx); close(done) }()
	for range 50 { // a flood of keys never blocks the caller
		v.key(1, false, false)
	}
	v.Resize(100, 30)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not end with its context")
	}
}

// paddleRows returns the first and last screen rows holding side's colour.
func paddleRows(out *vtWriter, side int) [2]int {
	out.mu.Lock()
	defer out.mu.Unlock()
	w, h := out.vt.Size()
	first, last := -1, -1
	for y := 1; y < h-1; y++ {
		for x := 0; x < w; x++ {
			c := out.vt.Cell(x, y)
			if c.Char != '█' && c.Char != '▀' && c.Char != '▄' {
				continue
			}
			// Paddles live in the board's outer columns; left is the first
			// glyph column, right the last.
			onLeft := x < w/4
			if (side == 0) == onLeft && c.FG != 0 && isPaddleColor(c.FG, side) {
				if first < 0 {
					first = y
				}
				last = y
			}
		}
	}
	return [2]int{first, last}
}

func isPaddleColor(c vt10x.Color, side int) bool {
	// 256-colour indexes the palette downsamples the side colours to.
	switch side {
	case 0:
		return c == 203 || c == 196 || c == 9 || c == 160
	case 1:
		return c == 69 || c == 63 || c == 12 || c == 33
	}
	return false
}

type latencySink struct {
	mu  sync.Mutex
	lat []time.Duration
}

func (l *latencySink) FrameWritten(int, time.Duration) {}
func (l *latencySink) FramesSkipped(int)               {}
func (l *latencySink) InputToFrame(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lat = append(l.lat, d)
}
func (l *latencySink) got() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.lat...)
}

// TestInputToFrameTimesLiveKeysFromTheirRead: a key is timed from when the
// session read it, and only while the game is in play (a key during the
// countdown has no frame that reflects it).
func TestInputToFrameTimesLiveKeysFromTheirRead(t *testing.T) {
	_, playing := match1v1(t, 10)
	counting := *playing
	counting.Phase = game.Countdown
	counting.Left = 3 * time.Second
	room := newFakeRoom(&counting)
	sink := &latencySink{}
	read := time.Now().Add(-20 * time.Millisecond)
	v := newTestRoomView(RoomViewConfig{Room: room, Me: "a", Slot: 0, Out: newVT(80, 24), Profile: colorprofile.ANSI256,
		Width: 80, Height: 24, FPS: 30, Metrics: sink, InputAt: func() time.Time { return read }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { v.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	v.key(1, false, false)
	time.Sleep(300 * time.Millisecond) // frames go on; none reflects the key
	if got := sink.got(); len(got) != 0 {
		t.Fatalf("a key during the countdown was timed: %v", got)
	}
	room.publish(playing)
	deadline := time.Now().Add(5 * time.Second)
	for len(sink.got()) == 0 && time.Now().Before(deadline) {
		read = time.Now().Add(-20 * time.Millisecond)
		v.key(1, false, false)
		time.Sleep(50 * time.Millisecond)
	}
	got := sink.got()
	if len(got) == 0 {
		t.Fatal("no key in play was timed")
	}
	if got[0] < 20*time.Millisecond {
		t.Fatalf("latency %v: not timed from the read 20 ms before the key", got[0])
	}
}

// TestPressMovesThePaddleInItsOwnFrame: the frame drawn for a key press
// already shows the paddle moving, before any paced frame or room tick.
func TestPressMovesThePaddleInItsOwnFrame(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		for ticks := range 8 { // the paddle at different offsets within a pixel
			g, _ := match1v1(t, 10)
			for range ticks {
				g.Step([]game.Input{{Slot: 0, Action: 1}})
			}
			g.Step([]game.Input{{Slot: 0, Action: 0}})
			fr := frameOf(g, 0)
			out := newVT(size[0], size[1])
			now := time.Unix(1000, 0)
			v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Out: out, Profile: colorprofile.ANSI256,
				Width: size[0], Height: size[1], Now: func() time.Time { return now }})
			v.setFrame(fr, now)
			v.draw()
			before := v.in.steer.Drawn()
			now = now.Add(time.Millisecond)
			v.in.ctl.press(keyEvent{dir: 1, at: now})
			v.in.submit()
			now = now.Add(200 * time.Microsecond) // drawing the key's frame
			v.draw()
			if v.in.steer.Drawn()[1] <= before[1] {
				t.Fatalf("%v, offset %d: the frame drawn for the key did not move the paddle: %+v → %+v", size, ticks, before, v.in.steer.Drawn())
			}
			// Real time then catches up with the lead without a step back.
			prev := v.in.steer.Drawn()[1]
			for range 6 {
				now = now.Add(time.Second / 60)
				v.draw()
				if v.in.steer.Drawn()[1] < prev {
					t.Fatalf("%v, offset %d: the paddle stepped back from %d to %d", size, ticks, prev, v.in.steer.Drawn()[1])
				}
				prev = v.in.steer.Drawn()[1]
			}
		}
	}
}

// TestRateLimitedPressStillShowsAtOnce: a press that comes within the
// submit gap of the previous input is sent a frame later, but drawn at once.
func TestRateLimitedPressStillShowsAtOnce(t *testing.T) {
	_, fr := match1v1(t, 10)
	room := newFakeRoom(fr)
	now := time.Unix(1000, 0)
	v := newTestRoomView(RoomViewConfig{Room: room, Me: "a", Slot: 0, Out: newVT(80, 24), Profile: colorprofile.ANSI256,
		Width: 80, Height: 24, Now: func() time.Time { return now }})
	v.setFrame(fr, now)
	v.draw()
	now = now.Add(time.Millisecond)
	v.in.ctl.press(keyEvent{dir: 1, at: now})
	v.in.submit()
	v.draw()
	down := v.in.steer.Drawn()[1]
	now = now.Add(2 * time.Millisecond) // well inside submitGap
	v.in.ctl.press(keyEvent{dir: -1, at: now})
	v.in.submit()
	if len(room.inputs) != 1 {
		t.Fatalf("the reversal was sent inside the submit gap: %+v", room.inputs)
	}
	now = now.Add(200 * time.Microsecond)
	v.draw()
	if v.in.steer.Drawn()[1] >= down {
		t.Fatalf("the reversal did not show in its own frame: paddle top %d, was %d", v.in.steer.Drawn()[1], down)
	}
}

// An input says which room tick the player's screen showed when they
// pressed the key: a round trip before the key was read, in the room's
// ticks, counted from the frame the view has (drawn extrapolated to when
// it was written). The room judges a lagging player's catch by it.
func TestInputSaysWhatTheScreenShowed(t *testing.T) {
	_, fr := match1v1(t, 10)
	fr.Tick = 600
	room := newFakeRoom(fr)
	now := time.Unix(1000, 0)
	rtt := 150 * time.Millisecond
	v := newTestRoomView(RoomViewConfig{Room: room, Me: "a", Slot: 0, Out: newVT(80, 24), Profile: colorprofile.ANSI256,
		Width: 80, Height: 24, Now: func() time.Time { return now }, RTT: func() time.Duration { return rtt }})
	v.setFrame(fr, now) // tick 600 published now

	// Read 50 ms after the frame (3 ticks on), sent 20 ms later: the
	// screen showed the game 150 ms before the key was read, tick 594.
	key := now.Add(50 * time.Millisecond)
	now = key.Add(20 * time.Millisecond)
	v.in.ctl.press(keyEvent{dir: 1, at: key})
	v.in.submit()
	// With no round trip known, what the view drew when the key came.
	rtt = 0
	now = now.Add(200 * time.Millisecond)
	v.in.ctl.press(keyEvent{dir: -1, at: now})
	v.in.submit()
	if len(room.inputs) != 2 || room.inputs[0].Seen != 594 || room.inputs[1].Seen != 616 {
		t.Fatalf("inputs %+v, want Seen 594 then 616", room.inputs)
	}
}
