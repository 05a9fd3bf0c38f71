-- A match end's key (store.MatchEnd.Key: its room id and seed) makes
-- recording it idempotent across a cluster: two nodes finishing the same
-- resumed match store it, and rate it, once.
ALTER TABLE matches ADD COLUMN match_key text;
CREATE UNIQUE INDEX matches_match_key ON matches (match_key) WHERE match_key IS NOT NULL;
