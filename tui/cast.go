package tui

import (
	"errors"
	"fmt"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store"
)

// PaintOptions are the terminal a replay is painted for.
type PaintOptions struct {
	Width, Height int
	// FPS is how many frames a second of match time are painted (the
	// room screen's default, 30, when 0).
	FPS     int
	Profile colorprofile.Profile
	Games   game.Catalog
	Views   Views
	// Hold is how long the last frame (the results) stays after the
	// match ends.
	Hold time.Duration
}

// PaintReplay plays the recorded match id (data as stored, rec its record
// or nil) through the room screen a replay viewer gets — the same game
// view, header, footer and results, less the viewer's keys — on a
// terminal of the options' size, and hands emit each frame's bytes with
// its time from the start. The
// clock is the match's own, not the wall's: it paints as fast as it can,
// at 1× speed. emit may keep no reference to frame.
func PaintReplay(id uint64, data []byte, rec *store.MatchRecord, o PaintOptions, emit func(at time.Duration, frame []byte) error) error {
	r, err := spectator.Decode(data)
	if err != nil {
		return fmt.Errorf("replay of match %d: %w", id, err)
	}
	pb, err := spectator.NewPlayback(r, o.Games)
	if err != nil {
		return fmt.Errorf("replay of match %d: %w", id, err)
	}
	fps := o.FPS
	if fps <= 0 {
		fps = 30
	}
	epoch := time.Unix(0, 0)
	now := epoch
	rp := &replayer{id: id, r: r, left: leftSlots(r, rec)}
	st := &replayState{pb: pb, speed: 1}
	// A painted replay is played by asciinema or a web page, each with
	// keys of its own (asciinema: space, "."; the page: its buttons), not
	// the SSH viewer's: the footer keeps the clock and progress and names
	// no keys, and the results say only that the replay is over.
	publish := func() {
		status, _ := rp.statusLine(st)
		rp.cur, rp.curAt, rp.status, rp.keys = rp.frame(st), now, status, ""
	}
	publish()
	cfg := rp.viewConfig(rec, o.Views, o.Profile)
	cfg.OverKeys = "replay over"
	out := &paintOut{}
	cfg.Out, cfg.FPS, cfg.Width, cfg.Height = out, fps, o.Width, o.Height
	cfg.Now = func() time.Time { return now }
	v := NewRoomView(cfg)
	step := time.Second / time.Duration(fps)
	rate := float64(max(r.TickRate, 1))
	var endAt time.Time
	for {
		v.poll()
		v.draw()
		if len(out.frame) > 0 {
			if err := emit(now.Sub(epoch), out.frame); err != nil {
				return err
			}
			out.frame = out.frame[:0]
		}
		if st.err != nil || pb.Done() {
			if endAt.IsZero() {
				endAt = now
			}
			if now.Sub(endAt) >= o.Hold {
				// A replay that diverged ends where a terminal's does,
				// its footer saying so.
				return nil
			}
		}
		now = now.Add(step)
		st.carried += step.Seconds() * rate
		for st.carried >= 1 && !pb.Done() && st.err == nil {
			st.carried--
			if err := pb.Step(); err != nil && !errors.Is(err, spectator.ErrReplayEnded) {
				st.err = err
			}
		}
		publish()
	}
}

// paintOut keeps the frame the view wrote last.
type paintOut struct{ frame []byte }

func (p *paintOut) WriteFrame(b []byte) error { p.frame = append(p.frame, b...); return nil }
