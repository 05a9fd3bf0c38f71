//go:build race

package bot

// raceDetector: the race detector slows the light-cycle brains' searches
// twenty-fold or more, past any test timeout for the ladder.
const raceDetector = true
