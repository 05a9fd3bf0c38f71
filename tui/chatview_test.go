package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/termarena/termarena/chat"
)

// rightHalf marks the cell a wide rune's right half takes.
const rightHalf rune = -1

// wideCells reads the emulator as a terminal that draws wide runes two
// cells wide shows it. vt10x draws every rune one cell wide, but the grid
// addresses the cell after a wide rune absolutely, so every rune lands in
// its column and the cell after a wide rune is its right half.
func wideCells(out *vtWriter) [][]rune {
	out.mu.Lock()
	defer out.mu.Unlock()
	w, h := out.vt.Size()
	rows := make([][]rune, h)
	for y := range h {
		rows[y] = make([]rune, w)
		for x := 0; x < w; x++ {
			r := out.vt.Cell(x, y).Char
			if r == 0 {
				r = ' '
			}
			rows[y][x] = r
			if ansi.StringWidthWc(string(r)) == 2 && x+1 < w {
				x++
				rows[y][x] = rightHalf
			}
		}
	}
	return rows
}

// wideText is one row of wideCells as text.
func wideText(row []rune) string {
	var b strings.Builder
	for _, r := range row {
		if r != rightHalf {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func wideScreen(out *vtWriter) string {
	var rows []string
	for _, r := range wideCells(out) {
		rows = append(rows, wideText(r))
	}
	return strings.Join(rows, "\n")
}

// paneText is the text of the pane's rows below its header, trimmed, one
// row a line, with a check that no row has half a wide rune at the pane's
// edges.
func paneText(t *testing.T, v *RoomView, out *vtWriter) []string {
	t.Helper()
	p := v.pane
	if p.h == 0 {
		t.Fatal("no chat pane")
	}
	var rows []string
	cells := wideCells(out)
	for y := p.y + 1; y < p.y+p.h; y++ {
		row := cells[y][p.x : p.x+p.w]
		if row[0] == rightHalf || (p.x+p.w < len(cells[y]) && cells[y][p.x+p.w] == rightHalf) {
			t.Fatalf("row %d has half a wide rune at the pane's edge: %q", y, wideText(cells[y]))
		}
		rows = append(rows, strings.TrimRight(wideText(row), " "))
	}
	return rows
}

// roomWithChat is a room view at w×h drawing m's chat on a fixed clock.
func roomWithChat(t *testing.T, m *Lobby, w, h int, clock *time.Time) (*RoomView, *vtWriter) {
	t.Helper()
	_, fr := match1v1(t, 90)
	out := newVT(w, h)
	v := NewRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Title: "r1 · 1v1 · casual", Out: out,
		Profile: colorprofile.ANSI256, Width: w, Height: h, Now: func() time.Time { return *clock }, Chat: m.chatFeed()})
	v.frAt = *clock
	v.setFrame(fr, *clock)
	v.draw()
	return v, out
}

func say(t *testing.T, c *chat.Chat, from chat.Member, texts ...string) {
	t.Helper()
	for _, text := range texts {
		if r := c.Send(from, chat.LobbyChannel, text, time.Now()); !r.Delivered {
			t.Fatalf("%s's %q not delivered: %+v", from.Name, text, r.Reply)
		}
	}
}

// TestRoomChatPaneDrawsWideRunes: CJK and emoji in the room's chat pane are
// drawn as themselves, two cells each, and a line that does not fit is cut
// between wide runes, never through one.
func TestRoomChatPaneDrawsWideRunes(t *testing.T) {
	long := strings.Repeat("漢字かな", 12) + "😀"
	for _, size := range [][2]int{{80, 30}, {200, 50}} {
		c := newChat(t)
		m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
		bob := chatMember("bob")
		bs := c.Join(bob, chat.LobbyChannel)
		defer bs.Close()
		say(t, c, bob, "漢字と絵文字😀 ok", long)
		pumpChat(t, m)
		clock := time.Unix(1000, 0)
		v, out := roomWithChat(t, m, size[0], size[1], &clock)
		rows := paneText(t, v, out)
		all := strings.Join(rows, "\n")
		if !strings.Contains(all, "bob: 漢字と絵文字😀 ok") || strings.Contains(all, "?") {
			t.Fatalf("%v: wide runes not drawn:\n%s", size, wideScreen(out))
		}
		if last := rows[len(rows)-1]; !strings.HasPrefix(last, "bob: 漢字かな漢字") || !strings.HasSuffix(last, "…") {
			t.Fatalf("%v: the long line is not cut at the pane's edge: %q", size, last)
		}
	}
}
