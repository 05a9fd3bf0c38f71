package bolt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

// migration is one schema step. apply runs in the same write transaction
// that records version, so a crash either keeps the whole step or none of it
// and the next Open resumes at the first unfinished step.
type migration struct {
	version int
	name    string
	apply   func(tx *bbolt.Tx) error
}

// migrations is the schema history, oldest first. Steps are only ever
// appended: a file records how far it got, and released steps must keep
// meaning the same thing. Later packages (ratings, matches, bans…) add their
// buckets here as new steps.
func migrations() []migration {
	return []migration{
		{version: 1, name: "create meta, players and names buckets", apply: createBuckets(bucketMeta, bucketPlayers, bucketNames)},
		{version: 2, name: "create ratings, matches and player_matches buckets", apply: createBuckets(bucketRatings, bucketMatches, bucketPlayerMatches)},
		{version: 3, name: "create bans, ban_fingerprints, ban_ranges, mutes, audit and replays buckets",
			apply: createBuckets(bucketBans, bucketBanFingerprints, bucketBanRanges, bucketMutes, bucketAudit, bucketReplays)},
		{version: 4, name: "create leaves bucket", apply: createBuckets(bucketLeaves)},
		{version: 5, name: "carry Elo ratings over to Glicko-2", apply: migrateEloRatings},
	}
}

// migrateEloRatings rewrites every version 1 (Elo) rating record as a
// version 2 (Glicko-2) one. The rating is kept, the volatility is a
// newcomer's (InitialVolatility: Elo kept nothing to estimate it from),
// and the deviation is eloDeviation(games) as of the last game (Updated,
// kept): the time since then is added when the rating is next read or
// played, by the same inactivity rule as every Glicko-2 rating, so a
// player who stopped a year ago comes back less certain than one who
// played yesterday. Elo's Reached2400 flag is dropped.
func migrateEloRatings(tx *bbolt.Tx) error {
	b := tx.Bucket([]byte(bucketRatings))
	if b == nil {
		return fmt.Errorf("bucket %s missing", bucketRatings)
	}
	type update struct{ k, v []byte }
	var ups []update
	err := b.ForEach(func(k, v []byte) error {
		var rec ratingRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("decode rating %q: %w", k, err)
		}
		switch rec.V {
		case ratingVersion:
			return nil // a step that crashed half-way is never committed; this is belt and braces
		case 1:
		default:
			return fmt.Errorf("rating %q: unknown record version %d", k, rec.V)
		}
		rec.V, rec.Reached2400 = ratingVersion, false
		rec.Deviation, rec.Volatility = eloDeviation(rec.Games), store.InitialVolatility
		raw, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("encode rating %q: %w", k, err)
		}
		ups = append(ups, update{bytes.Clone(k), raw})
		return nil
	})
	if err != nil {
		return err
	}
	// Written after the walk: bbolt forbids changing a bucket inside its
	// own ForEach.
	for _, u := range ups {
		if err := b.Put(u.k, u.v); err != nil {
			return fmt.Errorf("write rating %q: %w", u.k, err)
		}
	}
	return nil
}

// eloDeviation is the Glicko-2 deviation given to an Elo rating after
// games rated games: what Glicko-2 itself would have reached playing that
// many even games against well-known opponents, each adding about ¼ to
// 1/φ² (g ≈ 1, E(1−E) ≈ ¼) from a newcomer's 500:
//
//	RD(n) = 173.7178 / √((173.7178/500)² + n/4), bounded to [45, 500]
//
// 0 games → 500, 10 → 107 (just established: Lichess's "? clears after
// about ten games"), 30 → 63, 40 → 55, 60 or more → 45 (Lichess's floor).
func eloDeviation(games int) float64 {
	const scale = 173.7178
	phi0 := store.InitialDeviation / scale
	d := scale / math.Sqrt(1/(phi0*phi0)+float64(max(games, 0))/4)
	return min(max(d, 45), store.InitialDeviation)
}

func createBuckets(names ...string) func(tx *bbolt.Tx) error {
	return func(tx *bbolt.Tx) error {
		for _, n := range names {
			if _, err := tx.CreateBucketIfNotExists([]byte(n)); err != nil {
				return fmt.Errorf("create bucket %s: %w", n, err)
			}
		}
		return nil
	}
}

// checkMigrations rejects a malformed list up front: a duplicate or
// out-of-order version would make "run every step above the stored version"
// skip or repeat work.
func checkMigrations(steps []migration) error {
	prev := 0
	for _, st := range steps {
		if st.version <= prev {
			return fmt.Errorf("migration list: version %d (%s) does not follow %d", st.version, st.name, prev)
		}
		if st.apply == nil {
			return fmt.Errorf("migration list: version %d (%s) has no apply func", st.version, st.name)
		}
		prev = st.version
	}
	return nil
}

// migrate runs, in order, every step newer than the file's schema.
func migrate(db *bbolt.DB, steps []migration) error {
	var current int
	err := db.View(func(tx *bbolt.Tx) error {
		var err error
		current, err = readSchema(tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	latest := 0
	if len(steps) > 0 {
		latest = steps[len(steps)-1].version
	}
	if current > latest {
		// An older build would write records in shapes the newer one no
		// longer expects, so refusing is the only safe downgrade.
		return fmt.Errorf("schema version %d, this build knows up to %d; run a newer termarena or restore a backup: %w",
			current, latest, store.ErrSchemaTooNew)
	}
	for _, st := range steps {
		if st.version <= current {
			continue
		}
		err := db.Update(func(tx *bbolt.Tx) error {
			if err := st.apply(tx); err != nil {
				return err
			}
			return writeSchema(tx, st.version)
		})
		if err != nil {
			return fmt.Errorf("migration %d (%s): %w", st.version, st.name, err)
		}
		current = st.version
	}
	return nil
}
