//go:build !race

package bot

const raceDetector = false
