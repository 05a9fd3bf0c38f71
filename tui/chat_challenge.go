package tui

import (
	"fmt"

	"github.com/termarena/termarena/lobby"
)

// chatChallenge is /challenge NAME [MODE] [casual|ranked].
func (m *Lobby) chatChallenge(args string) {
	name, spec, err := lobby.ParseChallenge(m.games(), args)
	if err != nil {
		m.tellChallenge(sentence(err.Error()))
		return
	}
	m.issueChallenge(name, spec)
}

// chatCancel is /cancel: the challenge this session sent is withdrawn.
func (m *Lobby) chatCancel() {
	if m.challenges == nil {
		m.tellChallenge("Guests can't challenge: connect with an SSH key.")
		return
	}
	c, err := m.d.Challenges.Cancel(m.challenges.inbox)
	if err != nil {
		m.tellChallenge(sentence(err.Error()))
		return
	}
	m.challenges.outgoing = nil
	m.tellChallenge(fmt.Sprintf("You withdrew your challenge to %s.", c.To.Name))
}
