package store

import (
	"fmt"

	"go.etcd.io/bbolt"
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
	}
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
			current, latest, ErrSchemaTooNew)
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
