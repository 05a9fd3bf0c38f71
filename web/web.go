// Package web owns termarena's read-only web face: server-rendered pages
// (and the same data as JSON at PATH.json, in the `--json` shapes) over
// the query service, with static assets of our own embedded in the
// binary. It writes nothing, sets no cookies and asks no third party for
// anything; a request that panics ends that request only, so the web side
// can never take the SSH side down.
package web

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/tui"
)

//go:embed static templates
var assets embed.FS

// Queries are what the pages show: *service.Service implements them.
type Queries interface {
	Modes() []string
	ParseMode(name string) (string, error)
	Leaderboard(ctx context.Context, mode string, limit int) (service.Leaderboard, error)
	ProfileNamed(ctx context.Context, name string) (service.Profile, error)
	Matches(ctx context.Context, fp string, limit int) ([]service.Match, error)
	Match(ctx context.Context, id uint64) (service.Match, error)
	RoomInfos(ctx context.Context, which lobby.Listing) ([]lobby.RoomInfo, error)
}

// Casts export replays: asciicast.Exporter implements it. Export writes
// nothing when it fails before the first frame (an unknown match).
type Casts interface {
	Export(ctx context.Context, id uint64, w io.Writer) error
}

// Deps are what the web face reads.
type Deps struct {
	Queries Queries
	// Casts exports a match's replay as an asciicast file (/m/ID.cast);
	// nil serves none.
	Casts Casts
	// Rooms are the live rooms /r/ROOM watches; nil serves none.
	Rooms LiveRooms
	// Views paint the live rooms (the games' room-screen views).
	Views tui.Views
	// Ratings label ranked matches' seats; nil shows none.
	Ratings Ratings
	// Online is how many players are connected now; nil shows none.
	Online func() int
	Logger *slog.Logger
}

// Config tunes the listener.
type Config struct {
	// MaxConnsPerIP bounds one client address's open connections (0 = no
	// limit): a browser opens about six, a live page one more.
	MaxConnsPerIP int
	// ReadHeaderTimeout and IdleTimeout close connections that send
	// headers too slowly (slowloris) or sit idle.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	// WriteTimeout bounds writing one page's response.
	WriteTimeout time.Duration
}

// DefaultConfig is what `termarena` serves the web with.
func DefaultConfig() Config {
	return Config{MaxConnsPerIP: 16, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 60 * time.Second, WriteTimeout: 30 * time.Second}
}

// Server is the web face: an http.Handler, and Serve/Shutdown for a
// listener of its own.
type Server struct {
	d     Deps
	cfg   Config
	log   *slog.Logger
	pages *pages
	mux   *http.ServeMux
	hs    *http.Server
	zip   *sync.Pool
	flate *sync.Pool // live streams' own compressors (sharedzip.go)
	live  *live
	stop  context.CancelFunc
	// ssh is where players reach this server over SSH (Advertise), for
	// the commands the pages print.
	ssh atomic.Pointer[string]
}

// New builds the web face over d.
func New(d Deps, cfg Config) (*Server, error) {
	log := d.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p, err := parsePages()
	if err != nil {
		return nil, fmt.Errorf("web: templates: %w", err)
	}
	s := &Server{d: d, cfg: cfg, log: log, pages: p, mux: http.NewServeMux(), zip: newGzipPool(), flate: newFlatePool()}
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.live = &live{ctx: ctx, views: d.Views, ratings: d.Ratings, log: log, rooms: map[*lobby.Room]*liveRoom{}}
	s.routes()
	s.hs = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadHeaderTimeout + 5*time.Second,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	return s, nil
}

func (s *Server) routes() {
	static, _ := fs.Sub(assets, "static")
	fileServer := http.StripPrefix("/static/", http.FileServerFS(static))
	s.mux.Handle("GET /static/", cacheFor(time.Hour, fileServer))
	s.mux.HandleFunc("GET /{$}", s.home)
	s.mux.HandleFunc("GET /index.json", s.home)
	s.mux.HandleFunc("GET /leaderboard/{mode}", s.leaderboard)
	s.mux.HandleFunc("GET /@/{name}", s.profile)
	s.mux.HandleFunc("GET /m/{id}", s.match)
	s.mux.HandleFunc("GET /r/{ref}", s.roomPage)
	s.mux.HandleFunc("GET /r/{ref}/live", s.liveStream)
	s.mux.HandleFunc("GET /tv", s.tvPage)
	s.mux.HandleFunc("GET /tv.json", s.tvPage)
	s.mux.HandleFunc("GET /tv/{game}", s.tvPage)
	s.mux.HandleFunc("GET /tv/live", s.tvStream)
	s.mux.HandleFunc("GET /tv/{game}/live", s.tvStream)
	s.mux.HandleFunc("GET /", s.notFound)
}

// ServeHTTP sets the headers every response carries, compresses, and
// turns a panic into a 500 for that request alone.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	gw := compress(w, r, s.zip)
	defer gw.finish()
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("web request panicked", "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			if !gw.wrote {
				gw.Header().Del("Content-Encoding")
				http.Error(gw, "500 internal error", http.StatusInternalServerError)
			}
		}
	}()
	s.mux.ServeHTTP(gw, r)
}

// Serve serves the web face on ln until Shutdown; http.ErrServerClosed
// after a Shutdown is not an error.
func (s *Server) Serve(ln net.Listener) error {
	if s.cfg.MaxConnsPerIP > 0 {
		ln = limitPerIP(ln, s.cfg.MaxConnsPerIP)
	}
	err := s.hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting, waits for requests in flight until ctx ends,
// then closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	s.Close()
	err := s.hs.Shutdown(ctx)
	if err != nil {
		s.hs.Close()
	}
	return err
}

// Close ends the live streams and their painters (Shutdown does too): an
// http.Server waits for streams that never end by themselves.
func (s *Server) Close() { s.stop() }

func cacheFor(d time.Duration, h http.Handler) http.Handler {
	v := fmt.Sprintf("public, max-age=%d", int(d.Seconds()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", v)
		h.ServeHTTP(w, r)
	})
}
