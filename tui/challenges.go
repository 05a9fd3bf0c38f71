package tui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/lobby"
)

// challengeState is the session's side of challenges: its inbox, and what
// it last read there (the challenges waiting for an answer, the one it
// sent). It belongs to the Bubble Tea Update.
type challengeState struct {
	inbox    *lobby.Inbox
	incoming []lobby.Challenge
	outgoing *lobby.Challenge
	// woken: the inbox wakes the session through LobbyDeps.Notify
	// (challengeWakeMsg); no command waits on it.
	woken bool
}

// challengeWakeMsg: the inbox has news (LobbyDeps.Notify).
type challengeWakeMsg struct{}

// challengeMsg is what the inbox had when it changed.
type challengeMsg struct {
	events   []lobby.ChallengeEvent
	incoming []lobby.Challenge
	outgoing *lobby.Challenge
}

// openChallenges registers the session for challenges (not a guest's) and
// returns the command that follows its inbox.
func (m *Lobby) openChallenges() tea.Cmd {
	if m.d.Challenges == nil {
		return nil
	}
	var wake func()
	if notify := m.d.Notify; notify != nil {
		// Through the session's own delivery: a keyed session would
		// otherwise park a goroutine on the inbox for its whole life.
		wake = func() { notify(challengeWakeMsg{}) }
	}
	in := m.d.Challenges.OpenWaking(m.d.Player, wake)
	if in == nil {
		return nil
	}
	m.challenges = &challengeState{inbox: in, woken: wake != nil}
	if wake != nil {
		return nil
	}
	return m.readInbox()
}

// takeInbox reads what is new in a woken inbox.
func (m *Lobby) takeInbox() tea.Cmd {
	if m.challenges == nil {
		return nil
	}
	ev, inc, out := m.challenges.inbox.Take()
	return m.onChallenge(challengeMsg{ev, inc, out})
}

// readInbox waits until the inbox changes, then takes what is new. It is
// followed during games too: a challenge may come in mid-match.
func (m *Lobby) readInbox() tea.Cmd {
	in := m.challenges.inbox
	return afterChange(m.d.Ctx, in.Changed(), 0, func() tea.Msg {
		ev, inc, out := in.Take()
		return challengeMsg{ev, inc, out}
	})
}

// closeChallenges ends the session's part in challenges (Detach).
func (m *Lobby) closeChallenges() {
	if m.challenges != nil {
		m.challenges.inbox.Close()
	}
}

// onChallenge shows what happened and, when a challenge was accepted,
// takes the player to its room from wherever they are.
func (m *Lobby) onChallenge(msg challengeMsg) tea.Cmd {
	cs := m.challenges
	if cs == nil {
		return nil
	}
	cs.incoming, cs.outgoing = msg.incoming, msg.outgoing
	var cmds []tea.Cmd
	if !cs.woken {
		cmds = append(cmds, m.readInbox())
	}
	for _, e := range msg.events {
		switch {
		case e.Offer && m.chat != nil:
			// The rooms page shows the offer with its keys; the chat pane
			// and a game screen's banner carry it elsewhere.
			m.chat.system(e.Text)
			if m.gameScreen() {
				m.chat.announce(e.Text)
			}
		case e.Text != "":
			m.tellChallenge(e.Text)
		}
		if e.Start != nil {
			cmds = append(cmds, m.toChallengeRoom(*e.Start))
		}
	}
	return tea.Batch(cmds...)
}

// tellChallenge puts a line where the player will see it: the notice in
// the lobby, the banner over a game screen, and the chat pane.
func (m *Lobby) tellChallenge(text string) {
	m.notice = text
	if m.chat != nil {
		m.chat.system(text)
		if m.gameScreen() {
			m.chat.announce(text)
		}
	}
}

// toChallengeRoom leaves whatever the player is doing (a queue, a casual
// room, a watch, a replay, a menu) and sits them in the challenge's room.
func (m *Lobby) toChallengeRoom(st lobby.ChallengeStart) tea.Cmd {
	if s := m.seat(); s != nil && s.room == st.Room {
		// Already there: a ranked queue of this session was handed the
		// same match (Matchmaker.startChallenge). Leaving would forfeit.
		return nil
	}
	m.leavePage() // a ranked or quick-match queue
	leave := m.closePlay()
	if m.state == stMenu {
		m.show(nil)
	}
	m.help = false
	if m.chat != nil {
		// The offer's banner would stay over the new game for seconds.
		m.chat.banner, m.chat.bannerUntil = "", time.Time{}
	}
	join := func() tea.Msg { return joinMsg{room: st.Room, side: st.Slot} }
	if leave == nil {
		return join
	}
	return tea.Sequence(leave, join)
}

// challengeKey answers the newest challenge with y or n, on the rooms
// page and in a room (where neither is a game's key); ok is false when
// the key is not an answer.
func (m *Lobby) challengeKey(s string) (tea.Cmd, bool) {
	cs := m.challenges
	if cs == nil || len(cs.incoming) == 0 || (s != "y" && s != "n") {
		return nil, false
	}
	if s == "y" {
		m.acceptChallenge("")
	} else {
		m.declineChallenge("")
	}
	return nil, true
}

// issueChallenge challenges the player named to.
func (m *Lobby) issueChallenge(to string, spec lobby.ChallengeSpec) {
	if m.challenges == nil {
		m.tellChallenge("Guests can't challenge: connect with an SSH key.")
		return
	}
	c, err := m.d.Challenges.Issue(m.challenges.inbox, to, spec)
	if err != nil {
		m.tellChallenge(sentence(err.Error()))
		return
	}
	m.challenges.outgoing = &c
	m.tellChallenge(fmt.Sprintf("You challenged %s to %s: waiting for the answer (%s).", c.To.Name, c.What(),
		time.Until(c.Expires).Round(time.Second)))
}

// sentence ends a refusal with a stop (refusals start with a capital
// unless they start with a player's name, which keeps its case).
func sentence(s string) string {
	if s == "" {
		return s
	}
	if last := s[len(s)-1]; last != '.' && last != '?' && last != '!' {
		s += "."
	}
	return s
}

// challengeStatus is what the rooms page shows of challenges, where the
// router has them.
type challengeStatus interface{ challengeLines() string }

// challengeLines are the rooms page's lines about challenges: the newest
// waiting for the player's answer, and the one they sent.
func (m *Lobby) challengeLines() string {
	cs := m.challenges
	if cs == nil {
		return ""
	}
	var out string
	if n := len(cs.incoming); n > 0 {
		c := cs.incoming[n-1]
		line := fmt.Sprintf("⚔ %s challenges you: %s · %s", c.From.Name, c.What(), secondsLeft(c.Expires))
		out += lipgloss.NewStyle().Bold(true).Foreground(colWarn).Render(m.listLine(line)) + "\n"
		keys := "  y accept · n decline"
		if n > 1 {
			keys += fmt.Sprintf(" · %d more waiting (/accept NAME)", n-1)
		}
		out += style(colWarn).Render(m.listLine(keys)) + "\n"
	}
	if c := cs.outgoing; c != nil {
		line := fmt.Sprintf("⌛ waiting for %s to answer: %s · %s · /cancel", c.To.Name, c.What(), secondsLeft(c.Expires))
		out += style(colDim).Render(m.listLine(line)) + "\n"
	}
	return out
}

func secondsLeft(t time.Time) string {
	return fmt.Sprintf("%d s", max(int(time.Until(t).Round(time.Second).Seconds()), 0))
}
