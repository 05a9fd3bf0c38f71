package tui

import "fmt"

// The answers to a challenge: y and n on the rooms page and in a room,
// /accept [NAME] and /decline [NAME] in chat (NAME picks one of several
// waiting; none, the newest).

// acceptChallenge accepts name's challenge ("" the newest); the room comes
// through the inbox like the challenger's.
func (m *Lobby) acceptChallenge(name string) {
	if m.challenges == nil {
		m.tellChallenge("Guests can't be challenged: connect with an SSH key.")
		return
	}
	if _, err := m.d.Challenges.Accept(m.challenges.inbox, name); err != nil {
		m.tellChallenge(sentence(err.Error()))
	}
}

func (m *Lobby) declineChallenge(name string) {
	if m.challenges == nil {
		m.tellChallenge("Guests can't be challenged: connect with an SSH key.")
		return
	}
	c, err := m.d.Challenges.Decline(m.challenges.inbox, name)
	if err != nil {
		m.tellChallenge(sentence(err.Error()))
		return
	}
	m.tellChallenge(fmt.Sprintf("You declined %s's challenge.", c.From.Name))
}
