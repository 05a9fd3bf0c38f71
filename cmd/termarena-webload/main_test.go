package main

import (
	"strings"
	"sync/atomic"
	"testing"
)

// A viewer that keeps up gets a whole screen, then only the rows that
// changed: every one is a frame it shows (the tool counted whole screens
// only, so a viewer that kept up looked as if it got almost nothing).
func TestCountFramesCountsRowDiffs(t *testing.T) {
	stream := `data: {"rows":[[["a",-1,-1,0]]],"line":"x"}` + "\n\n" +
		": beat\n\n" +
		`data: {"diff":{"3":[["b",-1,-1,0]]},"line":"x"}` + "\n\n" +
		`data: {"diff":{"4":[["c",-1,-1,0]]},"line":"x"}` + "\n\n" +
		"event: end\ndata: {}\n\n"
	var n atomic.Int64
	countFrames(strings.NewReader(stream), &n)
	if n.Load() != 3 {
		t.Fatalf("counted %d frames, want 3 (a whole screen and two diffs)", n.Load())
	}
}

func TestClientBoundSaysWhy(t *testing.T) {
	if why := clientBound(0.5, 5); why != "" {
		t.Fatalf("half a core and 5 ms waits: %q, want not bound", why)
	}
	if why := clientBound(0.97, 5); !strings.Contains(why, "97%") {
		t.Fatalf("97%% of a core: %q", why)
	}
	if why := clientBound(0.5, 120); !strings.Contains(why, "120 ms") {
		t.Fatalf("120 ms waits: %q", why)
	}
}
