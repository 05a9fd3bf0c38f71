// Package server owns the SSH side of termarena: listening, per-IP limits,
// authentication and identity, the session channel protocol, and routing a
// session's command to the lobby TUI or a plain-text command.
//
// Nothing imports server except main: everything it needs (store, hub, host
// key, logger) is passed in through Deps.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/admin"
	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/inputguard"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/pace"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/telemetry"
	"github.com/termarena/termarena/tui"
)

// Config is the operator-facing tuning of the SSH server.
type Config struct {
	MaxConnsPerIP      int           // concurrent connections from one address; 0 = unlimited
	MaxSessionsPerConn int           // session channels multiplexed on one connection
	HandshakeTimeout   time.Duration // key exchange + auth must finish within this
	FPS                int           // TUI frame rate per session
	// ClientTimeout drops a connection whose client has sent nothing (not
	// even an answer to the keepalive) or whose session output has stayed
	// blocked for this long; 0 = never.
	ClientTimeout time.Duration
	// SessionOpenTimeout closes a connection with no session open for
	// this long (after login, or after its last session ended); 0 = never.
	SessionOpenTimeout time.Duration
	// IdleTimeout closes a session left untouched in the lobby this long,
	// with a warning a minute before; 0 = never.
	IdleTimeout time.Duration
	// MenuRestAfter is how long the menus' view stands still before they
	// let their cells go (repainting whole at the next change); 0 = never.
	MenuRestAfter time.Duration
	// MaxKeysPerSec is each session's key budget (inputguard.LimitKeys):
	// keys beyond it are dropped, text beyond it arrives as a paste; 0 =
	// no limit.
	MaxKeysPerSec int
	// WebURL is the address of the web face that links are made from
	// (`share`), without a trailing slash; "" when the web face is off.
	WebURL string
	// BotOfferAfter is how long a player waits alone in a ranked queue
	// before the queue screen offers a practice match against a bot;
	// 0 = tui.DefaultBotOfferAfter (tests shorten it).
	BotOfferAfter time.Duration
}

// DefaultConfig is what `termarena` runs with when no flag says otherwise.
func DefaultConfig() Config {
	return Config{MaxConnsPerIP: 16, MaxSessionsPerConn: 4, HandshakeTimeout: 10 * time.Second, FPS: 30,
		ClientTimeout: 10 * time.Second, SessionOpenTimeout: 30 * time.Second, IdleTimeout: 30 * time.Minute, MenuRestAfter: 10 * time.Second,
		MaxKeysPerSec: inputguard.DefaultKeysPerSec}
}

// Deps are the server's collaborators.
type Deps struct {
	// Store is the whole backend: the server hands each part its slice.
	Store store.Store
	// TempDir is where `admin backup` spools its snapshot before
	// streaming it (the data dir: same disk, known room); "" means
	// os.TempDir().
	TempDir string
	Hub     *lobby.Hub
	Rooms   *lobby.Rooms
	// Matchmaker runs the ranked queues; nil disables ranked play.
	Matchmaker *lobby.Matchmaker
	// Service answers the queries of the plain commands and the lobby;
	// nil means one over Store and Rooms.
	Service *service.Service
	// Chat is the server's chat; nil disables chat.
	Chat *chat.Chat
	// Challenges and Quick are challenges between players and the casual
	// quick-match queues; nil turns each off.
	Challenges *lobby.Challenges
	Quick      *lobby.QuickMatch
	// Views are the games' own room-screen views by game name (the list in
	// games/); a room of a game without one shows only its waiting screen.
	Views tui.Views
	// Metrics receives the server's telemetry; nil keeps none.
	Metrics *telemetry.Metrics
	HostKey gossh.Signer
	Admins  map[string]bool // fingerprints from the admin keys file
	Logger  *slog.Logger
	// ShareSessions, in a cluster, turns this node's live sessions as
	// moderation reaches them into every node's (cluster.ShareModeration);
	// nil on a single node. It is called once, by New.
	ShareSessions func(local admin.Sessions) admin.Sessions
	// Drain, in a cluster, asks the node named to drain (`admin drain`);
	// nil on a single node.
	Drain func(ctx context.Context, node string) (string, error)
	// ClusterStats, in a cluster, gathers every node's figures (`admin
	// stats --cluster`); nil on a single node.
	ClusterStats func(ctx context.Context) ([]admin.NodeStats, error)
}

// Server is a termarena SSH server.
type Server struct {
	cfg    Config
	deps   Deps
	log    *slog.Logger
	admins map[string]bool
	// live is the live sessions moderation reaches: this node's, or in a
	// cluster every node's.
	live   admin.Sessions
	ssh    *ssh.Server
	cmds   []command
	clocks *pace.Clocks // game screens' shared frame clocks
	// palettes are the game screens' shared palettes, one per game and
	// colour profile.
	palettes tui.Palettes
	// watchers shares room screens among watchers who see the same.
	watchers *tui.WatchHub

	// advertised is the address players reach this server at over SSH
	// (Advertise); nil until set.
	advertised atomic.Pointer[string]

	lnMu sync.Mutex
	ln   *limitListener

	runMu    sync.Mutex
	running  sync.WaitGroup // session handlers in flight
	shutting atomic.Bool
}

// Advertise sets the address (host:port) players reach this server at
// over SSH, so that the hints sessions print are commands a player can
// paste ("ssh -p 2222 play.example.com rename NAME") rather than ones with
// HOST in them. Set before sessions are served.
func (srv *Server) Advertise(addr string) { srv.advertised.Store(&addr) }

// sshTo is the command line that runs command on this server without a
// terminal: "ssh -p 2222 play.example.com rename NAME", or with HOST for
// the host while no address is advertised.
func (srv *Server) sshTo(command string) string {
	if a := srv.advertised.Load(); a != nil && *a != "" {
		if to := lobby.SSHCommand(*a); to != "" {
			return to + " " + command
		}
	}
	return "ssh HOST " + command
}

type ctxKey int

// New builds a server; it does not listen yet.
func New(cfg Config, deps Deps) (*Server, error) {
	if deps.Store == nil || deps.Hub == nil || deps.Rooms == nil || deps.HostKey == nil {
		return nil, errors.New("server: store, hub, rooms and host key are required")
	}
	if err := tui.CheckModeKeys(deps.Rooms.Games()); err != nil {
		// A mode the lobby's menus could never pick: stop at start.
		return nil, fmt.Errorf("server: %w", err)
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if deps.Service == nil {
		deps.Service = service.New(deps.Store, deps.Rooms)
		if deps.Matchmaker != nil { // a nil *Matchmaker in the interface would be called
			deps.Service = deps.Service.WithOnline(deps.Hub, deps.Matchmaker)
		} else {
			deps.Service = deps.Service.WithOnline(deps.Hub, nil)
		}
		if deps.Quick != nil {
			deps.Service = deps.Service.WithQuick(deps.Quick)
		}
	}
	if cfg.MaxSessionsPerConn <= 0 {
		cfg.MaxSessionsPerConn = DefaultConfig().MaxSessionsPerConn
	}
	if cfg.FPS <= 0 {
		cfg.FPS = DefaultConfig().FPS
	}
	srv := &Server{cfg: cfg, deps: deps, log: deps.Logger, admins: deps.Admins, cmds: commandTable(), clocks: pace.New()}
	srv.watchers = tui.NewWatchHub(srv.clocks)
	srv.live = liveSessions{srv}
	if deps.ShareSessions != nil {
		srv.live = deps.ShareSessions(srv.live)
	}
	if srv.admins == nil {
		srv.admins = map[string]bool{}
	}
	// wish assembles the server from options; the session channel is
	// still ours (sessionHandler: see the README's security notes for why
	// wish's session handler and middleware are not used).
	sshSrv, err := wish.NewServer(
		wish.WithVersion("termarena"),
		func(s *ssh.Server) error { s.AddHostKey(deps.HostKey); return nil },
		// Any key is welcome: the key is the account; bans are checked
		// once a session starts, where the refusal can say why.
		wish.WithPublicKeyAuth(func(ctx ssh.Context, _ ssh.PublicKey) bool { loggedIn(ctx); return true }),
		// Keyboard-interactive with no questions is how a client without
		// keys becomes a guest without ever seeing a password prompt.
		wish.WithKeyboardInteractiveAuth(func(ctx ssh.Context, _ gossh.KeyboardInteractiveChallenge) bool { loggedIn(ctx); return true }),
		func(s *ssh.Server) error {
			s.HandshakeTimeout = cfg.HandshakeTimeout
			// Only the algorithms of sshpolicy.go, not x/crypto's defaults.
			s.ServerConfigCallback = sshConfig
			s.ConnCallback = func(ctx ssh.Context, c net.Conn) net.Conn {
				w := newConnWatch(ctx, c, cfg, srv.log)
				ctx.SetValue(connWatchKey, w)
				return &liveConn{Conn: c, w: w}
			}
			// Only session channels: no port forwarding, no x11, no agent,
			// no custom channel types. Global requests (tcpip-forward…)
			// have no handlers and are refused by charm.land/ssh.
			s.ChannelHandlers = map[string]ssh.ChannelHandler{"session": srv.sessionHandler}
			return nil
		},
	)
	if err != nil {
		return nil, fmt.Errorf("server: assemble the SSH server: %w", err)
	}
	srv.ssh = sshSrv
	return srv, nil
}

// Serve accepts connections on ln until Shutdown. It returns nil after a
// shutdown.
func (srv *Server) Serve(ln net.Listener) error {
	ll := newLimitListener(ln, srv.cfg.MaxConnsPerIP, srv.ssh.HandleConn)
	srv.lnMu.Lock()
	srv.ln = ll
	srv.lnMu.Unlock()
	err := srv.ssh.Serve(ll)
	if srv.shutting.Load() || errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("server: serve: %w", err)
}

// Shutdown stops accepting, tells every live session the server is
// restarting, waits for sessions to end (or ctx), then closes every
// connection.
func (srv *Server) Shutdown(ctx context.Context) error {
	return srv.ShutdownWith(ctx, "The server is restarting. Please reconnect in a moment.")
}

// StopAccepting stops taking connections and sessions while the live ones
// go on: a cluster node draining hands its matches over before it ends
// them (ShutdownWith).
func (srv *Server) StopAccepting() {
	srv.runMu.Lock()
	srv.shutting.Store(true)
	srv.runMu.Unlock()
	srv.lnMu.Lock()
	if srv.ln != nil {
		_ = srv.ln.Close()
	}
	srv.lnMu.Unlock()
}

// ShutdownWith is Shutdown telling the sessions notice.
func (srv *Server) ShutdownWith(ctx context.Context, notice string) error {
	srv.StopAccepting()
	told := srv.deps.Hub.Broadcast(lobby.Notice{Text: notice, Final: true})
	srv.log.Info("shutting down", "sessions_told", told)
	done := make(chan struct{})
	go func() { srv.running.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("server: shutdown: %w", ctx.Err())
	}
	_ = srv.ssh.Close()
	return err
}

// acquireSession counts a session channel against the per-connection cap;
// the connection's first session starts the RTT probe.
func (srv *Server) acquireSession(ctx ssh.Context, conn *gossh.ServerConn) bool {
	w := watchOf(ctx)
	if w == nil {
		return true
	}
	return w.sessionStarted(srv.cfg.MaxSessionsPerConn, conn)
}

func (srv *Server) releaseSession(ctx ssh.Context) {
	if w := watchOf(ctx); w != nil {
		w.sessionEnded()
	}
}
