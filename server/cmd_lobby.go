package server

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/telemetry"
	"github.com/termarena/termarena/tui"
)

// lobbyCommand is what a bare `ssh host` runs.
func lobbyCommand() command {
	return command{
		name:    lobbyName,
		summary: "the lobby (needs a terminal: ssh -t)",
		tui:     true,
		run: func(srv *Server, s *Session, args []string) int {
			return srv.runLobby(s, lobbyStart{side: -1})
		},
	}
}

// lobbyStart says where a session goes first: a room, a ranked queue, or
// the lobby itself.
type lobbyStart struct {
	join         string
	side         int
	play         lobby.RankedMode
	casual       string // a quick-match queue to join at once (play --casual)
	spectate     string
	spectateList bool
	replay       uint64
}

// runLobby runs the lobby program.
func (srv *Server) runLobby(s *Session, start lobbyStart) int {
	return srv.runProgram(s, func(io *sessionIO) programModel {
		return tui.NewLobby(srv.lobbyDeps(s, io, start))
	})
}

// lobbyDeps is everything the lobby model of session s gets.
func (srv *Server) lobbyDeps(s *Session, io *sessionIO, start lobbyStart) tui.LobbyDeps {
	id := s.Identity()
	plain, term := srv.helpLines()
	fps, fpsNote := sessionFPSNote(s.Environ(), srv.cfg.FPS)
	if fpsNote != "" {
		srv.log.Info("a session asked for a frame rate outside 10-60", "player", id.Name, "fps", fps)
	}
	return tui.LobbyDeps{
		Ctx:           io.ctx,
		Player:        game.Player{ID: game.PlayerID(id.ID), Name: id.Name, Guest: id.Guest},
		Online:        srv.deps.Hub,
		Rooms:         srv.deps.Rooms,
		Views:         srv.deps.Views,
		Commands:      plain,
		TermCommands:  term,
		WebURL:        srv.cfg.WebURL,
		Join:          start.join,
		JoinSide:      start.side,
		Play:          start.play,
		Matchmaker:    srv.deps.Matchmaker,
		BotOfferAfter: srv.cfg.BotOfferAfter,
		Challenges:    srv.deps.Challenges,
		Notify:        io.notify,
		Quick:         srv.deps.Quick,
		Casual:        start.casual,
		Store:         srv.deps.Store,
		Queries:       srv.deps.Service,
		Who:           srv.deps.Service,
		Spectate:      start.spectate,
		SpectateStart: start.spectateList,
		Replay:        start.replay,
		Metrics:       srv.frameMetrics(),
		Chat:          srv.deps.Chat,
		ChatMember:    chatMember(id),
		ChatAct:       srv.chatAct,
		Out:           io.out,
		Terminal:      io.term,
		Profile:       io.profile,
		FPS:           fps,
		Clocks:        srv.clocks,
		Palettes:      &srv.palettes,
		RTT:           io.rtt.get,
		NoReply:       io.rtt.noReply,
		InputAt:       io.input.LastRead,
		OnPanic:       func(r any) { io.guard.recovered(r, "room view") },
		Notice:        strings.TrimSpace(id.NameNote + " " + fpsNote),
		Watchers:      srv.watchers,
	}
}

// frameMetrics hands the game screens the telemetry sink, or nil: a nil
// *telemetry.Metrics inside the interface would not compare equal to nil.
func (srv *Server) frameMetrics() tui.FrameMetrics {
	if srv.deps.Metrics == nil {
		return nil
	}
	return gameMetrics{srv.deps.Metrics}
}

// gameMetrics lets room screens report by game: telemetry's ForGame
// returns its own sink type, which tui.GameMetrics' signature cannot name.
type gameMetrics struct{ *telemetry.Metrics }

func (g gameMetrics) ForGame(name string) tui.FrameMetrics { return g.Metrics.ForGame(name) }

// sessionFPS is the game frame rate for one session: the player may ask
// for their own with `ssh -o SetEnv=TERMARENA_FPS=60` (10–60); otherwise
// the server's --fps.
func sessionFPS(env []string, def int) int {
	n, _ := sessionFPSNote(env, def)
	return n
}

// sessionFPSNote is sessionFPS, and what to tell a player whose
// TERMARENA_FPS was not taken ("" when it was, or none was sent): a rate
// replaced without a word looks like a server that ignores the setting.
func sessionFPSNote(env []string, def int) (int, string) {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TERMARENA_FPS="); ok {
			if n, err := strconv.Atoi(v); err == nil && n >= 10 && n <= 60 {
				return n, ""
			}
			return def, fmt.Sprintf("TERMARENA_FPS=%s is not a rate from 10 to 60: your screen runs at %d fps.", sanitize.Arg(v), def)
		}
	}
	return def, ""
}
