// Package admin owns the `admin …` commands: moderation (bans, mutes,
// kicks, warnings, announcements, moderator roles), the listings an
// operator scripts against (bans, mutes, audit log, live sessions, rooms),
// and backups. Each command is a pure function of its dependencies (the
// store, the live sessions behind a small interface, a clock), so it is
// tested without SSH.
//
// Only admins run these: keys listed in the operator's admin keys file.
// Moderators, whom an admin promotes, act from chat instead.
//
// Exit codes: 0 ok, 1 failure (such as an unknown player), 2 usage, 77 the
// caller is not an admin.
package admin

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/telemetry"
)

// Exit codes, the same as every other termarena command's.
const (
	ExitOK     = 0
	ExitFail   = 1
	ExitUsage  = 2
	ExitDenied = 77
)

// Caller is who runs the command, as the server identified them.
type Caller struct {
	ID    string // key fingerprint
	Name  string // player name; recorded as the actor in the audit log
	Admin bool   // holds a key from the admin keys file
}

// Sessions is the live side of the server that moderation reaches into.
// The server implements it; tests use a fake.
type Sessions interface {
	// Kick ends every live session of that player, showing them reason,
	// and returns how many it ended.
	Kick(fingerprint, reason string) int
	// Tell shows a warning to that player and returns how many sessions
	// it reached.
	Tell(fingerprint, text string) int
	// Announce shows text to everyone online and returns how many
	// sessions it reached.
	Announce(text string) int
	// List describes every live session, for `admin sessions`.
	List() []SessionInfo
	// Rooms summarises every room, private ones included, for
	// `admin rooms`.
	Rooms() []lobby.RoomInfo
	// Muted applies a mute to the player's live chat until the given
	// time; a zero until clears it.
	Muted(fingerprint string, until time.Time, reason string)
	// RoleChanged tells the player's live sessions their stored role
	// (store.RoleModerator or "") changed, so it applies without a
	// reconnect.
	RoleChanged(fingerprint, role string)
}

// SessionInfo is one live session.
type SessionInfo struct {
	Name        string
	Fingerprint string // the key fingerprint, or a guest's session id
	Addr        string // remote address, "203.0.113.7:51234"
	Where       string // where the player is now: "lobby", "room r7", "watching r7", "queue pong-1v1", "replay 42"
	Since       time.Time
	Guest       bool
	// Node is the cluster node the session is connected to ("" on a
	// single node).
	Node string
}

// Deps are what the commands work with.
type Deps struct {
	Store    Store
	Sessions Sessions         // nil behaves as a server with nobody online
	Now      func() time.Time // nil means time.Now
	// TempDir is where backup spools its snapshot before streaming it;
	// "" means os.TempDir(). It needs room for a copy of the data file.
	TempDir string
	// Stats reads the server's telemetry for `admin stats`; nil means the
	// server has none.
	Stats func() telemetry.Stats
	// IsAdmin reports whether a key is in the admin keys file, for the
	// moderation access decision; nil means none is.
	IsAdmin func(fingerprint string) bool
	// Node is the cluster node answering (`admin stats` names it); ""
	// on a single node.
	Node string
	// Matchmaker names the node that pairs the cluster's ranked queues
	// (the lease holder; "none" between holders); nil on a single node.
	Matchmaker func() string
	// Drain asks the cluster node named to drain (hand its matches over
	// and exit) and returns what it answered; nil on a single node.
	Drain func(ctx context.Context, node string) (string, error)
	// ClusterStats gathers every node's figures (`admin stats --cluster`)
	// within ctx's deadline, a node that did not answer with nil Stats;
	// nil on a single node.
	ClusterStats func(ctx context.Context) ([]NodeStats, error)
}

// command is one `admin` subcommand.
type command struct {
	name, args, summary string
	run                 func(r *runner, args []string) int
}

// commands is the subcommand table, in the order help lists them. A
// function rather than a variable so there is no package state.
func commands() []command {
	return []command{
		{"ban", "NAME|FINGERPRINT [DUR|permanent] [REASON…] [--ip CIDR]", "refuse a player's key (and an address range) at login; kicks them", runBan},
		{"unban", "NAME|FINGERPRINT [REASON…]", "lift every active ban of a player (exit 1: none)", runUnban},
		{"mute", "NAME|FINGERPRINT [DUR] [REASON…]", "stop a player chatting (default 10m)", runMute},
		{"unmute", "NAME|FINGERPRINT [REASON…]", "lift a player's mute (exit 1: none)", runUnmute},
		{"kick", "NAME|FINGERPRINT [REASON…]", "end a player's live sessions", runKick},
		{"warn", "NAME|FINGERPRINT REASON…", "show a player a warning", runWarn},
		{"announce", "TEXT…", "show a message to everyone online", runAnnounce},
		{"promote", "NAME moderator", "make a player a moderator", runPromote},
		{"demote", "NAME", "make a moderator a player again", runDemote},
		{"bans", "[--all] [--json]", "active bans (--all: expired and lifted too)", runBans},
		{"mutes", "[--json]", "active mutes", runMutes},
		{"audit", "[--since DUR] [--limit N] [--json]", "the moderation log, newest first", runAudit},
		{"sessions", "[--json]", "who is online", runSessions},
		{"rooms", "[--json]", "every room, private and ranked ones too", runRooms},
		{"stats", "[--cluster] [--json]", "the server's own telemetry: sessions, rooms, ticks, frames, memory (--cluster: every node's)", runStats},
		{"backup", "", "stream a consistent copy of the data file to stdout", runBackup},
		{"drain", "NODE", "a cluster node hands its matches to the others, tells its players to reconnect, and exits", runDrain},
		{"help", "", "this list", runHelp},
	}
}

// runner carries one invocation's dependencies to a subcommand.
type runner struct {
	ctx    context.Context
	d      Deps
	caller Caller
	out    io.Writer
	errOut io.Writer
	cmd    command
}

// Run runs `admin ARGS…` for caller and returns the exit status. Whether
// the caller is an admin is checked before anything is parsed, so a
// non-admin learns nothing about the commands, not even their usage.
func Run(ctx context.Context, d Deps, caller Caller, args []string, stdout, stderr io.Writer) int {
	if !caller.Admin {
		fmt.Fprintln(stderr, "termarena: admin: not allowed: only keys in the server's admin keys file may run admin commands")
		return ExitDenied
	}
	if d.Store == nil {
		fmt.Fprintln(stderr, "termarena: admin: no store configured")
		return ExitFail
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Sessions == nil {
		d.Sessions = nobodyOnline{}
	}
	if d.TempDir == "" {
		d.TempDir = os.TempDir()
	}
	if len(args) == 0 {
		usage(stderr)
		return ExitUsage
	}
	for _, c := range commands() {
		if c.name == args[0] {
			r := &runner{ctx: ctx, d: d, caller: caller, out: stdout, errOut: stderr, cmd: c}
			return c.run(r, args[1:])
		}
	}
	fmt.Fprintf(stderr, "termarena: admin: unknown command %q\n\n", sanitize.Arg(args[0]))
	usage(stderr)
	return ExitUsage
}

func runHelp(r *runner, args []string) int {
	if len(args) > 0 {
		return r.usageErr("help takes no arguments (got %q)", sanitize.Arg(args[0]))
	}
	usage(r.out)
	return ExitOK
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ssh HOST admin COMMAND [ARGS…]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	cmds := commands()
	width := 0
	for _, c := range cmds {
		width = max(width, sanitize.Width(synopsis(c)))
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "  %s  %s\n", pad(synopsis(c), width), c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "DUR is a number and a unit: 90s, 30m, 24h, 7d, 2w, or a sum such as 1d12h.")
	fmt.Fprintln(w, "Bans without DUR are permanent; mutes last 10m. Put -- before a reason that starts with -.")
	fmt.Fprintln(w, "Listings take --json for scripts.")
}

func synopsis(c command) string { return strings.TrimSpace(c.name + " " + c.args) }

// usageErr reports a usage error for the running subcommand.
func (r *runner) usageErr(format string, a ...any) int {
	fmt.Fprintf(r.errOut, "termarena: admin %s: %s\nusage: admin %s\n", r.cmd.name, fmt.Sprintf(format, a...), synopsis(r.cmd))
	return ExitUsage
}

// fail reports a failure of the running subcommand.
func (r *runner) fail(format string, a ...any) int {
	fmt.Fprintf(r.errOut, "termarena: admin %s: %s\n", r.cmd.name, fmt.Sprintf(format, a...))
	return ExitFail
}

// storeFail reports a store error. Its text is sanitised because it can
// quote what a player chose (a name) or an admin typed.
func (r *runner) storeFail(what string, err error) int {
	return r.fail("could not %s: %s", what, sanitize.Text(err.Error(), 300))
}

// actor is the caller as the audit log names them: by name, falling back
// to the key when the server had none.
func (r *runner) actor() string {
	if n := sanitize.Text(r.caller.Name, 32); n != "" {
		return n
	}
	return sanitize.Text(r.caller.ID, 64)
}

// nobodyOnline stands in for Sessions when the caller has none: every
// live action reaches no one.
type nobodyOnline struct{}

func (nobodyOnline) Kick(string, string) int         { return 0 }
func (nobodyOnline) Tell(string, string) int         { return 0 }
func (nobodyOnline) Announce(string) int             { return 0 }
func (nobodyOnline) List() []SessionInfo             { return nil }
func (nobodyOnline) Rooms() []lobby.RoomInfo         { return nil }
func (nobodyOnline) Muted(string, time.Time, string) {}
func (nobodyOnline) RoleChanged(string, string)      {}

// runDrain asks a cluster node to drain, as a SIGTERM with --drain would.
func runDrain(r *runner, args []string) int {
	if len(args) != 1 {
		return r.usageErr("drain takes one node name")
	}
	if r.d.Drain == nil {
		fmt.Fprintln(r.errOut, "termarena: admin: drain: this server is a single node (drain is for a cluster: --nats)")
		return ExitFail
	}
	said, err := r.d.Drain(r.ctx, args[0])
	if err != nil {
		fmt.Fprintf(r.errOut, "termarena: admin: drain: %v\n", err)
		return ExitFail
	}
	fmt.Fprintln(r.out, said)
	return ExitOK
}
