package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/termarena/termarena/store"
)

// RecordMatch writes a match end in one transaction: the match and its
// seats, for a rated match every seat's new rating, the replay and the
// leave strikes. The seats' rating rows are locked (SELECT … FOR UPDATE,
// in fingerprint order so two matches sharing players cannot deadlock)
// before end.Rate sees them, so two matches ending together with one
// player cannot lose either update. A seat's first rated game locks a row
// inserted for it first: with no row there would be nothing to lock.
func (s *Store) RecordMatch(ctx context.Context, end store.MatchEnd) (store.MatchRecord, error) {
	m, err := prepareMatch(end.Match)
	if err != nil {
		return store.MatchRecord{}, fmt.Errorf("store: record match: %w", err)
	}
	replay := bytes.Clone(end.Replay)
	if len(replay) > store.MaxReplayLen {
		return store.MatchRecord{}, fmt.Errorf("store: record match: replay of %d bytes, at most %d", len(replay), store.MaxReplayLen)
	}
	for fp := range end.Leaves {
		if err := store.CheckFingerprint(fp); err != nil {
			return store.MatchRecord{}, fmt.Errorf("store: record match: leaves: %w", err)
		}
	}
	rated := m.Ranked && !m.Aborted
	if rated && end.Rate == nil {
		return store.MatchRecord{}, fmt.Errorf("store: record %s match: ranked match needs a rate func", m.Mode)
	}
	if len(end.Key) > store.MaxMatchKeyLen {
		return store.MatchRecord{}, fmt.Errorf("store: record match: key of %d bytes, at most %d", len(end.Key), store.MaxMatchKeyLen)
	}
	now := s.clock()
	var out store.MatchRecord
	var already int64 // the match stored under end.Key before this call
	err = s.write(ctx, func(tx pgx.Tx) error {
		m := m // a retry starts from the prepared value again
		m.Players = slices.Clone(m.Players)
		already = 0
		if end.Key != "" {
			// Two nodes ending one match wait for each other here; the
			// second (read committed: each statement sees what committed
			// before it) finds the first's row and writes nothing.
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 7))", end.Key); err != nil {
				return fmt.Errorf("lock match key: %w", err)
			}
			err := tx.QueryRow(ctx, "SELECT id FROM matches WHERE match_key = $1", end.Key).Scan(&already)
			if err == nil {
				return nil
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("read match key: %w", err)
			}
		}
		current, err := seatRatings(ctx, tx, m, rated)
		if err != nil {
			return err
		}
		next := current
		if rated {
			// A clone, so a rate that edits its argument cannot change the
			// "before" values.
			if next, err = end.Rate(slices.Clone(current)); err != nil {
				return fmt.Errorf("rate: %w", err)
			}
			if err := checkRated(m.Mode, current, next); err != nil {
				return err
			}
		}
		for i := range m.Players {
			p := &m.Players[i]
			if p.Name == "" {
				p.Name = current[i].Name
			}
			p.RatingBefore, p.RatingAfter = current[i].Rating, next[i].Rating
			if p.Fingerprint != "" {
				p.GamesAfter = next[i].Games
				p.DeviationBefore, p.DeviationAfter = current[i].Deviation, next[i].Deviation
			}
		}
		m.Replay = len(replay) > 0
		var id int64
		var key *string
		if end.Key != "" {
			key = &end.Key
		}
		if err := tx.QueryRow(ctx, `INSERT INTO matches (mode, ranked, aborted, forfeit, room, start, duration_ns, replay, match_key)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
			m.Mode, m.Ranked, m.Aborted, m.Forfeit, m.Room, m.Start, int64(m.Duration), m.Replay, key).Scan(&id); err != nil {
			return fmt.Errorf("write match: %w", err)
		}
		m.ID = uint64(id)
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"match_players"}, matchPlayerCols, pgx.CopyFromSlice(len(m.Players), func(i int) ([]any, error) {
			p := m.Players[i]
			return []any{id, i, p.Fingerprint, p.Name, p.Slot, p.Team, p.Place, p.Score, p.RatingBefore, p.RatingAfter,
				p.DeviationBefore, p.DeviationAfter, p.GamesAfter, p.Left}, nil
		})); err != nil {
			return fmt.Errorf("write seats of match %d: %w", id, err)
		}
		if m.Replay {
			if _, err := tx.Exec(ctx, "INSERT INTO replays (match_id, data) VALUES ($1, $2)", id, replay); err != nil {
				return fmt.Errorf("write replay of match %d: %w", id, err)
			}
		}
		if rated {
			for _, r := range next {
				if _, err := tx.Exec(ctx, `UPDATE ratings SET rating = $3, deviation = $4, volatility = $5,
					games = $6, wins = $7, losses = $8, draws = $9, updated = $10 WHERE mode = $1 AND fingerprint = $2`,
					m.Mode, r.Fingerprint, r.Rating, r.Deviation, r.Volatility, r.Games, r.Wins, r.Losses, r.Draws, now); err != nil {
					return fmt.Errorf("write rating of %s: %w", r.Fingerprint, err)
				}
			}
		}
		for fp, l := range end.Leaves {
			if err := putLeaves(ctx, tx, fp, l); err != nil {
				return err
			}
		}
		out = m
		return nil
	})
	if err != nil {
		return store.MatchRecord{}, fmt.Errorf("store: record %s match: %w", m.Mode, err)
	}
	if already != 0 {
		return s.Match(ctx, uint64(already))
	}
	return out, nil
}

var matchPlayerCols = []string{"match_id", "seat", "fingerprint", "name", "slot", "team", "place", "score",
	"rating_before", "rating_after", "deviation_before", "deviation_after", "games_after", "left_match"}

// seatRatings reads every seat's current rating in m.Mode, in seat order,
// with the name from players; guests get NewRating's. For a rated match
// the rows are locked for the rest of the transaction.
func seatRatings(ctx context.Context, tx pgx.Tx, m store.MatchRecord, rated bool) ([]store.Rating, error) {
	var fps []string
	for _, p := range m.Players {
		if p.Fingerprint != "" {
			fps = append(fps, p.Fingerprint)
		}
	}
	slices.Sort(fps)
	fresh := map[string]bool{}
	lock := ""
	if rated {
		// Rows for seats with no rating yet, in the order they will be
		// locked; the match's own UPDATE below gives them their values.
		// RETURNING names the rows this transaction made: those are the
		// seats' first rated game, NewRating's to Rate.
		rows, err := tx.Query(ctx, `INSERT INTO ratings (mode, fingerprint, rating, deviation, volatility, updated)
			SELECT $1, f, $3, $4, $5, $6 FROM unnest($2::text[]) AS f ORDER BY f
			ON CONFLICT DO NOTHING RETURNING fingerprint`, m.Mode, fps, store.InitialRating, store.InitialDeviation, store.InitialVolatility, time.Time{})
		if err != nil {
			return nil, fmt.Errorf("read ratings: %w", err)
		}
		made, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, fmt.Errorf("read ratings: %w", err)
		}
		for _, fp := range made {
			fresh[fp] = true
		}
		lock = ` ORDER BY r.fingerprint COLLATE "C" FOR UPDATE OF r`
	}
	rows, err := tx.Query(ctx, "SELECT "+ratingCols+`, coalesce(p.name, '') FROM ratings r LEFT JOIN players p USING (fingerprint)
		WHERE r.mode = $1 AND r.fingerprint = ANY($2)`+lock, m.Mode, fps)
	if err != nil {
		return nil, fmt.Errorf("read ratings: %w", err)
	}
	stored, err := collectRatings(rows)
	if err != nil {
		return nil, fmt.Errorf("read ratings: %w", err)
	}
	byFP := make(map[string]store.Rating, len(stored))
	for _, r := range stored {
		byFP[r.Fingerprint] = r
	}
	var names map[string]string
	current := make([]store.Rating, len(m.Players))
	for i, p := range m.Players {
		r, ok := byFP[p.Fingerprint]
		switch {
		case p.Fingerprint == "":
			r = store.NewRating(m.Mode, "")
		case !ok || fresh[p.Fingerprint]:
			name := r.Name
			if !ok {
				if names == nil {
					if names, err = playerNames(ctx, tx, fps); err != nil {
						return nil, err
					}
				}
				name = names[p.Fingerprint]
			}
			r = store.NewRating(m.Mode, p.Fingerprint)
			r.Name = name
		}
		current[i] = r
	}
	return current, nil
}

func playerNames(ctx context.Context, tx pgx.Tx, fps []string) (map[string]string, error) {
	rows, err := tx.Query(ctx, "SELECT fingerprint, name FROM players WHERE fingerprint = ANY($1)", fps)
	if err != nil {
		return nil, fmt.Errorf("read names: %w", err)
	}
	out := map[string]string{}
	var fp, name string
	_, err = pgx.ForEachRow(rows, []any{&fp, &name}, func() error { out[fp] = name; return nil })
	if err != nil {
		return nil, fmt.Errorf("read names: %w", err)
	}
	return out, nil
}

// prepareMatch validates m and returns a copy the caller no longer shares.
func prepareMatch(m store.MatchRecord) (store.MatchRecord, error) {
	if m.ID != 0 {
		return store.MatchRecord{}, fmt.Errorf("ID %d set: the store assigns ids", m.ID)
	}
	if err := store.CheckMode(m.Mode); err != nil {
		return store.MatchRecord{}, err
	}
	if len(m.Players) == 0 {
		return store.MatchRecord{}, errors.New("no players")
	}
	if len(m.Players) > store.MaxMatchPlayers {
		return store.MatchRecord{}, fmt.Errorf("%d players, at most %d", len(m.Players), store.MaxMatchPlayers)
	}
	seen := make(map[string]int, len(m.Players))
	for i, p := range m.Players {
		if p.Fingerprint == "" {
			if m.Ranked {
				return store.MatchRecord{}, fmt.Errorf("player %d: ranked match with a guest (no fingerprint)", i)
			}
			continue
		}
		if err := store.CheckFingerprint(p.Fingerprint); err != nil {
			return store.MatchRecord{}, fmt.Errorf("player %d: %w", i, err)
		}
		if j, dup := seen[p.Fingerprint]; dup {
			return store.MatchRecord{}, fmt.Errorf("players %d and %d are both %s", j, i, p.Fingerprint)
		}
		seen[p.Fingerprint] = i
	}
	m.Players = slices.Clone(m.Players)
	m.Start = ts(m.Start)
	return m, nil
}

// checkRated holds Rate's result to RecordMatch's promise: one finite
// rating per seat, in order, in the match's mode.
func checkRated(mode string, current, next []store.Rating) error {
	if len(next) != len(current) {
		return fmt.Errorf("rate returned %d ratings for %d players", len(next), len(current))
	}
	for i, r := range next {
		if r.Fingerprint != current[i].Fingerprint {
			return fmt.Errorf("rate result %d is for %q, want %q", i, r.Fingerprint, current[i].Fingerprint)
		}
		if r.Mode != mode {
			return fmt.Errorf("rate result %d is for mode %q, want %q", i, r.Mode, mode)
		}
		if err := store.CheckRating(r); err != nil {
			return fmt.Errorf("rate result %d (%s): %w", i, r.Fingerprint, err)
		}
	}
	return nil
}

const matchCols = "m.id, m.mode, m.ranked, m.aborted, m.forfeit, m.room, m.start, m.duration_ns, m.replay"

// Match is the match with that id, or ErrNotFound.
func (s *Store) Match(ctx context.Context, id uint64) (store.MatchRecord, error) {
	var out []store.MatchRecord
	err := s.read(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = loadMatches(ctx, tx, "SELECT "+matchCols+" FROM matches m WHERE m.id = $1", int64(id))
		return err
	})
	if err == nil && len(out) == 0 {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.MatchRecord{}, fmt.Errorf("store: match %d: %w", id, err)
	}
	return out[0], nil
}

// Matches is fp's matches, newest first.
func (s *Store) Matches(ctx context.Context, fp string, limit int) ([]store.MatchRecord, error) {
	if err := store.CheckFingerprint(fp); err != nil {
		return nil, fmt.Errorf("store: matches: %w", err)
	}
	var out []store.MatchRecord
	err := s.read(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = loadMatches(ctx, tx, "SELECT "+matchCols+` FROM matches m
			WHERE m.id IN (SELECT match_id FROM match_players WHERE fingerprint = $1 ORDER BY match_id DESC LIMIT $2)
			ORDER BY m.id DESC`, fp, store.ClampLimit(limit))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: matches of %s: %w", fp, err)
	}
	return out, nil
}

// recentPage is how many matches RecentMatches reads per query while keep
// turns most of them down.
const recentPage = 100

// RecentMatches is the server's newest matches that keep keeps, newest
// first, read a page at a time until limit are kept.
func (s *Store) RecentMatches(ctx context.Context, limit int, keep func(store.MatchRecord) bool) ([]store.MatchRecord, error) {
	limit = store.ClampLimit(limit)
	var out []store.MatchRecord
	err := s.read(ctx, func(tx pgx.Tx) error {
		before := int64(-1) // no bound yet
		for len(out) < limit {
			page, err := loadMatches(ctx, tx, "SELECT "+matchCols+` FROM matches m
				WHERE $1 < 0 OR m.id < $1 ORDER BY m.id DESC LIMIT $2`, before, max(recentPage, limit))
			if err != nil {
				return err
			}
			for _, m := range page {
				if len(out) < limit && (keep == nil || keep(m)) {
					out = append(out, m)
				}
			}
			if len(page) < max(recentPage, limit) {
				return nil
			}
			before = int64(page[len(page)-1].ID)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: recent matches: %w", err)
	}
	return out, nil
}

// loadMatches runs query (selecting matchCols) and fills each match's
// seats with one more query, keeping the query's order.
func loadMatches(ctx context.Context, tx pgx.Tx, query string, args ...any) ([]store.MatchRecord, error) {
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	ms, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.MatchRecord, error) {
		var m store.MatchRecord
		var id, dur int64
		err := row.Scan(&id, &m.Mode, &m.Ranked, &m.Aborted, &m.Forfeit, &m.Room, &m.Start, &dur, &m.Replay)
		m.ID, m.Duration, m.Start = uint64(id), time.Duration(dur), m.Start.UTC()
		return m, err
	})
	if err != nil || len(ms) == 0 {
		return ms, err
	}
	ids := make([]int64, len(ms))
	at := make(map[int64]int, len(ms))
	for i, m := range ms {
		ids[i] = int64(m.ID)
		at[int64(m.ID)] = i
	}
	rows, err = tx.Query(ctx, "SELECT "+strings.Join(matchPlayerCols, ", ")+" FROM match_players WHERE match_id = ANY($1) ORDER BY match_id, seat", ids)
	if err != nil {
		return nil, err
	}
	var id int64
	var seat int
	var p store.MatchPlayer
	_, err = pgx.ForEachRow(rows, []any{&id, &seat, &p.Fingerprint, &p.Name, &p.Slot, &p.Team, &p.Place, &p.Score,
		&p.RatingBefore, &p.RatingAfter, &p.DeviationBefore, &p.DeviationAfter, &p.GamesAfter, &p.Left}, func() error {
		i := at[id]
		ms[i].Players = append(ms[i].Players, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ms, nil
}
