package game

// Ranks turns places as a Result gives them (dense: tied seats share a
// place and the next place follows on, "1, 2, 2, 3") into the ranks
// players are shown, standard competition ranking ("1, 2, 2, 4"): one
// more than the number of competitors placed strictly above. A
// competitor is a team when team reports one (team(i) >= 0 for seat i;
// nil for none), so a 2v2's losing team is still second; otherwise each
// seat. A place of 0 (not seated) stays 0. Results keep dense places:
// replays verify them as recorded, and ratings read only their order.
func Ranks(places []int, team func(i int) int) []int {
	out := make([]int, len(places))
	for i, p := range places {
		if p <= 0 {
			continue
		}
		above := map[int]bool{} // competitors placed above seat i
		for j, q := range places {
			if q <= 0 || q >= p {
				continue
			}
			key := -1 - j // a seat of its own
			if team != nil && team(j) >= 0 {
				key = team(j)
			}
			above[key] = true
		}
		out[i] = 1 + len(above)
	}
	return out
}
