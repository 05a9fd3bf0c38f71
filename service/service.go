// Package service owns the queries behind what termarena shows about its
// players, matches and rooms — leaderboards, profiles, match histories,
// replays and the room list — and the stable shapes they are shown in
// (`--json` today, the web face later). The SSH commands, the lobby and a
// web handler call the same methods and get the same values, so each
// question has one answer however it is asked.
//
// It depends on small interfaces over the store and the room directory
// (declared here, where they are used), never on the SSH side.
package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/store"
)

// Store is what the service reads (and, for a rename, writes):
// every store backend implements it.
type Store interface {
	Standings(ctx context.Context, mode string) ([]store.Rating, error)
	PlayerByFingerprint(ctx context.Context, fp string) (store.Player, error)
	PlayerByName(ctx context.Context, name string) (store.Player, error)
	Profile(ctx context.Context, fp string) (store.Profile, error)
	ProfileByName(ctx context.Context, name string) (store.Profile, error)
	Match(ctx context.Context, id uint64) (store.MatchRecord, error)
	Matches(ctx context.Context, fp string, limit int) ([]store.MatchRecord, error)
	RecentMatches(ctx context.Context, limit int, keep func(store.MatchRecord) bool) ([]store.MatchRecord, error)
	Replay(ctx context.Context, matchID uint64) ([]byte, error)
	Rename(ctx context.Context, fp, newName string, every time.Duration) (store.Player, error)
}

// Rooms is the room directory the room queries read: *lobby.Rooms
// implements it.
type Rooms interface {
	// Infos summarises the rooms a listing holds, oldest first.
	Infos(which lobby.Listing) []lobby.RoomInfo
	// Games is the server's catalogue: its ranked queues name the modes
	// leaderboards are kept for.
	Games() game.Catalog
}

// Service answers the queries. Its methods are safe for concurrent use.
type Service struct {
	store Store
	rooms Rooms
	// now is the clock a deviation grows by (Glicko-2's inactivity):
	// time.Now but in tests.
	now func() time.Time
	// presence and queues answer Who; nil until WithOnline.
	presence Presence
	queues   Queues
	quick    Queues // the quick-match queues (WithQuick); nil: none
	// who is the listing every session shares (see whoSnapshot); set by
	// WithOnline, so the copies With* makes share it too.
	who *whoSnapshot
}

// New returns the service over st and rooms. st is required; rooms may
// be nil for a service that answers only player and match queries (the
// room and mode queries then must not be called).
func New(st Store, rooms Rooms) *Service {
	return &Service{store: st, rooms: rooms, now: time.Now}
}

// WithClock is the service reading deviations as of now() instead of the
// wall clock (tests; a replayed day).
func (s *Service) WithClock(now func() time.Time) *Service {
	c := *s
	c.now = now
	return &c
}

var (
	// ErrNoPlayer means no player has that name (or that key).
	ErrNoPlayer = errors.New("no such player")
	// ErrNoMatch means no match has that id.
	ErrNoMatch = errors.New("no such match")
	// ErrNoReplay means no replay is stored for that match: an unknown
	// match, or a pruned one.
	ErrNoReplay = errors.New("no such replay")
	// ErrUnranked means the player has no established rating in the mode
	// (none, or still provisional: deviation ≥ 110), so no rank.
	ErrUnranked = errors.New("not on the leaderboard")
	// ErrUnknownMode means a name that is none of the server's ranked
	// modes; its text lists them.
	ErrUnknownMode = errors.New("unknown mode")
)

// Modes are the ranked modes leaderboards are kept for, in menu order.
func (s *Service) Modes() []string { return s.rooms.Games().RankedQueues() }

// ParseMode accepts the server's ranked mode names and their short forms
// (game.Catalog.ParseRanked); "" is the first mode.
func (s *Service) ParseMode(name string) (string, error) {
	games := s.rooms.Games()
	if q, ok := games.ParseRanked(name); ok {
		return q, nil
	}
	return "", fmt.Errorf("%w %q: want %s", ErrUnknownMode, sanitize.Arg(name), strings.Join(games.RankedQueues(), ", "))
}

// PlayerNamed finds a player by name: ErrNoPlayer when nobody has it.
func (s *Service) PlayerNamed(ctx context.Context, name string) (store.Player, error) {
	if err := ctx.Err(); err != nil {
		return store.Player{}, err
	}
	p, err := s.store.PlayerByName(ctx, name)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidName):
		return store.Player{}, fmt.Errorf("service: player %q: %w", sanitize.Arg(name), ErrNoPlayer)
	case err != nil:
		return store.Player{}, fmt.Errorf("service: player %q: %w", sanitize.Arg(name), err)
	}
	return p, nil
}

// PlayerByKey finds a player by key fingerprint: ErrNoPlayer when that
// key has never logged in.
func (s *Service) PlayerByKey(ctx context.Context, fp string) (store.Player, error) {
	if err := ctx.Err(); err != nil {
		return store.Player{}, err
	}
	p, err := s.store.PlayerByFingerprint(ctx, fp)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Player{}, fmt.Errorf("service: player %s: %w", fp, ErrNoPlayer)
	case err != nil:
		return store.Player{}, fmt.Errorf("service: player %s: %w", fp, err)
	}
	return p, nil
}
