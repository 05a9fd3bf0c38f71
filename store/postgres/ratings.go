package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/termarena/termarena/store"
)

const ratingCols = "r.mode, r.fingerprint, r.rating, r.deviation, r.volatility, r.games, r.wins, r.losses, r.draws, r.updated"

func scanRating(row pgx.Row, name *string) (store.Rating, error) {
	var r store.Rating
	dest := []any{&r.Mode, &r.Fingerprint, &r.Rating, &r.Deviation, &r.Volatility, &r.Games, &r.Wins, &r.Losses, &r.Draws, &r.Updated}
	if name != nil {
		dest = append(dest, name)
	}
	if err := row.Scan(dest...); err != nil {
		return store.Rating{}, err
	}
	r.Updated = r.Updated.UTC()
	return r, nil
}

// Rating is fp's rating in mode, or NewRating's with found=false; Name is
// the player's current name, "" for an unknown fp.
func (s *Store) Rating(ctx context.Context, mode, fp string) (store.Rating, bool, error) {
	if err := errors.Join(store.CheckMode(mode), store.CheckFingerprint(fp)); err != nil {
		return store.Rating{}, false, fmt.Errorf("store: rating: %w", err)
	}
	var r store.Rating
	found := false
	err := s.read(ctx, func(tx pgx.Tx) error {
		var err error
		r, found, err = loadRating(ctx, tx, mode, fp)
		return err
	})
	if err != nil {
		return store.Rating{}, false, fmt.Errorf("store: rating %s %s: %w", mode, fp, err)
	}
	return r, found, nil
}

// loadRating reads one rating with the player's name, or a new one.
func loadRating(ctx context.Context, tx pgx.Tx, mode, fp string) (store.Rating, bool, error) {
	var name string
	r, err := scanRating(tx.QueryRow(ctx, "SELECT "+ratingCols+`, coalesce(p.name, '')
		FROM ratings r LEFT JOIN players p USING (fingerprint) WHERE r.mode = $1 AND r.fingerprint = $2`, mode, fp), &name)
	if err == nil {
		r.Name = name
		return r, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return store.Rating{}, false, err
	}
	r = store.NewRating(mode, fp)
	if err := tx.QueryRow(ctx, "SELECT name FROM players WHERE fingerprint = $1", fp).Scan(&r.Name); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return store.Rating{}, false, err
	}
	return r, false, nil
}

// Ratings is fp's rating in every mode they played, by mode.
func (s *Store) Ratings(ctx context.Context, fp string) ([]store.Rating, error) {
	if err := store.CheckFingerprint(fp); err != nil {
		return nil, fmt.Errorf("store: ratings: %w", err)
	}
	rows, err := s.pool.Query(ctx, "SELECT "+ratingCols+`, coalesce(p.name, '')
		FROM ratings r LEFT JOIN players p USING (fingerprint) WHERE r.fingerprint = $1 ORDER BY r.mode COLLATE "C"`, fp)
	if err != nil {
		return nil, fmt.Errorf("store: ratings %s: %w", fp, classify(err))
	}
	out, err := collectRatings(rows)
	if err != nil {
		return nil, fmt.Errorf("store: ratings %s: %w", fp, classify(err))
	}
	return out, nil
}

// collectRatings reads rows of ratingCols and a name.
func collectRatings(rows pgx.Rows) ([]store.Rating, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Rating, error) {
		var name string
		r, err := scanRating(row, &name)
		r.Name = name
		return r, err
	})
}

// standingsOrder is the leaderboard order of every backend: rating
// descending (unrounded), then more games, then name and fingerprint
// bytewise (COLLATE "C": the database's own collation may differ from
// the Go comparison bbolt uses).
const standingsOrder = `ORDER BY r.rating DESC, r.games DESC, p.name COLLATE "C", r.fingerprint COLLATE "C"`

// Leaderboard is the page of mode's standings from offset, at most limit
// long (<=0: 20; at most 1000). A rating whose player is gone is left out,
// as on bbolt.
func (s *Store) Leaderboard(ctx context.Context, mode string, offset, limit int) ([]store.Rating, error) {
	if err := store.CheckMode(mode); err != nil {
		return nil, fmt.Errorf("store: leaderboard: %w", err)
	}
	rows, err := s.pool.Query(ctx, "SELECT "+ratingCols+", p.name FROM ratings r JOIN players p USING (fingerprint) WHERE r.mode = $1 "+
		standingsOrder+" OFFSET $2 LIMIT $3", mode, max(offset, 0), store.ClampLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("store: leaderboard %s: %w", mode, classify(err))
	}
	out, err := collectRatings(rows)
	if err != nil {
		return nil, fmt.Errorf("store: leaderboard %s: %w", mode, classify(err))
	}
	return out, nil
}

// Standings is every rated player of mode in Leaderboard's order.
func (s *Store) Standings(ctx context.Context, mode string) ([]store.Rating, error) {
	if err := store.CheckMode(mode); err != nil {
		return nil, fmt.Errorf("store: leaderboard: %w", err)
	}
	rows, err := s.pool.Query(ctx, "SELECT "+ratingCols+", p.name FROM ratings r JOIN players p USING (fingerprint) WHERE r.mode = $1 "+
		standingsOrder, mode)
	if err != nil {
		return nil, fmt.Errorf("store: leaderboard %s: %w", mode, classify(err))
	}
	out, err := collectRatings(rows)
	if err != nil {
		return nil, fmt.Errorf("store: leaderboard %s: %w", mode, classify(err))
	}
	return out, nil
}
