package spectator

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/termarena/termarena/game"
)

// brokenSource is a room feed that panics when read after its first
// frames, as a bug in the code a feed runs would.
type brokenSource struct {
	*fakeSource
	reads int
}

func (s *brokenSource) Latest() (*game.Frame, <-chan struct{}) {
	s.reads++
	if s.reads > 2 {
		panic("test bug in the feed")
	}
	return s.fakeSource.Latest()
}

// A panic in a watchers' feed ends that feed, not the server: Run returns
// a PanicError with the stack, and watchers get a Closed frame marked
// Failed, so their screens stop and say why, instead of waiting forever.
func TestPanickingFeedClosesForItsWatchers(t *testing.T) {
	src := &brokenSource{fakeSource: newFakeSource(&game.Frame{Room: "r", Seq: 1, Phase: game.Waiting})}
	d := NewDelay(src, DelayConfig{Delay: 0, Clock: game.NewFakeClock()})
	sampled := settle(t, d)
	errc := make(chan error, 1)
	go func() { errc <- d.Run(context.Background()) }()
	sampled(1)
	src.publish(playing(2)) // the feed's third read: it panics
	var pe *PanicError
	if err := <-errc; !errors.As(err, &pe) || pe.Value != "test bug in the feed" || !strings.Contains(string(pe.Stack), "brokenSource") {
		t.Fatalf("Run returned %v", err)
	}
	<-d.Done()
	if f, _ := d.Latest(); f == nil || f.Phase != game.Closed || !f.Failed {
		t.Fatalf("watchers' last frame %+v", f)
	}
}
