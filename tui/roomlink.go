package tui

import "strings"

// roomLinkKey shows the room's web link over a player's room screen (L),
// for a friend to watch in a browser, until the next key; it reports
// whether it took the key. A private room's link carries its join code,
// as `share` prints it.
func (m *Lobby) roomLinkKey(s string) bool {
	if s != "L" || m.d.WebURL == "" || m.in == nil {
		return false
	}
	r := m.in.room
	ref := r.ID()
	if r.Private && r.Ranked == "" {
		ref = r.Code
	}
	m.in.view.SetPrompt("Watch this room in a browser:", m.d.WebURL+"/r/"+strings.ToLower(ref), "any key closes this")
	m.in.prompted = true
	return true
}
