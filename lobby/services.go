package lobby

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/store"
)

// Config is the operator's tuning of the lobby services.
type Config struct {
	Rooms RoomsConfig
	Chat  chat.Config
	// Challenge tunes challenges between players (expiry, rate limit).
	Challenge ChallengeConfig
	// Node names this server in a cluster ("" outside one): its sessions
	// carry it (Presence.Node) and its rooms (RoomInfo.Node).
	Node string
}

// Services is everything the lobby runs for a server: who is online, the
// rooms, the ranked queues, chat and the results writer, wired together.
type Services struct {
	Hub        *Hub
	Rooms      *Rooms
	Matchmaker *Matchmaker
	Results    *Results
	Chat       *chat.Chat
	// Challenges are invitations between online players; Quick the
	// casual quick-match queues.
	Challenges *Challenges
	Quick      *QuickMatch

	stopRooms   context.CancelFunc
	stopResults context.CancelFunc
	pruneCtx    context.Context
	wg          sync.WaitGroup
	prunePanics panicCount
}

// Store is what the lobby's services keep: match ends and strikes (the
// results writer), and the strikes read back at start.
type Store interface {
	ResultStore
	LoadLeaves(ctx context.Context, stale func(store.Leaves) bool) (map[string]store.Leaves, error)
}

// ReplayPruner deletes replays past their retention.
type ReplayPruner interface {
	PruneReplays(ctx context.Context, keepPerPlayer int, keepFor time.Duration, now time.Time) (int, error)
}

// Start wires and starts the services. Rooms and queues run until Stop.
// It fails on a catalogue of games the lobby cannot serve.
func Start(st Store, c Config, log *slog.Logger) (*Services, error) {
	if err := c.Rooms.Games.Validate(); err != nil {
		return nil, fmt.Errorf("lobby: %w", err)
	}
	if len(c.Rooms.Games) == 0 {
		return nil, errors.New("lobby: no games")
	}
	hub := NewNodeHub(c.Node)
	if c.Chat.Relay != nil && c.Chat.Elsewhere == nil {
		// A cluster's whispers reach players on other nodes, whom the
		// hub knows of.
		c.Chat.Elsewhere = func(name string) (string, bool) {
			p, ok := hub.Elsewhere(name)
			return p.Name, ok
		}
	}
	s := &Services{Hub: hub, Chat: chat.New(c.Chat)}
	cfg := c.Rooms
	cfg.Node = c.Node
	// Strikes outlive the process: a restart forgives no leaver.
	cooldowns := &Cooldowns{}
	now := time.Now()
	leaves, err := st.LoadLeaves(context.Background(), func(l store.Leaves) bool { return Spent(l, now) })
	if err != nil {
		return nil, fmt.Errorf("lobby: %w", err)
	}
	cooldowns.Restore(leaves)
	s.Results = NewResults(st, cooldowns, log)
	cfg.Observer = s.Results
	if cfg.Log == nil {
		cfg.Log = log
	}
	roomsCtx, stopRooms := context.WithCancel(context.Background())
	resultsCtx, stopResults := context.WithCancel(context.Background())
	s.stopRooms, s.stopResults = stopRooms, stopResults
	s.pruneCtx = roomsCtx
	s.Rooms = NewRooms(roomsCtx, cfg)
	mm, err := NewMatchmaker(s.Rooms, cooldowns, log)
	if err != nil {
		stopRooms()
		stopResults()
		return nil, err
	}
	s.Matchmaker = mm
	if s.Quick, err = NewQuickMatch(s.Rooms); err != nil {
		stopRooms()
		stopResults()
		return nil, err
	}
	s.Challenges = NewChallenges(c.Challenge, s.Rooms, mm, s.Chat)
	if c.Node != "" {
		// A challenge to a player on another node is refused naming
		// the node, not as nobody online.
		s.Challenges.elsewhere = hub.Elsewhere
	}
	s.wg.Add(2)
	go func() { defer s.wg.Done(); mm.Run(roomsCtx) }()
	go func() { defer s.wg.Done(); s.Results.Run(resultsCtx) }()
	return s, nil
}

// Retention is how long replays are kept: the last KeepPerPlayer of every
// player, and everything for KeepFor.
type Retention struct {
	KeepPerPlayer int
	KeepFor       time.Duration
	Every         time.Duration // how often to prune; 0 means hourly
}

// PruneReplays deletes replays past retention every r.Every until Stop.
// The store deletes in small batches, so pruning never holds the writer
// for long and rooms keep saving results meanwhile.
func (s *Services) PruneReplays(st ReplayPruner, r Retention, log *slog.Logger) {
	if r.Every <= 0 {
		r.Every = time.Hour
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(r.Every)
		defer t.Stop()
		for {
			n, err := s.pruneOnce(st, r, log)
			var damaged *store.BucketDamageError
			switch {
			case errors.Is(err, context.Canceled):
				return // stopping
			case errors.As(err, &damaged):
				log.Error("prune replays: the database is damaged; restore a backup", "bucket", damaged.Bucket, "err", err)
			case err != nil:
				log.Error("prune replays", "err", err)
			case n > 0:
				log.Info("pruned replays", "count", n)
			}
			select {
			case <-s.pruneCtx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// pruneOnce runs one pruning pass. The store turns a damaged page into an
// error naming its bucket; any other panic in it is logged and counted
// here, and pruning tries again at the next interval: the server plays on.
func (s *Services) pruneOnce(st ReplayPruner, r Retention, log *slog.Logger) (n int, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.prunePanics.recovered(log, WorkerPrune, "pruning replays panicked; the store may be damaged", v, debug.Stack())
			n, err = 0, nil
		}
	}()
	return st.PruneReplays(s.pruneCtx, r.KeepPerPlayer, r.KeepFor, time.Now())
}

// Panics counts the panics recovered on the goroutines the lobby shares
// between players, by worker (WorkerRoom…): each cost one room or one job,
// not the server.
func (s *Services) Panics() map[string]uint64 {
	return map[string]uint64{
		WorkerRoom:       s.Rooms.Panics(),
		WorkerDelay:      s.Rooms.DelayPanics(),
		WorkerResults:    s.Results.Panics(),
		WorkerMatchmaker: s.Matchmaker.Panics(),
		WorkerPrune:      s.prunePanics.Load(),
	}
}

// Sessions, PlayersOnline, PlayersInMatches, Rooms and TickStats are what
// telemetry reads at scrape time (they implement telemetry.Sources).
func (s *Services) Sessions() int { return s.Hub.Sessions() }

// PlayersOnline counts distinct players online.
func (s *Services) PlayersOnline() int { n, _ := s.Hub.Online(); return n }

// PlayersInMatches counts seated players in rooms counting down or
// playing: people, not the bots of practice rooms.
func (s *Services) PlayersInMatches() int {
	n := 0
	for _, r := range s.Rooms.All() {
		fr, _ := r.Latest()
		if fr == nil || (fr.Phase != game.Countdown && fr.Phase != game.Playing) {
			continue
		}
		for _, seat := range fr.Seats {
			if seat.Taken && !bot.IsBot(seat.Player.ID) {
				n++
			}
		}
	}
	return n
}

// Rooms counts live rooms.
func (s *Services) RoomCount() int { return s.Rooms.Count() }

// RoomsByGame counts live rooms by game (game.Kind.Name): every game of
// the catalogue, at 0 when it has no room.
func (s *Services) RoomsByGame() map[string]int {
	out := map[string]int{}
	for _, k := range s.Rooms.Games() {
		out[k.Name()] = 0
	}
	for _, r := range s.Rooms.All() {
		out[r.Game.Name()]++
	}
	return out
}

// TickStats collects every live room's tick statistics, and one entry
// for all the rooms that have ended, so totals never go down.
func (s *Services) TickStats() []game.TickStats {
	rooms := s.Rooms.All()
	out := make([]game.TickStats, 0, len(rooms)+1)
	for _, r := range rooms {
		out = append(out, r.Stats())
	}
	if ret := s.Rooms.Retired(); ret.Ticks > 0 {
		out = append(out, ret)
	}
	return out
}

// Stop ends every room and queue, then lets the results writer finish:
// matches still being played are recorded as aborted, with no rating
// change. Call it after the SSH server has shut down and before the store
// is closed.
func (s *Services) Stop() {
	s.stopRooms()
	s.stopResults()
	s.wg.Wait()
}
