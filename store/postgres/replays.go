package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/termarena/termarena/store"
)

// PutReplay stores data as match matchID's replay, replacing any earlier
// one, and sets the match's replay flag in the same transaction.
func (s *Store) PutReplay(ctx context.Context, matchID uint64, data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("store: put replay of match %d: empty replay", matchID)
	}
	if len(data) > store.MaxReplayLen {
		return fmt.Errorf("store: put replay of match %d: %d bytes, at most %d", matchID, len(data), store.MaxReplayLen)
	}
	err := s.write(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "UPDATE matches SET replay = true WHERE id = $1", int64(matchID))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("match %d: %w", matchID, store.ErrNotFound)
		}
		_, err = tx.Exec(ctx, `INSERT INTO replays (match_id, data) VALUES ($1, $2)
			ON CONFLICT (match_id) DO UPDATE SET data = excluded.data`, int64(matchID), data)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: put replay of match %d: %w", matchID, err)
	}
	return nil
}

// Replay is match matchID's replay, or ErrNotFound.
func (s *Store) Replay(ctx context.Context, matchID uint64) ([]byte, error) {
	var out []byte
	err := s.pool.QueryRow(ctx, "SELECT data FROM replays WHERE match_id = $1", int64(matchID)).Scan(&out)
	if errors.Is(err, pgx.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: replay of match %d: %w", matchID, classify(err))
	}
	return out, nil
}

// PruneReplays deletes every replay whose match ended before now−keepFor
// and that is not among the keepPerPlayer newest replays of any keyed
// player of its match, clears those matches' replay flags, and says how
// many went: bbolt's rule, as one statement. Replays stored while it runs
// are newer than any it judges, so they can only push older ones out of a
// player's newest few: what it deletes stays right to delete.
func (s *Store) PruneReplays(ctx context.Context, keepPerPlayer int, keepFor time.Duration, now time.Time) (int, error) {
	if keepPerPlayer < 0 || keepFor < 0 {
		return 0, fmt.Errorf("store: prune replays: negative keep (%d per player, %s)", keepPerPlayer, keepFor)
	}
	cutoff := ts(now.Add(-keepFor))
	var n int
	err := s.write(ctx, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `
			WITH ranked AS (
				SELECT mp.match_id, row_number() OVER (PARTITION BY mp.fingerprint ORDER BY mp.match_id DESC) AS newer
				FROM match_players mp JOIN replays r ON r.match_id = mp.match_id
				WHERE mp.fingerprint <> ''
			), doomed AS (
				DELETE FROM replays r USING matches m
				WHERE m.id = r.match_id
				  AND m.start + make_interval(secs => m.duration_ns / 1e9) < $2
				  AND NOT EXISTS (SELECT 1 FROM ranked k WHERE k.match_id = r.match_id AND k.newer <= $1)
				RETURNING r.match_id
			), cleared AS (
				UPDATE matches SET replay = false WHERE id IN (SELECT match_id FROM doomed) RETURNING id
			)
			SELECT count(*) FROM cleared`, keepPerPlayer, cutoff).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("store: prune replays: %w", err)
	}
	return n, nil
}
