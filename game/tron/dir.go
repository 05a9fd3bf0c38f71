package tron

// Actions a player sends (game.Input.Action), which are also the headings a
// cycle can have. Any other value is treated as None.
const (
	None  int8 = 0 // no change
	Up    int8 = 1
	Down  int8 = 2
	Left  int8 = 3
	Right int8 = 4
)

// QueueLen is how many turns a cycle holds before its next moves. Two let
// a quick "up, left" (both keys inside one move, as a fast typist or one
// ssh packet delivers them) make a tight U-turn instead of losing the
// second key to the reverse rule.
const QueueLen = 2

// Delta is the cell step of heading d: y grows downwards. None gives 0, 0.
func Delta(d int8) (dx, dy int) {
	switch d {
	case Up:
		return 0, -1
	case Down:
		return 0, 1
	case Left:
		return -1, 0
	case Right:
		return 1, 0
	}
	return 0, 0
}

// Reverse is the opposite heading of d (None for None).
func Reverse(d int8) int8 {
	switch d {
	case Up:
		return Down
	case Down:
		return Up
	case Left:
		return Right
	case Right:
		return Left
	}
	return None
}

func validDir(d int8) bool { return d >= Up && d <= Right }

// Steer is the turn rule Step applies to one input, exported so a view
// predicts exactly what the room will do. heading is the cycle's current
// heading and queue its pending turns (None-terminated, oldest first). The
// action is compared with where the cycle will be facing once the queued
// turns are made: the same heading or its reverse is ignored (reversing
// would put the cycle straight into its own trail), and a turn beyond
// QueueLen replaces the last queued one, so the newest key always counts.
func Steer(heading int8, queue [QueueLen]int8, action int8) [QueueLen]int8 {
	if !validDir(action) {
		return queue
	}
	last, n := heading, 0
	for n < QueueLen && queue[n] != None {
		last = queue[n]
		n++
	}
	if n == QueueLen {
		// Full: the newest key replaces the last turn, judged against the
		// heading before it.
		last = heading
		if n > 1 {
			last = queue[n-2]
		}
		n--
	}
	if action == last || action == Reverse(last) {
		return queue
	}
	queue[n] = action
	return queue
}

// popTurn takes the oldest queued turn, if any, as the new heading.
func popTurn(heading int8, queue *[QueueLen]int8) int8 {
	if queue[0] == None {
		return heading
	}
	h := queue[0]
	copy(queue[:], queue[1:])
	queue[QueueLen-1] = None
	return h
}
