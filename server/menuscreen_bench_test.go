package server

import (
	"fmt"
	"io"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
)

// menuView is a lobby-like view of w×h: a bordered box, bold and
// coloured titles, a cursor line, italic dim chat lines, a reversed and a
// background-coloured run, and a line longer than the screen. n varies
// the text so that two views differ in a few places.
func menuView(w, h, n int) tea.View {
	accent, good, dim, warn := lipgloss.Color("#7d56f4"), lipgloss.Color("#04b575"), lipgloss.Color("#767676"), lipgloss.Color("#ff5f87")
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Foreground(accent).Render("t e r m a r e n a") + "\n")
	b.WriteString("Welcome, " + lipgloss.NewStyle().Bold(true).Foreground(good).Render("ann") + "!\n")
	fmt.Fprintf(&b, "%d players online\n\n", 3+n)
	for i := range 4 {
		st, cur := lipgloss.NewStyle().Foreground(lipgloss.Color("#dddddd")), "  "
		if i == n%4 {
			st, cur = lipgloss.NewStyle().Bold(true).Foreground(good), "▸ "
		}
		b.WriteString(st.Render(fmt.Sprintf("%sr%d · 1v1 · casual  %d/2", cur, i+1, (i+n)%3)) + "\n")
	}
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(accent).Padding(0, 2).
		Render(lipgloss.NewStyle().Italic(true).Foreground(dim).Render(fmt.Sprintf("bob: hello %d", n)) + "\n" +
			lipgloss.NewStyle().Reverse(true).Render(" enter ") + " " +
			lipgloss.NewStyle().Background(lipgloss.Color("#303030")).Foreground(warn).Render(" ranked ") + " " +
			lipgloss.NewStyle().Underline(true).Faint(true).Render("u"))
	b.WriteString(box + "\n")
	b.WriteString(strings.Repeat("long line ", w/5) + "\n")
	for y := strings.Count(b.String(), "\n"); y < h-1; y++ {
		b.WriteByte('\n')
	}
	b.WriteString(lipgloss.NewStyle().Foreground(dim).Render("c create · j join · q quit"))
	v := tea.NewView(b.String())
	v.AltScreen = true
	v.WindowTitle = "termarena"
	return v
}

// BenchmarkMenuRedraw: the menus' draw of a lobby view that changed in a
// few places (the online count, the cursor, a chat line), as a lobby
// redraws when someone arrives or a key moves the cursor; the view's own
// making is not counted.
func BenchmarkMenuRedraw80x24(b *testing.B)  { benchMenuRedraw(b, 80, 24) }
func BenchmarkMenuRedraw200x50(b *testing.B) { benchMenuRedraw(b, 200, 50) }

func benchMenuRedraw(b *testing.B, w, h int) {
	views := make([]tea.View, 4)
	for i := range views {
		views[i] = menuView(w, h, i)
	}
	s := newMenuScreen(io.Discard, nil, colorprofile.TrueColor, w, h)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := s.draw(views[i%len(views)]); err != nil {
			b.Fatal(err)
		}
	}
}
