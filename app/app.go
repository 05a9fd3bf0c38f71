// Package app assembles a termarena server from its configuration: the
// store in the data dir, the host key, the lobby's services over the
// server's catalogue of games, telemetry, the query service and the SSH
// server, wired together. main and the end-to-end test harness both build
// through Assemble, so the tests run what operators run.
//
// It is the composition root: the one package besides main that imports
// server/ (and games/, so the server's own packages never need to).
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/termarena/termarena/admin"
	"github.com/termarena/termarena/asciicast"
	"github.com/termarena/termarena/cluster"
	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/hostkeys"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
	"github.com/termarena/termarena/store/postgres"
	"github.com/termarena/termarena/telemetry"
	"github.com/termarena/termarena/tui"
	"github.com/termarena/termarena/web"
)

// Config is everything a server is built from.
type Config struct {
	// Data is the data dir, which must exist: termarena.db and the host
	// key live there (both created on first start).
	Data string
	// StoreURL, when set, is a PostgreSQL database (postgres://…) that
	// holds everything durable instead of termarena.db; the host key
	// stays in Data.
	StoreURL string
	// StoreTimeout bounds the wait for the data file's lock (another
	// process holding it); 0 is the store's default.
	StoreTimeout time.Duration
	Server       server.Config
	// Lobby tunes rooms, queues and chat. Lobby.Rooms.Games nil means the
	// whole catalogue, games.Catalog().
	Lobby lobby.Config
	// Views are the games' room-screen views; nil means games.Views().
	Views tui.Views
	// Retention is how long replays are kept (pruned hourly).
	Retention lobby.Retention
	// Admins are the fingerprints of the admin keys file.
	Admins map[string]bool
	// Web tunes the web face's listener (App.Web); the zero value is
	// web.DefaultConfig.
	Web web.Config
	// Logger receives the server's log; nil discards it.
	Logger *slog.Logger
	// Cluster joins this server to others over NATS; the zero value is a
	// single node, as ever.
	Cluster Cluster
}

// Cluster is a node's place among others (--nats, --node).
type Cluster struct {
	// NATS is the URL of the NATS server the nodes share; "" is a single
	// node.
	NATS string
	// Node is this node's name, different on every node.
	Node string
	// Presence tunes how often nodes tell each other who is on them and
	// which rooms they run; the zero value is cluster's defaults.
	Presence cluster.PresenceTiming
	// Queue tunes the shared ranked queue and its matchmaker lease; the
	// zero value is cluster's defaults.
	Queue cluster.QueueTiming
	// RoomLog tunes the room leases by which another node resumes a
	// dead node's matches; the zero value is cluster's defaults.
	RoomLog cluster.LogTiming
	// Name tunes how long a node's name stays claimed after it dies
	// unannounced; the zero value is cluster's default.
	Name cluster.NameTiming
}

// DefaultConfig is what `termarena` runs with when no flag says otherwise
// (the data dir aside).
func DefaultConfig() Config {
	return Config{Server: server.DefaultConfig(), Retention: lobby.Retention{KeepPerPlayer: 50, KeepFor: 30 * 24 * time.Hour}}
}

// App is an assembled server, not yet listening: Server.Serve starts it.
type App struct {
	// Store is the backend everything durable lives in: the bbolt file in
	// the data dir, or PostgreSQL (Config.StoreURL).
	Store store.Store
	// Bolt is that store when it is the bbolt file, for what only a file
	// has (its path, its pages); nil on PostgreSQL.
	Bolt    *bolt.Store
	HostKey hostkeys.Key
	Lobby   *lobby.Services
	Service *service.Service
	Metrics *telemetry.Metrics
	Server  *server.Server
	// Web is the read-only web face over the same service; main serves
	// it on --http.
	Web *web.Server
	// Node is the cluster connection; nil on a single node.
	Node *cluster.Node
	// Lease is this node's view of the cluster's matchmaker lease; nil
	// on a single node.
	Lease *cluster.Lease
	// RoomLog streams this node's matches so another can resume them,
	// and resumes dead nodes'; nil on a single node.
	RoomLog      *cluster.RoomLog
	stopRoomLog  func()
	stopPresence func()
	stopShared   []func()
	stopCodes    func() // after the rooms, which give their codes back
	stopName     func() // gives the node's name back, last
	closed       bool
}

// Assemble opens the store and the host key in c.Data and builds
// everything on them. On error nothing is left open. An error wraps the
// cause: store.ErrInUse when another process has the data file,
// store.ErrEmptyFile or store.ErrDamaged for a data file it will not
// start on, an fs.ErrPermission when the data dir is not ours; on
// PostgreSQL, postgres.ErrUnreachable, postgres.ErrReadOnly or
// store.ErrSchemaTooNew.
func Assemble(c Config) (*App, error) {
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if c.Lobby.Rooms.Games == nil {
		c.Lobby.Rooms.Games = games.Catalog()
	}
	if c.Views == nil {
		c.Views = games.Views()
	}
	if c.Lobby.Rooms.Bots == nil {
		c.Lobby.Rooms.Bots = games.Bots()
	}
	st, bst, err := openStore(c, log)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	a := &App{Store: st, Bolt: bst}
	fail := func(err error) (*App, error) {
		a.leaveCluster()
		if a.Lobby != nil {
			a.Lobby.Stop()
		}
		return nil, errors.Join(err, st.Close())
	}
	if a.HostKey, err = hostkeys.LoadOrCreate(c.Data); err != nil {
		return fail(err)
	}
	if a.HostKey.Created {
		log.Info("created host key", "path", a.HostKey.Path)
	}
	if c.Cluster.NATS != "" {
		c.Lobby.Node = c.Cluster.Node
		if a.Node, err = cluster.Connect(c.Cluster.NATS, c.Cluster.Node, log.With("part", "cluster")); err != nil {
			return fail(err)
		}
		// Before anything is shared: a second node with a live node's
		// name is refused here (cluster.ErrNameTaken).
		inc, release, err := nodeInstance(c.Data, c.Cluster.Node)
		if err != nil {
			log.Warn("a restart of this node will wait out its name's lapse", "err", err)
		}
		a.Node.SetIncarnation(inc)
		stopName, err := a.Node.ClaimName(context.Background(), c.Cluster.Name)
		if err != nil {
			release()
			return fail(err)
		}
		a.stopName = func() { stopName(); release() }
		codes, stopCodes, err := a.Node.ShareCodes()
		if err != nil {
			return fail(err)
		}
		a.stopCodes = stopCodes
		c.Lobby.Rooms.Codes = codes
		c.Lobby.Chat.Relay = a.Node.RelayChat()
		if a.RoomLog, err = a.Node.RoomLog(c.Cluster.RoomLog); err != nil {
			return fail(err)
		}
		c.Lobby.Rooms.Journal = a.RoomLog
		c.Lobby.Rooms.Owners = a.RoomLog
	}
	if a.Lobby, err = lobby.Start(st, c.Lobby, log); err != nil {
		return fail(err)
	}
	if a.Node != nil {
		if a.stopPresence, err = a.Node.SharePresence(a.Lobby.Hub, c.Cluster.Presence); err != nil {
			return fail(fmt.Errorf("cluster: share presence: %w", err))
		}
		stop, err := a.Node.ShareChat(a.Lobby.Chat)
		if err != nil {
			return fail(fmt.Errorf("cluster: share chat: %w", err))
		}
		a.stopShared = append(a.stopShared, stop)
		// One matchmaker for the cluster: this node's queues are paired
		// by the lease holder's, from here on.
		if a.Lease, stop, err = a.Node.ShareQueue(a.Lobby.Matchmaker, a.Lobby.Rooms, c.Cluster.Queue); err != nil {
			return fail(fmt.Errorf("cluster: share the ranked queue: %w", err))
		}
		a.stopShared = append(a.stopShared, stop)
		stopRooms, err := a.Node.ShareRooms(a.Lobby.Rooms, c.Cluster.Presence)
		if err != nil {
			return fail(fmt.Errorf("cluster: share rooms: %w", err))
		}
		a.stopShared = append(a.stopShared, stopRooms)
		a.stopRoomLog = a.RoomLog.Run(a.Lobby)
		// Rooms are played from any node: this node serves its rooms to
		// the others' sessions and reaches theirs for its own.
		links, stopLinks, err := a.Node.ServeRooms(a.Lobby.Rooms, c.Lobby.Rooms.Games)
		if err != nil {
			return fail(fmt.Errorf("cluster: serve rooms: %w", err))
		}
		a.stopShared = append(a.stopShared, stopLinks)
		a.Lobby.Rooms.SetRemoteRooms(links)
		// Challenges reach players on other nodes, whose rooms are
		// reachable from here now.
		relay, stopChallenges, err := a.Node.ShareChallenges(a.Lobby.Challenges, a.Lobby.Rooms)
		if err != nil {
			return fail(fmt.Errorf("cluster: share challenges: %w", err))
		}
		a.stopShared = append(a.stopShared, stopChallenges)
		a.Lobby.Challenges.SetRelay(relay)
	}
	a.Lobby.PruneReplays(st, c.Retention, log)
	a.Metrics = telemetry.New(a.Lobby)
	// Who is online is the hub's and the ranked queues' to say.
	a.Service = service.New(st, a.Lobby.Rooms).WithOnline(a.Lobby.Hub, a.Lobby.Matchmaker)
	if a.Lobby.Quick != nil { // a nil *QuickMatch in the interface would be called
		a.Service = a.Service.WithQuick(a.Lobby.Quick)
	}
	var share func(admin.Sessions) admin.Sessions
	if a.Node != nil {
		share = func(local admin.Sessions) admin.Sessions {
			shared, stop, err := a.Node.ShareModeration(local, a.Lobby.Hub)
			if err != nil {
				// Only a closed connection refuses a subscription, and
				// Connect has just succeeded: act on this node alone.
				log.Error("cluster: moderation stays on this node", "err", err)
				return local
			}
			a.stopShared = append(a.stopShared, stop)
			return shared
		}
	}
	var drain func(context.Context, string) (string, error)
	if a.RoomLog != nil {
		drain = a.RoomLog.AskDrain
	}
	clusterStats, err := a.shareStats()
	if err != nil {
		return fail(err)
	}
	a.Server, err = server.New(c.Server, server.Deps{ShareSessions: share, Drain: drain, ClusterStats: clusterStats, Store: st, TempDir: c.Data, Hub: a.Lobby.Hub, Rooms: a.Lobby.Rooms, Matchmaker: a.Lobby.Matchmaker,
		Chat: a.Lobby.Chat, Challenges: a.Lobby.Challenges, Quick: a.Lobby.Quick, Service: a.Service, Views: c.Views, Metrics: a.Metrics, HostKey: a.HostKey.Signer, Admins: c.Admins, Logger: log})
	if err != nil {
		return fail(err)
	}
	if c.Web == (web.Config{}) {
		c.Web = web.DefaultConfig()
	}
	casts := asciicast.Exporter{Store: st, Games: c.Lobby.Rooms.Games, Views: c.Views}
	if a.Web, err = web.New(web.Deps{Queries: a.Service, Casts: casts, Rooms: a.Lobby.Rooms, Views: c.Views, Ratings: st, Online: a.Lobby.PlayersOnline, Logger: log.With("part", "web")}, c.Web); err != nil {
		return fail(err)
	}
	return a, nil
}

// leaveCluster says goodbye to the other nodes (they forget this one's
// sessions at once) and disconnects; nothing on a single node.
func (a *App) leaveCluster() {
	a.leaveShared()
	a.closeNode()
}

// leaveShared stops sharing presence, chat, the queue and rooms.
func (a *App) leaveShared() {
	if a.stopPresence != nil {
		a.stopPresence()
		a.stopPresence = nil
	}
	for _, stop := range a.stopShared {
		stop()
	}
	a.stopShared = nil
}

// closeNode stops the room log (after the rooms, whose last words it
// writes), gives the node's name back and disconnects.
func (a *App) closeNode() {
	if a.stopRoomLog != nil {
		a.stopRoomLog()
		a.stopRoomLog = nil
	}
	if a.stopCodes != nil {
		a.stopCodes()
		a.stopCodes = nil
	}
	if a.stopName != nil {
		a.stopName()
		a.stopName = nil
	}
	if a.Node != nil {
		a.Node.Close()
		a.Node = nil
	}
}

// storeOpenTimeout bounds how long a start waits for PostgreSQL to answer
// and bring its schema forward before giving up with the reason.
const storeOpenTimeout = 30 * time.Second

// openStore opens the backend c names: PostgreSQL at c.StoreURL, else the
// bbolt file in the data dir (returned twice: as the store, and as the
// file for what only it has).
func openStore(c Config, log *slog.Logger) (store.Store, *bolt.Store, error) {
	if c.StoreURL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), storeOpenTimeout)
		defer cancel()
		st, err := postgres.Open(ctx, c.StoreURL, postgres.Options{})
		if err != nil {
			return nil, nil, err
		}
		return st, nil, nil
	}
	st, err := bolt.Open(filepath.Join(c.Data, "termarena.db"), bolt.Options{Timeout: c.StoreTimeout})
	if err != nil {
		return nil, nil, err
	}
	if st.Created() {
		log.Info("created a new, empty database: no players, ratings or bans yet", "path", st.Path())
	}
	return st, st, nil
}

// Close stops the rooms and queues (matches in progress are recorded as
// aborted) and then closes the store. Call it once the server has shut
// down; a second call does nothing.
func (a *App) Close() error {
	if a.closed {
		return nil
	}
	a.closed = true
	a.leaveShared()
	a.Lobby.Stop()
	// The rooms have ended their logs (their matches recorded here):
	// the room log writes that before the node disconnects.
	a.closeNode()
	if err := a.Store.Close(); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

// Drain hands this node's matches to the other nodes of its cluster (a
// drain before an upgrade): it stops taking rooms over, asks which nodes
// would take them, and then either hands each match under way over (the
// room stops here with its log complete and its lease released; another
// node resumes it at once, its players' seats held there) and waits,
// up to ctx, for each to be taken, or, with no other node alive, says so
// and waits, up to ctx, for the matches to finish here. It returns the
// rooms handed over and who took each. Nothing on a single node.
func (a *App) Drain(ctx context.Context, log *slog.Logger) (taken map[string]string) {
	if a.RoomLog == nil {
		return nil
	}
	began := time.Now()
	a.RoomLog.Drain()
	if takers := a.RoomLog.Takers(500 * time.Millisecond); len(takers) == 0 {
		n := a.Lobby.Playing()
		if n == 0 {
			return nil
		}
		log.Warn("drain: no other node is alive to take the matches over; finishing them here first (signal again to stop now, aborting them)", "matches", n)
		for a.Lobby.Playing() > 0 {
			select {
			case <-ctx.Done():
				log.Warn("drain: stopped before the matches finished; they are recorded aborted", "matches", a.Lobby.Playing())
				return nil
			case <-time.After(250 * time.Millisecond):
			}
		}
		log.Info("drain: every match finished", "took", time.Since(began).Round(time.Millisecond))
		return nil
	}
	rooms := a.Lobby.HandOff()
	taken = a.RoomLog.AwaitTaken(ctx, rooms)
	log.Info("drain: matches handed over", "rooms", len(rooms), "taken", len(taken), "took", time.Since(began).Round(time.Millisecond))
	for _, r := range rooms {
		if taken[r] == "" {
			log.Warn("drain: a room was not taken over in time; another node resumes it when it looks", "room", r)
		}
	}
	return taken
}

// DrainAsked is closed when `admin drain` named this node (never on a
// single node): main stops it then as a SIGTERM with --drain would.
func (a *App) DrainAsked() <-chan struct{} {
	if a.RoomLog == nil {
		return nil
	}
	return a.RoomLog.DrainAsked()
}
