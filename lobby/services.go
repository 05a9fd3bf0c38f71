package lobby

import (
	"context"
	"log/slog"
	"sync"

	"github.com/termarena/termarena/store"
)

// Services is everything the lobby runs for a server: who is online, the
// rooms, the ranked queues and the results writer, wired together.
type Services struct {
	Hub        *Hub
	Rooms      *Rooms
	Matchmaker *Matchmaker
	Results    *Results

	stopRooms   context.CancelFunc
	stopResults context.CancelFunc
	wg          sync.WaitGroup
}

// Start wires and starts the services. Rooms and queues run until Stop.
func Start(st *store.Store, cfg RoomsConfig, log *slog.Logger) *Services {
	s := &Services{Hub: NewHub()}
	var mm *Matchmaker
	s.Results = NewResults(st, func(id string) { mm.RecordLeave(id) }, log)
	cfg.Observer = s.Results
	roomsCtx, stopRooms := context.WithCancel(context.Background())
	resultsCtx, stopResults := context.WithCancel(context.Background())
	s.stopRooms, s.stopResults = stopRooms, stopResults
	s.Rooms = NewRooms(roomsCtx, cfg)
	mm = NewMatchmaker(s.Rooms, &Cooldowns{}, log)
	s.Matchmaker = mm
	s.wg.Add(2)
	go func() { defer s.wg.Done(); mm.Run(roomsCtx) }()
	go func() { defer s.wg.Done(); s.Results.Run(resultsCtx) }()
	return s
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
