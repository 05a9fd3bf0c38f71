package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

const (
	bucketMatches       = "matches"
	bucketPlayerMatches = "player_matches"
	// bucketMatchKeys maps a match end's Key to its match id (big-endian),
	// so a second end of the same match writes nothing.
	bucketMatchKeys = "match_keys"
)

// Test hook stages, in the order RecordMatch passes them.
const (
	stageMatch   = "match"   // the match record is written
	stageIndex   = "index"   // the player_matches entries are written
	stageRatings = "ratings" // the new ratings are written (rated matches only)
	stageLeaves  = "leaves"  // the leave records are written (when there are any)
)

// matchRecord is the stored form under matches/<big-endian id>; the id is
// the key.
type matchRecord struct {
	V        int                 `json:"v"`
	Mode     string              `json:"mode"`
	Ranked   bool                `json:"ranked,omitempty"`
	Aborted  bool                `json:"aborted,omitempty"`
	Forfeit  bool                `json:"forfeit,omitempty"`
	Room     string              `json:"room,omitempty"`
	Start    time.Time           `json:"start"`
	Duration time.Duration       `json:"duration_ns"`
	Players  []matchPlayerRecord `json:"players"`
	Replay   bool                `json:"replay,omitempty"`
}

type matchPlayerRecord struct {
	Fingerprint  string  `json:"fp,omitempty"`
	Name         string  `json:"name,omitempty"`
	Slot         int     `json:"slot"`
	Team         int     `json:"team"`
	Place        int     `json:"place"`
	Score        int     `json:"score"`
	RatingBefore float64 `json:"rating_before"`
	RatingAfter  float64 `json:"rating_after"`
	Left         bool    `json:"left,omitempty"`
	// Added without a version bump: older records lack it and read as 0,
	// unknown, which MatchPlayer documents.
	GamesAfter int `json:"games_after,omitempty"`
	// Added without a version bump likewise: 0 means an Elo-era record.
	DeviationBefore float64 `json:"deviation_before,omitempty"`
	DeviationAfter  float64 `json:"deviation_after,omitempty"`
}

func newMatchRecord(m store.MatchRecord) matchRecord {
	rec := matchRecord{
		V:        recordVersion,
		Mode:     m.Mode,
		Ranked:   m.Ranked,
		Aborted:  m.Aborted,
		Forfeit:  m.Forfeit,
		Room:     m.Room,
		Start:    m.Start,
		Duration: m.Duration,
		Players:  make([]matchPlayerRecord, len(m.Players)),
		Replay:   m.Replay,
	}
	for i, p := range m.Players {
		rec.Players[i] = matchPlayerRecord(p)
	}
	return rec
}

func (r matchRecord) match(id uint64) store.MatchRecord {
	m := store.MatchRecord{
		ID:       id,
		Mode:     r.Mode,
		Ranked:   r.Ranked,
		Aborted:  r.Aborted,
		Forfeit:  r.Forfeit,
		Room:     r.Room,
		Start:    r.Start,
		Duration: r.Duration,
		Players:  make([]store.MatchPlayer, len(r.Players)),
		Replay:   r.Replay,
	}
	for i, p := range r.Players {
		m.Players[i] = store.MatchPlayer(p)
	}
	return m
}

// matchKey is big-endian so byte order is id order: cursors walk matches
// oldest to newest, and player_matches sorts each player's history.
func matchKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// playerMatchKey is fingerprint, a zero byte, then matchKey(id). The zero
// byte keeps "SHA256:ab" from reading "SHA256:abc"'s entries.
func playerMatchKey(fp string, id uint64) []byte {
	k := make([]byte, 0, len(fp)+1+8)
	k = append(k, fp...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint64(k, id)
}

// RecordMatch writes everything end carries in one transaction: the match
// record, its replay, its player_matches entries, for a ranked match that
// was not aborted every player's new rating (end.Rate over the ratings
// read in the same transaction), and the leave records. A crash, a full
// disk or a ctx cancelled before the commit can never leave ratings
// without their match, a match without its replay or strikes, or the
// other way round. See store.MatchEnd for Rate's contract: because bbolt
// has a single writer, Rate must not call the Store (it would deadlock).
//
// For an unranked or aborted match Rate is not called (it may be nil) and
// no rating changes. RatingBefore/After are filled from the current ratings
// either way. Guests (empty Fingerprint) are allowed in unranked matches;
// they get no history entry.
//
// It returns the record as stored, which Match and Matches return too.
func (s *Store) RecordMatch(ctx context.Context, end store.MatchEnd) (store.MatchRecord, error) {
	m, err := prepareMatch(end.Match)
	if err != nil {
		return store.MatchRecord{}, fmt.Errorf("store: record match: %w", err)
	}
	// bbolt keeps a reference to a value until commit: a copy, so the
	// caller may reuse its buffer.
	replay := bytes.Clone(end.Replay)
	if len(replay) > store.MaxReplayLen {
		return store.MatchRecord{}, fmt.Errorf("store: record match: replay of %d bytes, at most %d", len(replay), store.MaxReplayLen)
	}
	leaves := make(map[string][]byte, len(end.Leaves))
	for fp, l := range end.Leaves {
		raw, err := encodeLeaves(fp, l)
		if err != nil {
			return store.MatchRecord{}, fmt.Errorf("store: record match: %w", err)
		}
		leaves[fp] = raw
	}
	rated := m.Ranked && !m.Aborted
	if rated && end.Rate == nil {
		return store.MatchRecord{}, fmt.Errorf("store: record %s match: ranked match needs a rate func", m.Mode)
	}
	if len(end.Key) > store.MaxMatchKeyLen {
		return store.MatchRecord{}, fmt.Errorf("store: record match: key of %d bytes, at most %d", len(end.Key), store.MaxMatchKeyLen)
	}
	now := s.now().UTC()
	var already uint64 // the id stored under end.Key before this call
	err = s.update(ctx, func(tx *bbolt.Tx) error {
		b, err := matchBuckets(tx)
		if err != nil {
			return err
		}
		var keys *bbolt.Bucket
		if end.Key != "" {
			if keys, err = tx.CreateBucketIfNotExists([]byte(bucketMatchKeys)); err != nil {
				return fmt.Errorf("bucket %s: %w", bucketMatchKeys, err)
			}
			if v := keys.Get([]byte(end.Key)); len(v) == 8 {
				already = binary.BigEndian.Uint64(v)
				return nil
			}
		}
		current := make([]store.Rating, len(m.Players))
		for i, p := range m.Players {
			if p.Fingerprint == "" {
				current[i] = store.NewRating(m.Mode, "")
				continue
			}
			if current[i], _, err = loadRating(b.ratings, b.players, m.Mode, p.Fingerprint); err != nil {
				return err
			}
			if p.Name == "" {
				m.Players[i].Name = current[i].Name
			}
		}
		next := current
		if rated {
			// A clone, so a rate that edits its argument in place cannot
			// change the "before" values recorded below.
			if next, err = end.Rate(slices.Clone(current)); err != nil {
				return fmt.Errorf("rate: %w", err)
			}
			if err := checkRated(m.Mode, current, next); err != nil {
				return err
			}
		}
		for i := range m.Players {
			m.Players[i].RatingBefore = current[i].Rating
			m.Players[i].RatingAfter = next[i].Rating
			if m.Players[i].Fingerprint != "" {
				m.Players[i].GamesAfter = next[i].Games
				m.Players[i].DeviationBefore = current[i].Deviation
				m.Players[i].DeviationAfter = next[i].Deviation
			}
		}

		if m.ID, err = b.matches.NextSequence(); err != nil {
			return fmt.Errorf("next match id: %w", err)
		}
		if len(replay) > 0 {
			replays := tx.Bucket([]byte(bucketReplays))
			if replays == nil {
				return fmt.Errorf("bucket %s missing", bucketReplays)
			}
			if err := replays.Put(matchKey(m.ID), replay); err != nil {
				return fmt.Errorf("write replay of match %d: %w", m.ID, err)
			}
			m.Replay = true
		}
		raw, err := json.Marshal(newMatchRecord(m))
		if err != nil {
			return fmt.Errorf("encode match: %w", err)
		}
		if err := b.matches.Put(matchKey(m.ID), raw); err != nil {
			return fmt.Errorf("write match %d: %w", m.ID, err)
		}
		if keys != nil {
			if err := keys.Put([]byte(end.Key), matchKey(m.ID)); err != nil {
				return fmt.Errorf("write key of match %d: %w", m.ID, err)
			}
		}
		if err := s.testFail(stageMatch); err != nil {
			return err
		}
		for _, p := range m.Players {
			if p.Fingerprint == "" {
				continue
			}
			if err := b.index.Put(playerMatchKey(p.Fingerprint, m.ID), []byte{}); err != nil {
				return fmt.Errorf("index match %d for %s: %w", m.ID, p.Fingerprint, err)
			}
		}
		if err := s.testFail(stageIndex); err != nil {
			return err
		}
		if rated {
			for _, r := range next {
				r.Updated = now
				if err := putRating(b.ratings, r); err != nil {
					return fmt.Errorf("%s: %w", r.Fingerprint, err)
				}
			}
			if err := s.testFail(stageRatings); err != nil {
				return err
			}
		}
		if len(leaves) > 0 {
			lb := tx.Bucket([]byte(bucketLeaves))
			if lb == nil {
				return fmt.Errorf("bucket %s missing", bucketLeaves)
			}
			for fp, raw := range leaves {
				if err := lb.Put([]byte(fp), raw); err != nil {
					return fmt.Errorf("write leaves of %s: %w", fp, err)
				}
			}
			if err := s.testFail(stageLeaves); err != nil {
				return err
			}
		}
		// The last moment a caller that gave up can still stop it: bbolt
		// takes no context, so nothing above is undone unless we ask.
		return ctx.Err()
	})
	if err != nil {
		return store.MatchRecord{}, fmt.Errorf("store: record %s match: %w", m.Mode, err)
	}
	if already != 0 {
		return s.Match(ctx, already)
	}
	return m, nil
}

// prepareMatch validates m and returns a copy the caller no longer shares:
// its own Players slice, Start in UTC without a monotonic reading (so what
// RecordMatch returns equals what Match decodes later).
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
	m.Start = m.Start.UTC()
	return m, nil
}

// checkRated holds rate's result to the promise RecordMatch makes: one
// finite rating per player, in order, in the match's mode.
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

// testFail lets tests fail RecordMatch's transaction after a given stage.
func (s *Store) testFail(stage string) error {
	if s.failAfter == nil {
		return nil
	}
	return s.failAfter(stage)
}

// Match returns the match with that id, or an error matching ErrNotFound.
func (s *Store) Match(ctx context.Context, id uint64) (store.MatchRecord, error) {
	var m store.MatchRecord
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		b, err := matchBuckets(tx)
		if err != nil {
			return err
		}
		m, err = getMatch(b.matches, id)
		return err
	})
	if err != nil {
		return store.MatchRecord{}, fmt.Errorf("store: match %d: %w", id, err)
	}
	return m, nil
}

// Matches returns the player's matches, newest first; limit<=0 means 20
// and more than 1000 means 1000. A player with none gets an empty result.
func (s *Store) Matches(ctx context.Context, fp string, limit int) ([]store.MatchRecord, error) {
	if err := store.CheckFingerprint(fp); err != nil {
		return nil, fmt.Errorf("store: matches: %w", err)
	}
	limit = store.ClampLimit(limit)
	var out []store.MatchRecord
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		b, err := matchBuckets(tx)
		if err != nil {
			return err
		}
		prefix := append([]byte(fp), 0)
		// Every key of this player sorts below fp+"\x01", so the entry
		// just before it is the newest; walk back from there.
		c := b.index.Cursor()
		k, _ := c.Seek(append([]byte(fp), 1))
		if k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, _ = c.Prev() {
			idb := k[len(prefix):]
			if len(idb) != 8 {
				return fmt.Errorf("%s key %q: bad length", bucketPlayerMatches, k)
			}
			id := binary.BigEndian.Uint64(idb)
			m, err := getMatch(b.matches, id)
			if err != nil {
				return fmt.Errorf("indexed match %d: %w", id, err)
			}
			out = append(out, m)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: matches of %s: %w", fp, err)
	}
	return out, nil
}

// RecentMatches returns the server's newest matches, whoever played them,
// newest first; keep filters them (nil keeps all) and limit bounds what is
// kept, as in Matches. It reads newest first and stops once limit are kept,
// so a listing that skips most records (pruned replays) reads only what it
// shows and what it skipped.
func (s *Store) RecentMatches(ctx context.Context, limit int, keep func(store.MatchRecord) bool) ([]store.MatchRecord, error) {
	limit = store.ClampLimit(limit)
	var out []store.MatchRecord
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		b, err := matchBuckets(tx)
		if err != nil {
			return err
		}
		c := b.matches.Cursor()
		for k, v := c.Last(); k != nil && len(out) < limit; k, v = c.Prev() {
			if len(k) != 8 {
				return fmt.Errorf("%s key %q: bad length", bucketMatches, k)
			}
			rec, err := decodeMatch(v)
			if err != nil {
				return fmt.Errorf("match %d: %w", binary.BigEndian.Uint64(k), err)
			}
			if m := rec.match(binary.BigEndian.Uint64(k)); keep == nil || keep(m) {
				out = append(out, m)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: recent matches: %w", err)
	}
	return out, nil
}

type matchBucketSet struct {
	matches, index, ratings, players *bbolt.Bucket
}

func matchBuckets(tx *bbolt.Tx) (matchBucketSet, error) {
	b := matchBucketSet{
		matches: tx.Bucket([]byte(bucketMatches)),
		index:   tx.Bucket([]byte(bucketPlayerMatches)),
		ratings: tx.Bucket([]byte(bucketRatings)),
		players: tx.Bucket([]byte(bucketPlayers)),
	}
	if b.matches == nil || b.index == nil || b.ratings == nil || b.players == nil {
		// Open's migrations create all four, so this means the file was
		// altered behind our back.
		return matchBucketSet{}, fmt.Errorf("bucket %s, %s, %s or %s missing",
			bucketMatches, bucketPlayerMatches, bucketRatings, bucketPlayers)
	}
	return b, nil
}

func getMatch(matches *bbolt.Bucket, id uint64) (store.MatchRecord, error) {
	raw := matches.Get(matchKey(id))
	if raw == nil {
		return store.MatchRecord{}, store.ErrNotFound
	}
	rec, err := decodeMatch(raw)
	if err != nil {
		return store.MatchRecord{}, err
	}
	return rec.match(id), nil
}

// decodeMatch keeps nothing that points into raw (bbolt's memory).
func decodeMatch(raw []byte) (matchRecord, error) { return decodeRecord[matchRecord](raw, "match") }

func (r matchRecord) version() int { return r.V }
