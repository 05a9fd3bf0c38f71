package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"

	"github.com/termarena/termarena/admin"
	"github.com/termarena/termarena/commands"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/store"
)

// Exit codes, shared by every command so scripts can rely on them: the
// plain commands' own.
const (
	ExitOK     = commands.ExitOK
	ExitFail   = commands.ExitFail
	ExitUsage  = commands.ExitUsage
	ExitDenied = commands.ExitDenied
)

// command is one thing a player can ask for with `ssh host NAME …`.
type command struct {
	name    string
	args    string // usage after the name
	summary string
	detail  string // more for `help NAME`: arguments, exit codes; may be ""
	tui     bool   // needs a PTY (ssh -t)
	modes   bool   // takes a ranked mode: help NAME lists this server's
	run     func(srv *Server, s *Session, args []string) int

	// plainWith is an argument that makes a tui command plain, needing
	// no PTY (replay --cast).
	plainWith string
}

// lobbyName is the command a bare `ssh host` runs.
const lobbyName = "lobby"

// commandTable is the routing table, in the order help lists them. Only
// what exists is here: help never advertises a feature that is not built.
func commandTable() []command {
	return []command{
		lobbyCommand(),
		playCommand(),
		practiceCommand(),
		joinCommand(),
		spectateCommand(),
		replayCommand(),
		roomsCommand(),
		leaderboardCommand(),
		profileCommand(),
		matchesCommand(),
		replaysCommand(),
		whoamiCommand(),
		whoCommand(),
		renameCommand(),
		shareCommand(),
		adminCommand(),
		helpCommand(),
	}
}

func (srv *Server) lookup(name string) (command, bool) {
	for _, c := range srv.cmds {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// run resolves who is asking and routes the session's command.
func (srv *Server) run(s *Session) int {
	srv.deps.Metrics.Login()

	id, err := srv.identify(s.sctx, s.user)
	if err != nil {
		srv.log.Error("identify", "err", err)
		if errors.Is(err, store.ErrDamaged) {
			// Trying again will not help: only the operator can (the
			// store check logs the damaged bucket).
			fmt.Fprintln(s.ErrOut(), "termarena: your player record cannot be read: the server's database is damaged; connect without a key to play as a guest, and tell the operator")
			return ExitFail
		}
		fmt.Fprintln(s.ErrOut(), "termarena: could not load your player record; please try again")
		return ExitFail
	}
	s.id = id
	if code, refused := srv.refuseBanned(s); refused {
		return code
	}
	if s.tooLong > 0 {
		fmt.Fprintf(s.ErrOut(), "termarena: the command line is %d bytes long; commands are at most %d bytes\n", s.tooLong, maxCommandLen)
		return ExitUsage
	}

	args := s.command
	if len(args) == 0 {
		args = []string{lobbyName}
	}
	cmd, ok := srv.lookup(args[0])
	if !ok {
		fmt.Fprintf(s.ErrOut(), "termarena: unknown command %q\n\n", sanitize.Arg(args[0]))
		srv.usage(s.ErrOut())
		return ExitUsage
	}
	if _, hasPTY := s.PTY(); cmd.tui && !hasPTY && (cmd.plainWith == "" || !slices.Contains(args[1:], cmd.plainWith)) {
		how := "ssh -t HOST"
		if len(s.command) > 0 {
			how += " " + cmd.name
		}
		fmt.Fprintf(s.ErrOut(), "termarena: %s needs a terminal: use %s\n", describe(cmd), how)
		return ExitUsage
	}
	return cmd.run(srv, s, args[1:])
}

func describe(c command) string {
	if c.name == lobbyName {
		return "the lobby"
	}
	return "'" + c.name + "'"
}

// refuseBanned is the one place bans are checked: after authentication,
// with the identity of the key that completed it and the client's address
// (a range ban also refuses guests from it). Admin keys are never refused:
// the admin keys file is the operator's own authority, and a range ban
// must not lock them out of lifting it.
func (srv *Server) refuseBanned(s *Session) (int, bool) {
	id := s.Identity()
	if id.Admin {
		return 0, false
	}
	fp := id.ID
	if id.Guest {
		fp = ""
	}
	var ip net.IP
	if ta, ok := s.RemoteAddr().(*net.TCPAddr); ok {
		ip = ta.IP
	}
	b, banned, err := srv.deps.Store.ActiveBan(s.Context(), fp, ip)
	if err != nil {
		srv.log.Error("ban check", "err", err)
		fmt.Fprintln(s.ErrOut(), "termarena: could not check your account; please try again")
		return ExitFail, true
	}
	if !banned {
		return 0, false
	}
	srv.log.Info("refused banned login", "name", id.Name, "fingerprint", fp, "ban", b.ID)
	fmt.Fprintln(s.ErrOut(), "termarena: "+admin.BanMessage(b))
	return ExitDenied, true
}

// enter registers a running session unless the server is shutting down.
// The check and the Add happen under one lock so Shutdown's Wait never races
// a late Add.
func (srv *Server) enter() bool {
	srv.runMu.Lock()
	defer srv.runMu.Unlock()
	if srv.shutting.Load() {
		return false
	}
	srv.running.Add(1)
	return true
}

func (srv *Server) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ssh [-t] -p PORT HOST [COMMAND]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	width := 0
	for _, c := range srv.cmds {
		width = max(width, len(c.name)+1+len(c.args))
	}
	for _, c := range srv.cmds {
		name := c.name
		if name == lobbyName {
			name = "(none)"
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, strings.TrimSpace(name+" "+c.args), c.summary)
	}
}

// helpLines lists the commands for the lobby's help screen: plain ones
// and those that need a terminal, each with its arguments.
func (srv *Server) helpLines() (plain, term []string) {
	for _, c := range srv.cmds {
		if c.name == lobbyName || c.name == "help" {
			continue
		}
		line := strings.TrimSpace(c.name + " " + c.args)
		if c.tui {
			term = append(term, line)
		} else {
			plain = append(plain, line)
		}
	}
	return plain, term
}
