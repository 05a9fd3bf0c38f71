// Package asciicast exports recorded matches as asciicast v2 files
// (https://docs.asciinema.org/manual/asciicast/v2/): a header line of JSON,
// then one `[time, "o", data]` line per frame. The frames are painted by the
// room screen a replay viewer gets over SSH (tui.PaintReplay), so
// `asciinema play` shows what `replay ID` shows. Debian 12's asciinema 2.2
// plays v2, not v3, which is why it is v2.
package asciicast

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/tui"
)

// Size is the terminal every export is painted for: 80×24 in 256
// colours, what most terminals open at and every player can watch.
const (
	Width  = 80
	Height = 24
)

// Header is an asciicast v2 file's first line.
type Header struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp"`
	Title     string            `json:"title"`
	Env       map[string]string `json:"env,omitempty"`
}

// Store is what an export reads: every store backend implements it.
type Store interface {
	Replay(ctx context.Context, matchID uint64) ([]byte, error)
	Match(ctx context.Context, id uint64) (store.MatchRecord, error)
}

// ErrNoReplay means no replay is stored for the match.
var ErrNoReplay = errors.New("no such replay")

// Exporter writes matches' replays as asciicast files.
type Exporter struct {
	Store Store
	Games game.Catalog
	Views tui.Views
}

// Export writes match id's replay to w as an asciicast v2 file. Nothing
// is written when the replay cannot be read (ErrNoReplay when there is
// none), so a caller can still answer with an error.
func (e Exporter) Export(ctx context.Context, id uint64, w io.Writer) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := e.Store.Replay(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("asciicast: match %d: %w", id, ErrNoReplay)
	case err != nil:
		return fmt.Errorf("asciicast: replay of match %d: %w", id, err)
	}
	var rec *store.MatchRecord
	title := fmt.Sprintf("termarena match %d", id)
	var stamp int64
	if m, err := e.Store.Match(ctx, id); err == nil {
		rec = &m
		title = fmt.Sprintf("termarena match %d · %s", id, m.Mode)
		stamp = m.Start.Unix()
	}
	bw := bufio.NewWriterSize(w, 32<<10)
	started := false
	var line []byte
	err = tui.PaintReplay(id, data, rec, tui.PaintOptions{Width: Width, Height: Height, Profile: colorprofile.ANSI256, Games: e.Games, Views: e.Views, Hold: 3 * time.Second},
		func(at time.Duration, frame []byte) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if !started {
				started = true
				h, _ := json.Marshal(Header{Version: 2, Width: Width, Height: Height, Timestamp: stamp, Title: title,
					Env: map[string]string{"TERM": "xterm-256color"}})
				bw.Write(append(h, '\n'))
			}
			line = AppendEvent(line[:0], at, frame)
			_, err := bw.Write(line)
			return err
		})
	if err != nil {
		return fmt.Errorf("asciicast: match %d: %w", id, err)
	}
	return bw.Flush()
}

// AppendEvent appends the output event line `[t, "o", "data"]\n`.
func AppendEvent(b []byte, at time.Duration, data []byte) []byte {
	b = append(b, '[')
	b = strconv.AppendFloat(b, at.Seconds(), 'f', 6, 64)
	b = append(b, `, "o", `...)
	b = appendJSONString(b, data)
	return append(b, "]\n"...)
}

// appendJSONString quotes terminal output as a JSON string: escapes and
// control bytes as \u00XX, invalid UTF-8 as U+FFFD.
func appendJSONString(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, `\ufffd`...)
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20 || r == 0x7f:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = append(b, s[:n]...)
		}
		s = s[n:]
	}
	return append(b, '"')
}
