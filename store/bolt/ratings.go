package bolt

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

const (
	bucketRatings = "ratings"

	// ratingVersion is the "v" of a rating record: 2 since Glicko-2 (the
	// deviation and volatility); version 1 records, Elo's, are rewritten
	// by migration 5 and never read otherwise.
	ratingVersion = 2
)

// ratingRecord is the stored form under ratings/<mode>\x00<fingerprint>.
// Mode and fingerprint are the key; the name lives in players so a rename
// never has to touch every rating.
type ratingRecord struct {
	V          int       `json:"v"`
	Rating     float64   `json:"rating"`
	Deviation  float64   `json:"deviation"`  // since v2
	Volatility float64   `json:"volatility"` // since v2
	Games      int       `json:"games"`
	Wins       int       `json:"wins"`
	Losses     int       `json:"losses"`
	Draws      int       `json:"draws"`
	Updated    time.Time `json:"updated"`
	// Reached2400 was Elo's sticky K=10 flag (v1 only); Glicko-2's
	// deviation does its job, so migration 5 drops it.
	Reached2400 bool `json:"reached_2400,omitempty"`
}

func (r ratingRecord) rating(mode, fp string) store.Rating {
	return store.Rating{
		Mode:        mode,
		Fingerprint: fp,
		Rating:      r.Rating,
		Deviation:   r.Deviation,
		Volatility:  r.Volatility,
		Games:       r.Games,
		Wins:        r.Wins,
		Losses:      r.Losses,
		Draws:       r.Draws,
		Updated:     r.Updated,
	}
}

// ratingKey is mode, a zero byte, then the fingerprint. Neither part may
// contain a byte below '!' (checkMode, checkFingerprint), so the split is
// unambiguous and all of a mode's ratings form one contiguous key range.
func ratingKey(mode, fp string) []byte {
	k := make([]byte, 0, len(mode)+1+len(fp))
	k = append(k, mode...)
	k = append(k, 0)
	return append(k, fp...)
}

func modePrefix(mode string) []byte { return append([]byte(mode), 0) }

// Rating returns the player's rating in mode; a player with no rated game
// yet gets InitialRating and zero games with found=false (not an error).
// Name is the player's current name, or "" if fp is not a known player.
func (s *Store) Rating(ctx context.Context, mode, fp string) (r store.Rating, found bool, err error) {
	if err := store.CheckMode(mode); err != nil {
		return store.Rating{}, false, fmt.Errorf("store: rating: %w", err)
	}
	if err := store.CheckFingerprint(fp); err != nil {
		return store.Rating{}, false, fmt.Errorf("store: rating: %w", err)
	}
	err = s.view(ctx, func(tx *bbolt.Tx) error {
		ratings, players, err := ratingBuckets(tx)
		if err != nil {
			return err
		}
		r, found, err = loadRating(ratings, players, mode, fp)
		return err
	})
	if err != nil {
		return store.Rating{}, false, fmt.Errorf("store: rating %s %s: %w", mode, fp, err)
	}
	return r, found, nil
}

// Ratings returns every mode the player has a rating in (for the profile),
// sorted by mode; none is an empty result, not an error.
func (s *Store) Ratings(ctx context.Context, fp string) ([]store.Rating, error) {
	if err := store.CheckFingerprint(fp); err != nil {
		return nil, fmt.Errorf("store: ratings: %w", err)
	}
	var out []store.Rating
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		ratings, players, err := ratingBuckets(tx)
		if err != nil {
			return err
		}
		name, _, err := playerName(players, fp)
		if err != nil {
			return err
		}
		// Keys lead with the mode, so instead of reading every rating the
		// loop visits each mode once: look up this player's key, then seek
		// past the whole mode. That is one lookup per mode, and modes are
		// few. Keys come in mode order, so the result is already sorted.
		c := ratings.Cursor()
		for k, _ := c.First(); k != nil; {
			i := bytes.IndexByte(k, 0)
			if i < 0 {
				return fmt.Errorf("ratings key %q has no mode separator", k)
			}
			mode := string(k[:i])
			if raw := ratings.Get(ratingKey(mode, fp)); raw != nil {
				rec, err := decodeRating(raw)
				if err != nil {
					return err
				}
				r := rec.rating(mode, fp)
				r.Name = name
				out = append(out, r)
			}
			k, _ = c.Seek(append([]byte(mode), 1))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: ratings %s: %w", fp, err)
	}
	return out, nil
}

// Leaderboard lists the rated players of mode, best first, with Name
// filled in; limit<=0 means 20 and more than 1000 means 1000. A rating
// whose player no longer exists is skipped.
//
// Order (compareStanding): higher rating first, compared unrounded, so two
// players shown with the same rounded rating may still be ordered by the
// fraction; on an exactly equal rating, more rated games first (the rating
// is better established); then name ascending; then fingerprint, which only
// matters for a damaged index, so the order is always total and stable.
//
// It reads and sorts every rating of the mode, O(N log N) per call. That
// is fine for thousands of players; past that, keep a rating-ordered index
// bucket updated in RecordMatch's transaction. offset skips that many from
// the top (a page further down).
func (s *Store) Leaderboard(ctx context.Context, mode string, offset, limit int) ([]store.Rating, error) {
	offset, limit = max(offset, 0), store.ClampLimit(limit)
	all, err := s.Standings(ctx, mode)
	if err != nil {
		return nil, err
	}
	all = all[min(offset, len(all)):]
	// Clone so the caller does not pin the whole mode's slice.
	return slices.Clone(all[:min(limit, len(all))]), nil
}

// Standings is every rated player of mode in Leaderboard's order, with no
// limit: what a rank ("12th of 340") and a player's neighbours are read
// from, and what a reader filters (established players only) before
// cutting a leaderboard.
func (s *Store) Standings(ctx context.Context, mode string) ([]store.Rating, error) {
	if err := store.CheckMode(mode); err != nil {
		return nil, fmt.Errorf("store: leaderboard: %w", err)
	}
	var all []store.Rating
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		ratings, players, err := ratingBuckets(tx)
		if err != nil {
			return err
		}
		prefix := modePrefix(mode)
		c := ratings.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			fp := string(k[len(prefix):])
			name, ok, err := playerName(players, fp)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			rec, err := decodeRating(v)
			if err != nil {
				return err
			}
			r := rec.rating(mode, fp)
			r.Name = name
			all = append(all, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: leaderboard %s: %w", mode, err)
	}
	slices.SortFunc(all, compareStanding)
	return all, nil
}

// compareStanding is the leaderboard order; see Leaderboard.
func compareStanding(a, b store.Rating) int {
	if c := cmp.Compare(b.Rating, a.Rating); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Games, a.Games); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Fingerprint, b.Fingerprint)
}

func ratingBuckets(tx *bbolt.Tx) (ratings, players *bbolt.Bucket, err error) {
	ratings = tx.Bucket([]byte(bucketRatings))
	players = tx.Bucket([]byte(bucketPlayers))
	if ratings == nil || players == nil {
		// Open's migrations create both, so this means the file was
		// altered behind our back.
		return nil, nil, fmt.Errorf("bucket %s or %s missing", bucketRatings, bucketPlayers)
	}
	return ratings, players, nil
}

// loadRating returns the stored rating, or a fresh one at InitialRating
// with found=false, with Name filled from players either way.
func loadRating(ratings, players *bbolt.Bucket, mode, fp string) (r store.Rating, found bool, err error) {
	r = store.NewRating(mode, fp)
	if raw := ratings.Get(ratingKey(mode, fp)); raw != nil {
		rec, err := decodeRating(raw)
		if err != nil {
			return store.Rating{}, false, err
		}
		r, found = rec.rating(mode, fp), true
	}
	if r.Name, _, err = playerName(players, fp); err != nil {
		return store.Rating{}, false, err
	}
	return r, found, nil
}

// playerName reports ok=false, not an error, for an unknown fingerprint: a
// leaderboard or a profile must not fail because one player record is gone.
func playerName(players *bbolt.Bucket, fp string) (name string, ok bool, err error) {
	raw := players.Get([]byte(fp))
	if raw == nil {
		return "", false, nil
	}
	rec, err := decodePlayer(raw)
	if err != nil {
		return "", false, fmt.Errorf("player %s: %w", fp, err)
	}
	return rec.Name, true, nil
}

// decodeRating keeps nothing that points into raw (bbolt's memory). Only
// the current version is read: migration 5 rewrote every older one.
func decodeRating(raw []byte) (ratingRecord, error) {
	var rec ratingRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return ratingRecord{}, fmt.Errorf("decode rating: %w", err)
	}
	if rec.V != ratingVersion {
		return ratingRecord{}, fmt.Errorf("decode rating: unknown record version %d", rec.V)
	}
	return rec, nil
}

func putRating(ratings *bbolt.Bucket, r store.Rating) error {
	raw, err := json.Marshal(ratingRecord{
		V:          ratingVersion,
		Rating:     r.Rating,
		Deviation:  r.Deviation,
		Volatility: r.Volatility,
		Games:      r.Games,
		Wins:       r.Wins,
		Losses:     r.Losses,
		Draws:      r.Draws,
		Updated:    r.Updated,
	})
	if err != nil {
		return fmt.Errorf("encode rating: %w", err)
	}
	if err := ratings.Put(ratingKey(r.Mode, r.Fingerprint), raw); err != nil {
		return fmt.Errorf("write rating: %w", err)
	}
	return nil
}
