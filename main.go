// Command termarena is a multiplayer terminal game server that people reach
// with plain ssh. main turns flags and environment into configuration, opens
// the store, builds the hub and the SSH server, and shuts down gracefully.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/termarena/termarena/app"
	"github.com/termarena/termarena/buildinfo"
	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// config is everything the flags decide.
type config struct {
	version       bool
	listen        string
	advertise     string
	addrFile      string
	data          string
	storeURL      string
	natsURL       string
	node          string
	adminKeys     string
	logLevel      string
	logFormat     string
	metricsListen string
	httpListen    string
	publicURL     string
	pprof         bool
	srv           server.Config
	spectateDelay time.Duration
	lagComp       time.Duration
	keepReplays   int
	keepDays      int
	maxWatchers   int
	bots          bool
	maxBotRooms   int
	chatFilter    string
	storeCheck    time.Duration
	drain         bool
}

// flagSet defines every flag with its environment fallback: the flag wins,
// then TERMARENA_<NAME>, then the default. Docs, the Dockerfile and tests
// rely on these names.
func flagSet(getenv func(string) string, errOut io.Writer) (*flag.FlagSet, *config, *[]error) {
	fs := flag.NewFlagSet("termarena", flag.ContinueOnError)
	fs.SetOutput(errOut)
	c := &config{srv: server.DefaultConfig()}
	var envErrs []error
	// envDefault turns TERMARENA_<NAME> into the flag's default when it is
	// set, and returns the variable's name for the usage text.
	envDefault := func(name string, set func(v string) error) string {
		env := "TERMARENA_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if v := getenv(env); v != "" {
			if err := set(v); err != nil {
				envErrs = append(envErrs, fmt.Errorf("%s=%q is not %v", env, v, err))
			}
		}
		return " (env " + env + ")"
	}
	str := func(p *string, name, def, usage string) {
		usage += envDefault(name, func(v string) error { def = v; return nil })
		fs.StringVar(p, name, def, usage)
	}
	num := func(p *int, name string, def int, usage string) {
		usage += envDefault(name, func(v string) error { return parseInto(&def, v, strconv.Atoi, "a number") })
		fs.IntVar(p, name, def, usage)
	}
	dur := func(p *time.Duration, name string, def time.Duration, usage string) {
		usage += envDefault(name, func(v string) error { return parseInto(&def, v, time.ParseDuration, "a duration") })
		fs.DurationVar(p, name, def, usage)
	}
	boolean := func(p *bool, name string, def bool, usage string) {
		usage += envDefault(name, func(v string) error { return parseInto(&def, v, strconv.ParseBool, "true or false") })
		fs.BoolVar(p, name, def, usage)
	}
	fs.BoolVar(&c.version, "version", false, "print the version, VCS revision and build date, then exit")
	str(&c.listen, "listen", ":2222", "address to serve SSH on")
	str(&c.advertise, "advertise", "", "`HOST:PORT` players ssh to for this server, printed in the web pages' commands and, in a cluster, given by the other nodes when a room or player is here (default: --listen's address, or the host name and its port when --listen is every address)")
	str(&c.addrFile, "addr-file", "", "`FILE` the server writes the address it listens on to, for termarena healthcheck (the image sets it)")
	str(&c.data, "data", "./data", "data dir: host key and database, created on first start")
	str(&c.natsURL, "nats", "", "`URL` of the NATS server (nats://HOST:4222) joining this node to others sharing --store: who is online and the rooms of every node (\"\" = a single node)")
	str(&c.node, "node", "", "`NAME` of this node in a cluster, different on every node (default: the host name; needs --nats)")
	boolean(&c.drain, "drain", false, "in a cluster, a stop (SIGTERM) hands this node's matches to other nodes and tells its players to reconnect, seats kept, before exiting; with no other node alive it finishes them first")
	str(&c.storeURL, "store", "", "`URL` of a PostgreSQL database for everything durable (postgres://USER@HOST/DB), which several nodes may share; empty: the bbolt file in --data")
	str(&c.adminKeys, "admin-keys", "", "authorized_keys file listing admin keys")
	str(&c.logLevel, "log-level", "info", "debug, info, warn or error")
	str(&c.logFormat, "log-format", "text", "text or json")
	str(&c.httpListen, "http", ":8080", "address of the read-only web face: live rooms, leaderboards, profiles, matches (\"\" = off)")
	str(&c.publicURL, "public-url", "", "`URL` people reach the web face at, for links (share); default http://HOSTNAME:PORT of --http")
	str(&c.metricsListen, "metrics-listen", "", "address for the HTTP /metrics endpoint (off when empty)")
	boolean(&c.pprof, "pprof", false, "also serve Go's profiler on the metrics address under /debug/pprof/ (needs --metrics-listen)")
	num(&c.srv.MaxConnsPerIP, "max-conns-per-ip", c.srv.MaxConnsPerIP, "concurrent connections per client address (0 = no limit)")
	num(&c.srv.MaxSessionsPerConn, "max-sessions-per-conn", c.srv.MaxSessionsPerConn, "SSH sessions multiplexed on one connection")
	dur(&c.srv.HandshakeTimeout, "handshake-timeout", c.srv.HandshakeTimeout, "time allowed for key exchange and login")
	dur(&c.srv.ClientTimeout, "client-timeout", c.srv.ClientTimeout, "drop a client that answers nothing, or whose screen output stays blocked, this long (a player keeps the seat for the grace period; 0 = never)")
	dur(&c.srv.SessionOpenTimeout, "session-open-timeout", c.srv.SessionOpenTimeout, "close a logged-in connection with no session open this long (0 = never)")
	dur(&c.srv.IdleTimeout, "idle-timeout", c.srv.IdleTimeout, "close a session left untouched in the lobby this long, with a warning a minute before; never in a room, a queue or watching (0 = never)")
	num(&c.srv.FPS, "fps", c.srv.FPS, "frames per second of each session's screen (10-60)")
	num(&c.srv.MaxKeysPerSec, "max-keys-per-sec", c.srv.MaxKeysPerSec, "keys a second each session's screen takes, with a second's worth at once; beyond it keys are dropped and typed text arrives as one paste (0 = no limit, else at least 30)")
	dur(&c.spectateDelay, "spectate-delay", 2*time.Second, "how far behind live play watchers of ranked matches are (0 = live)")
	dur(&c.lagComp, "lag-compensation", 150*time.Millisecond, "how old a player's view may be and still be judged as they saw it: a catch or a turn the screen showed in time counts (0 = off, at most 1s)")
	num(&c.maxWatchers, "max-watchers-per-room", lobby.DefaultMaxWatchers, "people who may watch one room at once (0 = no limit)")
	boolean(&c.bots, "bots", true, "offer practice against bots (ssh -t HOST practice); false turns them off")
	num(&c.maxBotRooms, "max-bot-rooms", lobby.DefaultMaxBotRooms, "practice rooms with bots live at once (at least 1)")
	num(&c.keepReplays, "replay-keep-per-player", 50, "replays kept per player whatever their age")
	num(&c.keepDays, "replay-keep-days", 30, "days every replay is kept")
	dur(&c.storeCheck, "store-check-interval", 30*time.Second, "how often the server checks its database (every bucket reads, the last write succeeded) for the log, the healthcheck and /metrics")
	str(&c.chatFilter, "chat-filter", "", "file of extra words the chat filter masks (one per line, !word allows one)")
	fs.Usage = func() {
		fmt.Fprintln(errOut, "termarena: multiplayer terminal games over SSH")
		fmt.Fprintln(errOut)
		fmt.Fprintln(errOut, "usage: termarena [flags]            serve")
		fmt.Fprintln(errOut, "       termarena healthcheck [flags]  exit 0 if the server (at --addr-file's address, else --listen) answers SSH")
		fmt.Fprintln(errOut, "       "+migrateUsage)
		fmt.Fprintln(errOut, "       termarena --version")
		fmt.Fprintln(errOut)
		fmt.Fprintln(errOut, "flags (each also read from its environment variable):")
		fs.PrintDefaults()
	}
	return fs, c, &envErrs
}

// parseInto sets *dst from v, or says what v should have been.
func parseInto[T any](dst *T, v string, parse func(string) (T, error), want string) error {
	x, err := parse(v)
	if err != nil {
		return errors.New(want)
	}
	*dst = x
	return nil
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "migrate" {
		return runMigrate(ctx, args[1:], stdout, stderr)
	}
	healthcheck := len(args) > 0 && args[0] == "healthcheck"
	if healthcheck {
		args = args[1:]
	}
	fs, c, envErrs := flagSet(getenv, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(*envErrs) > 0 {
		fmt.Fprintln(stderr, "termarena:", errors.Join(*envErrs...))
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "termarena: unexpected argument %q (see termarena --help)\n", fs.Arg(0))
		return 2
	}
	if c.version {
		fmt.Fprintln(stdout, buildinfo.Read())
		return 0
	}
	if healthcheck {
		return checkServer(c, stderr)
	}
	if c.srv.FPS < 10 || c.srv.FPS > 60 {
		fmt.Fprintln(stderr, "termarena: --fps must be between 10 and 60")
		return 2
	}
	if k := c.srv.MaxKeysPerSec; k < 0 || (k > 0 && k < 30) {
		fmt.Fprintln(stderr, "termarena: --max-keys-per-sec must be 0 (no limit) or at least 30: key repeat alone sends about 30 a second")
		return 2
	}
	if c.maxBotRooms < 1 {
		fmt.Fprintln(stderr, "termarena: --max-bot-rooms must be at least 1 (--bots=false turns practice off)")
		return 2
	}
	if c.maxWatchers < 0 {
		fmt.Fprintln(stderr, "termarena: --max-watchers-per-room must not be negative (0 = no limit)")
		return 2
	}
	if c.spectateDelay < 0 || c.spectateDelay > time.Minute || c.keepReplays < 0 || c.keepDays < 0 {
		fmt.Fprintln(stderr, "termarena: --spectate-delay must be 0–1m; --replay-keep-per-player and --replay-keep-days must not be negative")
		return 2
	}
	if c.lagComp < 0 || c.lagComp > game.MaxLagCompensation {
		fmt.Fprintf(stderr, "termarena: --lag-compensation must be 0–%v\n", game.MaxLagCompensation)
		return 2
	}
	if err := checkStoreURL(c.storeURL); err != nil {
		fmt.Fprintln(stderr, "termarena:", err)
		return 2
	}
	if c.storeCheck <= 0 {
		fmt.Fprintln(stderr, "termarena: --store-check-interval must be positive")
		return 2
	}
	if err := checkAdvertise(c.advertise); err != nil {
		fmt.Fprintln(stderr, "termarena:", err)
		return 2
	}
	if err := checkCluster(&c.node, c.natsURL, c.storeURL, os.Hostname); err != nil {
		fmt.Fprintln(stderr, "termarena:", err)
		return 2
	}
	if c.httpListen != "" {
		if _, err := webURL(c.publicURL, c.httpListen); err != nil {
			fmt.Fprintln(stderr, "termarena:", err)
			return 2
		}
	}
	if c.pprof && c.metricsListen == "" {
		fmt.Fprintln(stderr, "termarena: --pprof needs --metrics-listen (the profiler is served there)")
		return 2
	}
	// The log is the server's output: on stdout, where `docker logs x |
	// grep` and the journal find it. stderr keeps usage errors and the
	// final error line.
	logger, err := newLogger(c.logLevel, c.logFormat, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "termarena:", err)
		return 2
	}
	if err := serve(ctx, c, logger); err != nil {
		logger.Error("fatal", "err", err)
		fmt.Fprintln(stderr, "termarena:", err)
		return 1
	}
	return 0
}

func newLogger(level, format string, w io.Writer) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// serve runs the server until ctx ends, then shuts down within 10 s.
func serve(ctx context.Context, c *config, log *slog.Logger) error {
	bi := buildinfo.Read()
	log.Info("termarena starting", "version", bi.Version, "revision", bi.Revision, "built", bi.Date)
	if err := os.MkdirAll(c.data, 0o700); err != nil {
		return dataDirHint(fmt.Errorf("create data dir: %w", err), c.data)
	}
	warnOpenDataDir(c.data, log)
	admins, err := server.LoadAdminKeys(c.adminKeys)
	if err != nil {
		return adminKeysHint(err, c.adminKeys)
	}
	var filter *chat.Filter
	if c.chatFilter != "" {
		if filter, err = chat.LoadFilter(c.chatFilter); err != nil {
			return fmt.Errorf("--chat-filter: %w", err)
		}
	}
	// Rooms live until the SSH server has shut down (players are told why
	// before their matches end); then in-progress matches are recorded as
	// aborted, and only then does the store close (a.Close, deferred).
	delay := c.spectateDelay
	if delay == 0 {
		delay = -1 // live: RoomsConfig reads 0 as "the default"
	}
	watchers := c.maxWatchers
	if watchers == 0 {
		watchers = -1 // no limit: RoomsConfig reads 0 as "the default"
	}
	// The web face's address is taken before the server is assembled, so
	// its links name the port the system gave (--http :0 in tests).
	var webLn net.Listener
	if c.httpListen != "" {
		if webLn, err = net.Listen("tcp", c.httpListen); err != nil {
			return fmt.Errorf("web listen (--http %s; --http \"\" turns the web face off): %w", c.httpListen, err)
		}
		defer webLn.Close()
		if c.srv.WebURL, err = webURL(c.publicURL, webLn.Addr().String()); err != nil {
			return err
		}
	}
	ac := app.DefaultConfig()
	ac.Data, ac.StoreTimeout, ac.Server, ac.Admins, ac.Logger = c.data, 3*time.Second, c.srv, admins, log
	ac.StoreURL = c.storeURL
	botRooms := c.maxBotRooms
	if !c.bots {
		botRooms = -1 // off
	}
	ac.Lobby = lobby.Config{Rooms: lobby.RoomsConfig{SpectateDelay: delay, MaxWatchers: watchers, MaxBotRooms: botRooms, Room: game.RoomConfig{LagCompensation: c.lagComp}}, Chat: chat.Config{Filter: filter}}
	ac.Web = web.DefaultConfig()
	ac.Web.MaxConnsPerIP = c.srv.MaxConnsPerIP // one cap per address, for SSH and the web alike
	ac.Retention = lobby.Retention{KeepPerPlayer: c.keepReplays, KeepFor: time.Duration(c.keepDays) * 24 * time.Hour}
	ac.Cluster = app.Cluster{NATS: c.natsURL, Node: c.node}
	a, err := app.Assemble(ac)
	if err != nil {
		if errors.Is(err, store.ErrInUse) {
			return fmt.Errorf("data dir is in use by another termarena process (%s)", c.data)
		}
		if c.storeURL != "" {
			return storeHint(err)
		}
		return dataDirHint(damageHint(err), c.data)
	}
	// The final log line is written once the database is closed, and
	// says so.
	defer func() {
		if err := a.Close(); err != nil {
			log.Error("closing the database failed", "err", err)
			return
		}
		log.Info("database closed; termarena stopped")
	}()
	srv, key, metrics := a.Server, a.HostKey, a.Metrics
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	adv := advertised(c.advertise, ln.Addr().String(), os.Hostname)
	a.Advertise(adv)
	log.Info("termarena serving", "addr", ln.Addr().String(), "advertised", adv, "host_key", key.Fingerprint(), "data", c.data, "store", storeName(a), "admins", len(admins))
	if c.addrFile != "" {
		if err := writeAddrFile(c.addrFile, ln.Addr().String(), ""); err != nil {
			log.Warn("healthcheck address not recorded: healthcheck will dial --listen", "err", err)
		} else {
			defer os.Remove(c.addrFile)
		}
	}
	stopWatch := watchStore(a.Store, c.storeCheck, log, metrics.Registry(), func(problem string) {
		if c.addrFile != "" {
			if err := writeAddrFile(c.addrFile, ln.Addr().String(), problem); err != nil {
				log.Warn("healthcheck file not updated", "err", err)
			}
		}
	})
	defer stopWatch()

	var metricsDone <-chan error
	if c.metricsListen != "" {
		stopMetrics, done, err := serveMetrics(c.metricsListen, metrics.Handler(), c.pprof, log)
		if err != nil {
			ln.Close()
			return err
		}
		defer stopMetrics()
		metricsDone = done
		if loopbackOnly(c.metricsListen) && inContainer() {
			log.Warn("metrics listen on the container's own loopback, which the host cannot reach: use --metrics-listen :9100 and publish it with -p 127.0.0.1:9100:9100",
				"addr", c.metricsListen)
		}
	}

	if webLn != nil {
		defer serveWeb(webLn, a.Web, log)()
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case err := <-metricsDone:
		return fmt.Errorf("metrics: %w", err)
	case <-ctx.Done():
		log.Info("signal received: stopping")
	case <-a.DrainAsked():
		log.Info("admin drain: stopping")
		c.drain = true
	}
	notice := "The server is restarting. Please reconnect in a moment."
	if c.drain && a.Node != nil {
		// New sessions go to other nodes; this one's matches follow them.
		srv.StopAccepting()
		dctx, stopDrain := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		if taken := a.Drain(dctx, log); len(taken) > 0 {
			notice = "This node is going down for an upgrade: reconnect (the same ssh command) to play on. Your seat is kept."
		}
		stopDrain()
	}
	sctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	if err := srv.ShutdownWith(sctx, notice); err != nil {
		log.Warn("sessions did not all end in time; closing them", "err", err)
	}
	<-served
	return nil
}

// loopbackOnly reports whether addr listens on a loopback address only.
func loopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// inContainer reports whether the server runs in a container: Docker and
// Podman leave these files at its root.
func inContainer() bool {
	for _, f := range []string{"/.dockerenv", "/run/.containerenv"} {
		if _, err := os.Stat(f); err == nil {
			return true
		}
	}
	return false
}
