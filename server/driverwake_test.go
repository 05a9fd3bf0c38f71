package server

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/termkey"
	"github.com/termarena/termarena/tui"
)

// benchWake times one wake of the play loop's select for a beat of the
// room screen's clock, with the waits a session in a match has (the
// room's end, the chat's next line), by the select statement or by
// reflect.Select.
func benchWake(b *testing.B, sel func(d *driver, ctx context.Context, sc *selectCases, got *received) (int, bool)) {
	d := &driver{sess: &Session{winch: make(chan Window, 1)}, events: make(chan []termkey.Event),
		notes: &noticeQueue{wake: make(chan struct{}, 1)}, term: &terminal{handed: make(chan struct{}, 1)}}
	d.run = cmdRunner{out: make(chan tea.Msg)}
	for range 2 {
		d.waits = append(d.waits, tui.WaitMsg{Until: make(chan struct{}), Stop: make(chan struct{})})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	left := make(chan struct{})
	beat := make(chan struct{})
	close(beat) // a beat that has come
	sc := selectCases{idleTick: make(chan time.Time), held: make(chan time.Time), left: left, beat: beat,
		screenEvents: make(chan tui.ScreenEvent)}
	var got received
	b.ReportAllocs()
	for b.Loop() {
		if i, _ := sel(d, ctx, &sc, &got); i != 8 {
			b.Fatalf("woke for case %d, want the beat (8)", i)
		}
	}
}

func BenchmarkPlayLoopWakeTyped(b *testing.B) { benchWake(b, (*driver).selectTyped) }

func BenchmarkPlayLoopWakeReflect(b *testing.B) { benchWake(b, (*driver).selectReflect) }
