package bolt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

// playerRecord is the stored form under players/<fingerprint>. The
// fingerprint is the key, so it is not repeated in the value.
type playerRecord struct {
	V         int       `json:"v"`
	Name      string    `json:"name"`
	KeyType   string    `json:"key_type,omitempty"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	Role      string    `json:"role,omitempty"`
	// Renamed is when the player last chose a new name with rename; zero
	// if never (the field came with rename: older records lack it).
	Renamed time.Time `json:"renamed,omitzero"`
}

func (r playerRecord) player(fp string) store.Player {
	return store.Player{
		Fingerprint: fp,
		Name:        r.Name,
		KeyType:     r.KeyType,
		FirstSeen:   r.FirstSeen,
		LastSeen:    r.LastSeen,
		Role:        r.Role,
	}
}

// Login records a keyed player's visit. On first sight it creates the player
// and reports created; afterwards it only moves LastSeen, never the name.
//
// A new player's name is the first free one of: the SSH user name if it is a
// valid name; a form derived from it (only [a-z0-9_-], at most 11
// characters) then with -2, -3, …; player-xxxx (hex from the fingerprint)
// then with -2, -3, …. A reserved user name such as "root" goes straight to
// player-xxxx. See nameCandidates.
//
// Picking the name and claiming it happen in one write transaction, so
// concurrent first logins can never end up sharing a name.
//
// When the file cannot take the write (ErrCannotSave: a full disk), a
// known player still logs in, with the LastSeen saved before; a new one
// gets an error matching ErrCannotSave.
func (s *Store) Login(ctx context.Context, fingerprint, keyType, sshUser string) (p store.Player, created bool, err error) {
	if err := store.CheckFingerprint(fingerprint); err != nil {
		return store.Player{}, false, fmt.Errorf("store: login: %w", err)
	}
	// UTC, and no monotonic reading, so what Login returns equals what a
	// later read decodes.
	now := s.now().UTC()
	// Every login writes (LastSeen), so a login storm is a write storm:
	// Batch lets concurrent logins share one transaction and one fsync.
	// bbolt may run this function again on its own if another in the
	// batch fails; it only reads the store and sets p and created, so a
	// rerun is harmless.
	err = s.batch(ctx, func(tx *bbolt.Tx) error {
		players, names, err := playerBuckets(tx)
		if err != nil {
			return err
		}
		key := []byte(fingerprint)
		if raw := players.Get(key); raw != nil {
			rec, err := decodePlayer(raw)
			if err != nil {
				return err
			}
			rec.LastSeen = now
			if err := putPlayer(players, key, rec); err != nil {
				return err
			}
			p, created = rec.player(fingerprint), false
			return nil
		}
		name, err := freeName(names, sshUser, fingerprint)
		if err != nil {
			return err
		}
		rec := playerRecord{
			V:         recordVersion,
			Name:      name,
			KeyType:   store.CleanKeyType(keyType),
			FirstSeen: now,
			LastSeen:  now,
		}
		if err := names.Put([]byte(name), key); err != nil {
			return fmt.Errorf("index name: %w", err)
		}
		if err := putPlayer(players, key, rec); err != nil {
			return err
		}
		p, created = rec.player(fingerprint), true
		return nil
	})
	if errors.Is(err, store.ErrCannotSave) {
		// LastSeen is best effort: a known player logs in on a full disk
		// (admins too, who have the tools for that moment), keeping the
		// LastSeen already saved. A new player cannot be created without a
		// write, and gets the error.
		if known, rerr := s.PlayerByFingerprint(ctx, fingerprint); rerr == nil {
			return known, false, nil
		}
	}
	if err != nil {
		return store.Player{}, false, fmt.Errorf("store: login %s: %w", fingerprint, err)
	}
	return p, created, nil
}

func freeName(names *bbolt.Bucket, sshUser, fingerprint string) (string, error) {
	for n := range store.NameCandidates(sshUser, fingerprint) {
		if names.Get([]byte(n)) == nil {
			return n, nil
		}
	}
	return "", fmt.Errorf("no free name for %s", fingerprint)
}

// PlayerByFingerprint returns the player with that key, or ErrNotFound.
func (s *Store) PlayerByFingerprint(ctx context.Context, fp string) (store.Player, error) {
	var p store.Player
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		players, _, err := playerBuckets(tx)
		if err != nil {
			return err
		}
		p, err = getPlayer(players, fp)
		return err
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("store: player by fingerprint: %w", err)
	}
	return p, nil
}

// PlayerByName returns the player holding name, compared case-insensitively,
// or ErrNotFound.
func (s *Store) PlayerByName(ctx context.Context, name string) (store.Player, error) {
	if len(name) > store.MaxNameInput {
		return store.Player{}, fmt.Errorf("store: player by name: %w", store.ErrNotFound)
	}
	n := store.NormalizeName(name)
	var p store.Player
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		players, names, err := playerBuckets(tx)
		if err != nil {
			return err
		}
		fp := names.Get([]byte(n))
		if fp == nil {
			return fmt.Errorf("name %q: %w", n, store.ErrNotFound)
		}
		p, err = getPlayer(players, string(fp))
		if err != nil {
			return fmt.Errorf("name %q: index points at a missing player: %w", n, err)
		}
		return nil
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("store: player by name: %w", err)
	}
	return p, nil
}

// Rename gives the player with fingerprint fp the name newName (normalised)
// and records it in the audit log, in one transaction. A player may rename
// once per every; every <= 0 means no limit. An invalid name returns
// ValidateName's error unwrapped, so its message can be shown to the
// player; a name held by someone else returns an error matching
// ErrNameTaken; a rename within every of the last one a
// *RenameTooSoonError; an unknown fp, ErrNotFound. The old name is freed.
// Renaming to the name one has is not an error and writes nothing.
func (s *Store) Rename(ctx context.Context, fp, newName string, every time.Duration) (store.Player, error) {
	if err := store.ValidateName(newName); err != nil {
		return store.Player{}, err
	}
	n := store.NormalizeName(newName)
	now := s.now().UTC()
	var p store.Player
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		mb, err := modBuckets(tx)
		if err != nil {
			return err
		}
		players, names := mb.players, mb.names
		key := []byte(fp)
		raw := players.Get(key)
		if raw == nil {
			return fmt.Errorf("fingerprint %q: %w", fp, store.ErrNotFound)
		}
		rec, err := decodePlayer(raw)
		if err != nil {
			return err
		}
		if rec.Name == n {
			p = rec.player(fp)
			return nil
		}
		if holder := names.Get([]byte(n)); holder != nil && string(holder) != fp {
			return fmt.Errorf("%q: %w", n, store.ErrNameTaken)
		}
		if next := rec.Renamed.Add(every); every > 0 && !rec.Renamed.IsZero() && now.Before(next) {
			return &store.RenameTooSoonError{Next: next}
		}
		// Only drop the old entry if it is really ours, so a damaged index
		// is never made worse by deleting someone else's name.
		if holder := names.Get([]byte(rec.Name)); holder != nil && string(holder) == fp {
			if err := names.Delete([]byte(rec.Name)); err != nil {
				return fmt.Errorf("free old name: %w", err)
			}
		}
		if err := names.Put([]byte(n), key); err != nil {
			return fmt.Errorf("index name: %w", err)
		}
		old := rec.Name
		rec.Name, rec.Renamed = n, now
		if err := putPlayer(players, key, rec); err != nil {
			return err
		}
		p = rec.player(fp)
		return appendAudit(mb.audit, store.AuditEntry{Time: now, Actor: old, Action: store.ActionRename, Target: n, TargetID: fp, Reason: "was " + old})
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("store: rename to %q: %w", n, err)
	}
	return p, nil
}

// CountPlayers reports how many keyed players the store knows.
func (s *Store) CountPlayers(ctx context.Context) (int, error) {
	var n int
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		players, _, err := playerBuckets(tx)
		if err != nil {
			return err
		}
		n = players.Stats().KeyN
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: count players: %w", err)
	}
	return n, nil
}

func playerBuckets(tx *bbolt.Tx) (players, names *bbolt.Bucket, err error) {
	players = tx.Bucket([]byte(bucketPlayers))
	names = tx.Bucket([]byte(bucketNames))
	if players == nil || names == nil {
		// Open's migrations create both, so this means the file was
		// altered behind our back.
		return nil, nil, fmt.Errorf("bucket %s or %s missing", bucketPlayers, bucketNames)
	}
	return players, names, nil
}

func getPlayer(players *bbolt.Bucket, fp string) (store.Player, error) {
	raw := players.Get([]byte(fp))
	if raw == nil {
		return store.Player{}, fmt.Errorf("fingerprint %q: %w", fp, store.ErrNotFound)
	}
	rec, err := decodePlayer(raw)
	if err != nil {
		return store.Player{}, err
	}
	return rec.player(fp), nil
}

// decodePlayer copies everything it keeps out of raw (json.Unmarshal
// allocates its strings), which matters because raw is bbolt's memory and
// is only valid until the transaction ends.
func decodePlayer(raw []byte) (playerRecord, error) { return decodeRecord[playerRecord](raw, "player") }

func (r playerRecord) version() int { return r.V }

func putPlayer(players *bbolt.Bucket, key []byte, rec playerRecord) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode player: %w", err)
	}
	if err := players.Put(key, raw); err != nil {
		return fmt.Errorf("write player: %w", err)
	}
	return nil
}
