package server

import (
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/tui"
)

// AddPanicCommands registers commands that panic on purpose, in test builds
// only, to show that a panic ends one session and nothing else:
//
//	panic              a plain command that panics
//	panic-key          the lobby; "!" makes its Update panic
//	panic-view         the lobby; "!" makes its View panic
//	panic-watch ROOM   watches ROOM with a room view that panics drawing
func AddPanicCommands(srv *Server) {
	srv.cmds = append(srv.cmds,
		command{name: "panic", summary: "test: panic", run: func(*Server, *Session, []string) int {
			panic("test: a command panicked on purpose")
		}},
		command{name: "panic-key", summary: "test: panic in Update", tui: true, run: func(srv *Server, s *Session, _ []string) int {
			return srv.runProgram(s, func(io *sessionIO) programModel {
				return &panicky{programModel: tui.NewLobby(srv.lobbyDeps(s, io, lobbyStart{side: -1})), inUpdate: true}
			})
		}},
		command{name: "panic-view", summary: "test: panic in View", tui: true, run: func(srv *Server, s *Session, _ []string) int {
			return srv.runProgram(s, func(io *sessionIO) programModel {
				return &panicky{programModel: tui.NewLobby(srv.lobbyDeps(s, io, lobbyStart{side: -1}))}
			})
		}},
		command{name: "panic-watch", summary: "test: panic in a room view", tui: true, run: func(srv *Server, s *Session, args []string) int {
			return srv.runProgram(s, func(io *sessionIO) programModel {
				d := srv.lobbyDeps(s, io, lobbyStart{side: -1, spectate: args[0]})
				d.Metrics = panicMetrics{}
				return tui.NewLobby(d)
			})
		}},
	)
}

// panicky is the lobby until "!" is typed; then its Update (or its next
// View) panics.
type panicky struct {
	programModel
	inUpdate bool
	armed    bool
}

func (p *panicky) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "!" {
		if p.inUpdate {
			panic("test: Update panicked on purpose")
		}
		p.armed = true
	}
	_, cmd := p.programModel.Update(msg)
	return p, cmd
}

func (p *panicky) View() tea.View {
	if p.armed {
		panic("test: View panicked on purpose")
	}
	return p.programModel.View()
}

// panicMetrics makes a room view panic on the first frame it draws.
type panicMetrics struct{}

func (panicMetrics) FrameWritten(int, time.Duration) { panic("test: a room view panicked on purpose") }
func (panicMetrics) FramesSkipped(int)               {}
func (panicMetrics) InputToFrame(time.Duration)      {}

// WatchPainters lists the painters shared among watchers.
func (srv *Server) WatchPainters() []tui.WatchPainterStat { return srv.watchers.Painters() }

// MenuKeys counts the keys a session's menu program handled, by name.
type MenuKeys struct {
	mu   sync.Mutex
	keys map[string]int
}

// Count is how many times the menu handled key (presses and releases).
func (k *MenuKeys) Count(key string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.keys[key]
}

// AddMenuKeysCommand registers "menu-keys ROOM": the lobby, joining ROOM
// (as `join ROOM`), whose program counts in the returned MenuKeys every key
// its Update is handed.
func AddMenuKeysCommand(srv *Server) *MenuKeys {
	counted := &MenuKeys{keys: map[string]int{}}
	srv.cmds = append(srv.cmds, command{name: "menu-keys", summary: "test: count the menu's keys", tui: true,
		run: func(srv *Server, s *Session, args []string) int {
			return srv.runProgram(s, func(io *sessionIO) programModel {
				return &keyCounter{programModel: tui.NewLobby(srv.lobbyDeps(s, io, lobbyStart{join: args[0], side: -1})), n: counted}
			})
		}})
	return counted
}

// keyCounter is a session's model that counts the keys it is handed.
type keyCounter struct {
	programModel
	n *MenuKeys
}

// GameScreen is the lobby's: the session's play loop drives a game screen.
func (c *keyCounter) GameScreen() bool {
	g, ok := c.programModel.(interface{ GameScreen() bool })
	return ok && g.GameScreen()
}

func (c *keyCounter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var key string
	switch k := msg.(type) {
	case tea.KeyPressMsg:
		key = k.String()
	case tea.KeyReleaseMsg:
		key = k.String()
	}
	if key != "" {
		c.n.mu.Lock()
		c.n.keys[key]++
		c.n.mu.Unlock()
	}
	_, cmd := c.programModel.Update(msg)
	return c, cmd
}
