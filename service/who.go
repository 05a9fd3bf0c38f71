package service

import (
	"context"
	"errors"
	"sync"

	"github.com/termarena/termarena/lobby"
)

// Presence is who is online: *lobby.Hub implements it.
type Presence interface {
	// Who lists the online players, one each, sorted by name, and a
	// channel closed when anyone arrives, leaves or moves.
	Who() ([]lobby.Presence, <-chan struct{})
}

// Queues counts the ranked queues: *lobby.Matchmaker implements it.
type Queues interface {
	Queued() []lobby.QueueCount
}

// ErrNoPresence means the service was built without a presence source
// (WithOnline), so it cannot say who is online.
var ErrNoPresence = errors.New("service: who is online is not known here")

// WithOnline is the service answering Who from p and, when q is not nil,
// counting the ranked queues from q.
func (s *Service) WithOnline(p Presence, q Queues) *Service {
	c := *s
	c.presence, c.queues = p, q
	c.who = &whoSnapshot{}
	return &c
}

// whoSnapshot is the players part of the last listing built, for the
// presence version it was built from (the change channel Presence.Who
// returns with it). Every lobby reads who is online after each change;
// each building its own copy of every player made the server hold N
// listings of N players (≈40 KB a session at 500), so one is built a
// version and shared. Its slice is immutable once built: readers only
// range over it.
type whoSnapshot struct {
	mu      sync.Mutex
	version <-chan struct{}
	players []OnlinePlayer
	guests  int
}

// of returns the players and guest count of list, the presence at
// version, building them only when version is new. A nil version (a
// source that cannot say when it changes) is built every time.
func (c *whoSnapshot) of(list []lobby.Presence, version <-chan struct{}) ([]OnlinePlayer, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version != nil && c.version == version {
		return c.players, c.guests
	}
	players, guests := make([]OnlinePlayer, 0, len(list)), 0
	for _, p := range list {
		if p.Guest {
			guests++
			continue
		}
		a := p.Activity()
		players = append(players, OnlinePlayer{Name: p.Name, Doing: a.Doing, Mode: a.Mode, Room: a.Room, Match: a.Match, Node: p.Node, SSH: lobby.SSHCommand(p.SSH), Casual: a.Casual})
	}
	// Full capacity: an append by a reader copies instead of writing
	// into the shared array.
	players = players[:len(players):len(players)]
	c.version, c.players, c.guests = version, players, guests
	return players, guests
}

// WithQuick is the service counting the quick-match queues ("play
// anyone, unrated") from q as well: *lobby.QuickMatch implements Queues.
func (s *Service) WithQuick(q Queues) *Service {
	c := *s
	c.quick = q
	return &c
}

// Who is the stable shape of `who --json` (fields are only added): the
// players online with what each is doing, how many guests, and each ranked
// queue's count, and each quick-match queue's (Quick).
//
// Guests are counted, not named: a guest's name is a throwaway
// (guest-4821) that no profile, challenge or later session can reach, so
// listing it says nothing a count does not, and a key-less visitor is not
// advertised by name. Bots are never listed: they play without a session,
// so they are never online.
type Who struct {
	Players []OnlinePlayer `json:"players"`
	Guests  int            `json:"guests"`
	Queues  []QueueCount   `json:"queues"`
	// Quick counts the quick-match queues (unrated), as Queues the
	// ranked ones: players wait in both.
	Quick []QueueCount `json:"quick"`
}

// OnlinePlayer is one online player: Doing is lobby, queue, playing,
// watching or replay; Mode, Room and Match say which, when there is one.
type OnlinePlayer struct {
	Name  string `json:"name"`
	Doing string `json:"doing"`
	Mode  string `json:"mode,omitempty"`
	Room  string `json:"room,omitempty"`
	Match string `json:"match,omitempty"`
	// Casual: the queue is a quick match (unrated), not a ranked one.
	Casual bool `json:"casual,omitempty"`
	// Node is the cluster node the player is connected to (only in a
	// cluster).
	Node string `json:"node,omitempty"`
	// SSH reaches that node ("ssh -p 2222 n2.example.com"), as it
	// advertises itself (only in a cluster).
	SSH string `json:"ssh,omitempty"`
}

// Activity is what the player is doing, in the listings' words
// ("playing in r3").
func (p OnlinePlayer) Activity() string {
	return lobby.Activity{Doing: p.Doing, Mode: p.Mode, Room: p.Room, Match: p.Match, Casual: p.Casual}.String()
}

// QueueCount is one ranked queue: how many wait and how many a match
// needs.
type QueueCount struct {
	Mode    string `json:"mode"`
	Waiting int    `json:"waiting"`
	Needs   int    `json:"needs"`
}

// Who says who is online now, and returns a channel closed when that
// changes (the lobby redraws its line then). Its Players are shared by
// every caller until the next change: read them, never write them.
func (s *Service) Who(ctx context.Context) (Who, <-chan struct{}, error) {
	if err := ctx.Err(); err != nil {
		return Who{}, nil, err
	}
	if s.presence == nil {
		return Who{}, nil, ErrNoPresence
	}
	list, changed := s.presence.Who()
	w := Who{Queues: []QueueCount{}, Quick: []QueueCount{}}
	w.Players, w.Guests = s.who.of(list, changed)
	if s.queues != nil {
		for _, q := range s.queues.Queued() {
			w.Queues = append(w.Queues, QueueCount{Mode: string(q.Mode), Waiting: q.Waiting, Needs: q.Table})
		}
	}
	if s.quick != nil {
		for _, q := range s.quick.Queued() {
			w.Quick = append(w.Quick, QueueCount{Mode: string(q.Mode), Waiting: q.Waiting, Needs: q.Table})
		}
	}
	return w, changed, nil
}
