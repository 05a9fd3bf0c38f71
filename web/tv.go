package web

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// tvNext is how long TV keeps showing a finished match's results before
// it moves on, and how often it looks for a match when there is none.
const (
	tvNext = 5 * time.Second
	tvPoll = time.Second
)

// best is the live match TV shows: in play or counting down, of game
// (any when ""), ranked before casual, then the highest average rating,
// then the oldest room; nil when none is live. Rooms in skip are passed
// over (TV could not watch them).
func (s *Server) best(ctx context.Context, gameName string, skip ...*lobby.Room) *lobby.Room {
	infos, err := s.d.Queries.RoomInfos(ctx, lobby.Watchable)
	if err != nil || s.d.Rooms == nil {
		return nil
	}
	var pick *lobby.RoomInfo
	var pickAvg float64
	for i := range infos {
		ri := &infos[i]
		if ri.Remote || !ri.Started || (ri.Phase != game.Countdown && ri.Phase != game.Playing) || (gameName != "" && ri.Game != gameName) {
			continue
		}
		if slices.ContainsFunc(skip, func(r *lobby.Room) bool { return r.ID() == ri.ID }) {
			continue
		}
		avg := s.averageRating(ctx, ri)
		if pick == nil || (ri.Ranked && !pick.Ranked) || (ri.Ranked == pick.Ranked && avg > pickAvg) {
			pick, pickAvg = ri, avg
		}
	}
	if pick == nil {
		return nil
	}
	r, err := s.d.Rooms.Watchable(pick.ID)
	if err != nil {
		return nil
	}
	return r
}

// averageRating is the mean rating of a ranked room's players in its
// queue (0 for a casual room).
func (s *Server) averageRating(ctx context.Context, ri *lobby.RoomInfo) float64 {
	if !ri.Ranked || s.d.Ratings == nil || len(ri.Players) == 0 {
		return 0
	}
	sum := 0.0
	for _, p := range ri.Players {
		rt, _, err := s.d.Ratings.Rating(ctx, string(ri.Queue), string(p.ID))
		if err == nil {
			sum += rt.Rating
		}
	}
	return sum / float64(len(ri.Players))
}

// tvGame reads /tv/GAME's game; ok false for a name the server has not.
func (s *Server) tvGame(r *http.Request) (name string, ok bool) {
	name = trimExt(r.PathValue("game"), ".json")
	if name == "" {
		return "", true
	}
	if s.d.Rooms == nil {
		return name, false
	}
	_, ok = s.d.Rooms.Games().Kind(name)
	return name, ok
}

// tvView is TV's page.
type tvView struct {
	Game string
	Live string
	Room *roomView // the match on now, nil when none
}

func (s *Server) tvPage(w http.ResponseWriter, r *http.Request) {
	name, ok := s.tvGame(r)
	if !ok {
		s.fail(w, r, errNoRoom, "no game named "+strconv.Quote(name))
		return
	}
	v := tvView{Game: name, Live: "/tv/live"}
	if name != "" {
		v.Live = "/tv/" + name + "/live"
	}
	var jsonRoom any = nil
	if room := s.best(r.Context(), name); room != nil {
		rv := s.roomView(room, room.ID())
		v.Room, jsonRoom = &rv, rv.Room
	}
	title := "TV"
	if name != "" {
		title = name + " TV"
	}
	s.render(w, r, http.StatusOK, "tv", title, v, map[string]any{"room": jsonRoom})
}

// tvStream follows the best live match: it streams that room's frames
// and, when the match is over (its results shown for tvNext) or the room
// closes, moves on to the next best; between matches it says it waits.
func (s *Server) tvStream(w http.ResponseWriter, r *http.Request) {
	name, ok := s.tvGame(r)
	if !ok {
		http.Error(w, "no such game", http.StatusNotFound)
		return
	}
	st := s.newStreamer(w, r)
	defer st.stop()
	ctx := r.Context()
	waiting := false
	for {
		// A room TV cannot watch (it has all the watchers it takes, say)
		// is passed over for the next best, until none is left: then TV
		// waits, and tries them all again a poll later.
		var room *lobby.Room
		var lr *liveRoom
		var wake chan struct{}
		var leave func()
		var failed []*lobby.Room
		for {
			room = s.best(ctx, name, failed...)
			if room == nil {
				break
			}
			var err error
			if lr, wake, leave, err = s.live.watch(room); err == nil {
				break
			}
			failed = append(failed, room)
		}
		if room == nil {
			if !waiting {
				waiting = true
				st.send([]byte(`event: wait` + "\n" + `data: {"line":"no live match right now: TV shows the next one when it starts"}` + "\n\n"))
			}
			select {
			case <-ctx.Done():
				return
			case <-s.live.ctx.Done():
				return
			case <-time.After(tvPoll):
			}
			if st.dead {
				return
			}
			continue
		}
		waiting = false
		ri := room.Info()
		b, _ := json.Marshal(map[string]string{"id": ri.ID, "label": ri.Label, "href": "/r/" + ri.ID})
		st.send(append(append([]byte("event: room\ndata: "), b...), '\n', '\n'))
		moveOn := make(chan struct{})
		watchCtx, stopWatch := context.WithCancel(ctx)
		go func() {
			// The match is over once its results have been up tvNext.
			t := time.NewTicker(tvPoll)
			defer t.Stop()
			var overSince time.Time
			for {
				select {
				case <-watchCtx.Done():
					return
				case now := <-t.C:
					if room.Info().Phase != game.Finished {
						overSince = time.Time{}
					} else if overSince.IsZero() {
						overSince = now
					} else if now.Sub(overSince) >= tvNext {
						close(moveOn)
						return
					}
				}
			}
		}()
		more := st.follow(ctx, s.live.ctx, lr, wake, moveOn)
		stopWatch()
		leave()
		if !more {
			return
		}
	}
}
