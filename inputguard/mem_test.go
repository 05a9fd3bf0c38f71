package inputguard

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestSessionReaderHoldsWhatKeysNeed: a session's input filter holds its
// input buffer and room for one delivery (1 KB and its longest sequence)
// and little more, after keys and after a long paste alike (it held two
// 4 KiB buffers beside them, 11 KB a session, whatever came).
func TestSessionReaderHoldsWhatKeysNeed(t *testing.T) {
	const sessions = 64
	input := "wss\x1b[A\x1b[200~" + strings.Repeat("a pasted line of chat ", 150) + "\x1b[201~" + "\x1b]11;rgb:0000/0000/0000\x1b\\" + "q"
	readers := make([]*SessionReader, sessions)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range readers {
		s := NewSessionReader(strings.NewReader(input), DefaultLimits())
		s.LimitKeys(DefaultKeysPerSec)
		s.sleep = func(time.Duration) {}
		var got []byte
		p := make([]byte, 1024)
		for {
			n, err := s.Read(p)
			got = append(got, p[:n]...)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if !strings.HasSuffix(string(got), "q") || !strings.Contains(string(got), "a pasted line") {
			t.Fatalf("the filter delivered %q…, want the keys, the paste and the q", got[:min(len(got), 40)])
		}
		readers[i] = s
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(readers)
	want := int64(2*DefaultLimits().MaxStringLen + 3<<10)
	if per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / sessions; per > want {
		t.Fatalf("a session's input filter holds %d bytes after a paste, want ≤%d", per, want)
	}
}
