package service

import (
	"context"
	"errors"

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
	return &c
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
// changes (the lobby redraws its line then).
func (s *Service) Who(ctx context.Context) (Who, <-chan struct{}, error) {
	if err := ctx.Err(); err != nil {
		return Who{}, nil, err
	}
	if s.presence == nil {
		return Who{}, nil, ErrNoPresence
	}
	list, changed := s.presence.Who()
	w := Who{Players: make([]OnlinePlayer, 0, len(list)), Queues: []QueueCount{}, Quick: []QueueCount{}}
	for _, p := range list {
		if p.Guest {
			w.Guests++
			continue
		}
		a := p.Activity()
		w.Players = append(w.Players, OnlinePlayer{Name: p.Name, Doing: a.Doing, Mode: a.Mode, Room: a.Room, Match: a.Match, Node: p.Node, SSH: lobby.SSHCommand(p.SSH), Casual: a.Casual})
	}
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
