-- The leaderboard's order is rating, then games played, then name: an
-- index on the first two lets a page be read from the top of the index
-- (ties on both, which are rare, sorted as they come) instead of sorting
-- the whole mode for every page.
DROP INDEX ratings_board;
CREATE INDEX ratings_board ON ratings (mode, rating DESC, games DESC);
