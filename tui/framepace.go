package tui

import (
	"sync/atomic"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/pace"
	"github.com/termarena/termarena/screen"
)

// framePace is when a room screen draws and what it writes: its place on
// a shared frame clock, the key that drew a beat's frame early, the frame
// rate the header shows, the frames written, and the new size or palette
// that waits for the next frame. It belongs to the screen's goroutine,
// but for size and pal, which the session sets.
type framePace struct {
	rate    int // frames a second the player chose
	now     func() time.Time
	metrics FrameMetrics // nil: no telemetry

	// A new size or palette is rare: it waits in these (latest wins) and a
	// poke on the screen's events wakes its loop, which keeps the loop's
	// select at three cases.
	size atomic.Pointer[[2]int]
	pal  atomic.Pointer[colorprofile.Profile]

	frames uint64 // written, for the HUD's fps
	// early: a key drew the frame of the coming beat (drawEarly).
	early bool
	// The screen's place on its frame clock, the channel of its next beat
	// and how many beats the clock had.
	clk   pace.Beat
	beat  <-chan struct{}
	beats uint64
	// fps is the rate the header shows: beats delivered in the last
	// second measured (fpsCount since fpsAt).
	fps      int
	fpsCount int
	fpsAt    time.Time
}

// start takes the screen's place on clocks (nil: a clock of its own);
// release gives it back.
func (p *framePace) start(clocks *pace.Clocks) (release func()) {
	if clocks == nil {
		clocks = pace.New()
	}
	p.clk, release = clocks.Acquire(p.rate)
	p.beat, p.beats = p.clk.Next()
	p.fpsAt = p.now()
	return release
}

// next waits for the clock's next beat, after the one that came;
// beats the screen slept through (its loop blocked writing to a client
// that does not read) count as frames skipped.
func (p *framePace) next() {
	next, n := p.clk.Next()
	if n > p.beats+1 && p.metrics != nil {
		p.metrics.FramesSkipped(int(n - p.beats - 1))
	}
	p.beat, p.beats = next, n
}

// drawn reports whether a key drew this beat's frame already, which the
// beat then does not draw.
func (p *framePace) drawn() bool {
	if p.early {
		p.early = false
		return true
	}
	return false
}

// takeEarly reports whether a key may draw the coming beat's frame now:
// only the first key after a beat does, so however fast keys come the
// screen writes no more frames than its rate.
func (p *framePace) takeEarly() bool {
	if p.early {
		return false
	}
	p.early = true
	return true
}

// changes takes a new size or palette, if one waits (nil: none).
func (p *framePace) changes() (size *[2]int, pal *colorprofile.Profile) {
	return p.size.Swap(nil), p.pal.Swap(nil)
}

// write sends what changed on scr to out. wrote: a frame went out, at
// done (only timed with metrics). A failed write (err: the menus have
// the terminal, or the client is gone) leaves the terminal showing
// something else, so the next frame paints over all of it.
func (p *framePace) write(scr *screen.Screen, out FrameWriter) (done time.Time, wrote bool, err error) {
	b := scr.Render()
	if b == nil {
		return done, false, nil
	}
	m := p.metrics
	var start time.Time
	if m != nil {
		start = time.Now()
	}
	if err := out.WriteFrame(b); err != nil {
		scr.Invalidate()
		return done, false, err
	}
	p.frames++
	if m != nil {
		done = time.Now()
		m.FrameWritten(len(b), done.Sub(start))
	}
	return done, true, nil
}

// countFrame counts a paced frame for the HUD's rate: frames delivered on
// time, written or not (an unchanged frame costs nothing to deliver), so a
// terminal that stops reading, which blocks WriteFrame, makes it fall.
// Only beats count: a repaint over Bubble Tea's write is no frame of the
// rate the player chose.
func (p *framePace) countFrame() {
	now := p.now()
	p.fpsCount++
	if d := now.Sub(p.fpsAt); d >= time.Second {
		p.fps = int(float64(p.fpsCount)/d.Seconds() + 0.5)
		p.fpsCount, p.fpsAt = 0, now
	}
}
