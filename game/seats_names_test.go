package game

import "testing"

// Seats are asked for by name where the game names them, else by number
// from 1, and listed the same way in what the server says.
func TestSeatNamesAndNumbers(t *testing.T) {
	sides := Mode{Name: "1v1", Seats: 2, SeatNames: []string{"left", "right"}}
	riders := Mode{Name: "tron", Seats: 8}
	for _, c := range []struct {
		m    Mode
		in   string
		slot int
		ok   bool
	}{
		{sides, "left", 0, true}, {sides, "RIGHT", 1, true}, {sides, "2", 1, true}, {sides, "bottom", -1, false}, {sides, "3", -1, false},
		{riders, "1", 0, true}, {riders, "8", 7, true}, {riders, "9", -1, false}, {riders, "0", -1, false}, {riders, "left", -1, false},
	} {
		if slot, ok := c.m.ParseSeat(c.in); slot != c.slot || ok != c.ok {
			t.Errorf("%s ParseSeat(%q) = %d, %v; want %d, %v", c.m.Name, c.in, slot, ok, c.slot, c.ok)
		}
	}
	if sides.SeatName(1) != "right" || riders.SeatName(2) != "seat 3" {
		t.Errorf("names: %q, %q", sides.SeatName(1), riders.SeatName(2))
	}
	if sides.SeatList() != "left and right" || riders.SeatList() != "1 to 8" {
		t.Errorf("lists: %q, %q", sides.SeatList(), riders.SeatList())
	}
}
