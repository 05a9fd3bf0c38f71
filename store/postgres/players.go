package postgres

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/termarena/termarena/store"
)

const playerCols = "fingerprint, name, key_type, first_seen, last_seen, role"

func scanPlayer(row pgx.Row) (store.Player, error) {
	var p store.Player
	if err := row.Scan(&p.Fingerprint, &p.Name, &p.KeyType, &p.FirstSeen, &p.LastSeen, &p.Role); err != nil {
		return store.Player{}, err
	}
	p.FirstSeen, p.LastSeen = p.FirstSeen.UTC(), p.LastSeen.UTC()
	return p, nil
}

// firstBatch is how many name candidates a first login looks at in its
// first query; each further query looks at eight times as many, so even a
// thousand players who all logged in as "ubuntu" cost a new one three
// queries, not one per taken name.
const firstBatch = 8

// Login records a returning player's visit in one statement; a new key
// gets the first free name of store.NameCandidates. The name is reserved
// by the unique index as the row goes in, so two nodes logging in two keys
// that want one name at the same moment cannot both get it: the loser's
// insert does nothing and it moves on to the next candidate.
func (s *Store) Login(ctx context.Context, fingerprint, keyType, sshUser string) (store.Player, bool, error) {
	if err := store.CheckFingerprint(fingerprint); err != nil {
		return store.Player{}, false, fmt.Errorf("store: login: %w", err)
	}
	now := s.clock()
	p, err := s.touch(ctx, fingerprint, now)
	if err == nil {
		return p, false, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		err = classify(err)
		if errors.Is(err, store.ErrCannotSave) {
			// As on bbolt, last_seen is best effort: a known player still
			// logs in while the database refuses writes but reads.
			if known, rerr := s.PlayerByFingerprint(ctx, fingerprint); rerr == nil {
				return known, false, nil
			}
		}
		return store.Player{}, false, fmt.Errorf("store: login %s: %w", fingerprint, err)
	}
	p, created, err := s.create(ctx, fingerprint, store.CleanKeyType(keyType), sshUser, now)
	if err != nil {
		return store.Player{}, false, fmt.Errorf("store: login %s: %w", fingerprint, classify(err))
	}
	return p, created, nil
}

// touch sets a known player's last_seen; pgx.ErrNoRows for a new key.
func (s *Store) touch(ctx context.Context, fp string, now time.Time) (store.Player, error) {
	return scanPlayer(s.pool.QueryRow(ctx,
		"UPDATE players SET last_seen = $2 WHERE fingerprint = $1 RETURNING "+playerCols, fp, now))
}

func (s *Store) create(ctx context.Context, fp, keyType, sshUser string, now time.Time) (store.Player, bool, error) {
	next, stop := iter.Pull(store.NameCandidates(sshUser, fp))
	defer stop()
	for size := firstBatch; ; size *= 8 {
		var batch []string
		for len(batch) < size {
			n, ok := next()
			if !ok {
				break
			}
			batch = append(batch, n)
		}
		if len(batch) == 0 {
			return store.Player{}, false, fmt.Errorf("no free name for %s", fp)
		}
		for len(batch) > 0 {
			var i int
			err := s.pool.QueryRow(ctx, `SELECT i FROM unnest($1::text[]) WITH ORDINALITY AS c(name, i)
				WHERE NOT EXISTS (SELECT 1 FROM players p WHERE p.name = c.name) ORDER BY i LIMIT 1`, batch).Scan(&i)
			if errors.Is(err, pgx.ErrNoRows) {
				break // all taken: the next, bigger batch
			}
			if err != nil {
				return store.Player{}, false, err
			}
			name := batch[i-1]
			batch = batch[i:]
			// ON CONFLICT DO NOTHING covers both unique indexes: the name
			// went to someone else since the look-up, or this very key
			// logged in on another node; the look-up below tells which.
			p, err := scanPlayer(s.pool.QueryRow(ctx, `INSERT INTO players (fingerprint, name, key_type, first_seen, last_seen)
				VALUES ($1, $2, $3, $4, $4) ON CONFLICT DO NOTHING RETURNING `+playerCols, fp, name, keyType, now))
			if err == nil {
				return p, true, nil
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return store.Player{}, false, err
			}
			if p, err := s.touch(ctx, fp, now); err == nil {
				return p, false, nil
			} else if !errors.Is(err, pgx.ErrNoRows) {
				return store.Player{}, false, err
			}
		}
	}
}

// PlayerByFingerprint returns the player with that key, or ErrNotFound.
func (s *Store) PlayerByFingerprint(ctx context.Context, fp string) (store.Player, error) {
	p, err := scanPlayer(s.pool.QueryRow(ctx, "SELECT "+playerCols+" FROM players WHERE fingerprint = $1", fp))
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("fingerprint %q: %w", fp, store.ErrNotFound)
	}
	if err != nil {
		return store.Player{}, fmt.Errorf("store: player by fingerprint: %w", classify(err))
	}
	return p, nil
}

// PlayerByName returns the player holding name, compared
// case-insensitively, or ErrNotFound.
func (s *Store) PlayerByName(ctx context.Context, name string) (store.Player, error) {
	if len(name) > store.MaxNameInput {
		return store.Player{}, fmt.Errorf("store: player by name: %w", store.ErrNotFound)
	}
	n := store.NormalizeName(name)
	p, err := scanPlayer(s.pool.QueryRow(ctx, "SELECT "+playerCols+" FROM players WHERE name = $1", n))
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("name %q: %w", n, store.ErrNotFound)
	}
	if err != nil {
		return store.Player{}, fmt.Errorf("store: player by name: %w", classify(err))
	}
	return p, nil
}

// Rename gives fp the name newName (normalised), once per every, with its
// audit entry, in one transaction; the unique index settles two players
// taking one name at once (the second gets ErrNameTaken). Renaming to the
// name one has writes nothing.
func (s *Store) Rename(ctx context.Context, fp, newName string, every time.Duration) (store.Player, error) {
	if err := store.ValidateName(newName); err != nil {
		return store.Player{}, err
	}
	n := store.NormalizeName(newName)
	now := s.clock()
	var p store.Player
	err := s.write(ctx, func(tx pgx.Tx) error {
		var renamed *time.Time
		var err error
		row := tx.QueryRow(ctx, "SELECT "+playerCols+", renamed FROM players WHERE fingerprint = $1 FOR UPDATE", fp)
		if err = row.Scan(&p.Fingerprint, &p.Name, &p.KeyType, &p.FirstSeen, &p.LastSeen, &p.Role, &renamed); errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("fingerprint %q: %w", fp, store.ErrNotFound)
		} else if err != nil {
			return err
		}
		p.FirstSeen, p.LastSeen = p.FirstSeen.UTC(), p.LastSeen.UTC()
		if p.Name == n {
			return nil
		}
		var holder string
		if err := tx.QueryRow(ctx, "SELECT fingerprint FROM players WHERE name = $1", n).Scan(&holder); err == nil {
			return fmt.Errorf("%q: %w", n, store.ErrNameTaken)
		} else if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if last := fromNull(renamed); every > 0 && !last.IsZero() && now.Before(last.Add(every)) {
			return &store.RenameTooSoonError{Next: last.Add(every)}
		}
		if _, err := tx.Exec(ctx, "UPDATE players SET name = $2, renamed = $3 WHERE fingerprint = $1", fp, n, now); err != nil {
			if _, ok := uniqueViolation(err); ok {
				return fmt.Errorf("%q: %w", n, store.ErrNameTaken)
			}
			return err
		}
		old := p.Name
		p.Name = n
		return appendAudit(ctx, tx, store.AuditEntry{Time: now, Actor: old, Action: store.ActionRename, Target: n, TargetID: fp, Reason: "was " + old})
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("store: rename to %q: %w", n, err)
	}
	return p, nil
}

// CountPlayers reports how many keyed players the store knows.
func (s *Store) CountPlayers(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM players").Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count players: %w", classify(err))
	}
	return n, nil
}

// Profile is the player with their ratings and newest matches.
func (s *Store) Profile(ctx context.Context, fp string) (store.Profile, error) {
	p, err := s.PlayerByFingerprint(ctx, fp)
	if err != nil {
		return store.Profile{}, err
	}
	return store.ProfileOf(ctx, s, p)
}

// ProfileByName is Profile of the player holding name.
func (s *Store) ProfileByName(ctx context.Context, name string) (store.Profile, error) {
	p, err := s.PlayerByName(ctx, name)
	if err != nil {
		return store.Profile{}, err
	}
	return store.ProfileOf(ctx, s, p)
}
