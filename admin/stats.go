package admin

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/termarena/termarena/buildinfo"
	"github.com/termarena/termarena/cmdargs"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/telemetry"
)

// runStats prints the server's telemetry. `--json` is telemetry.Stats:
// {sessions, players_online, players_in_matches, rooms, tick_rate,
// tick_lateness_p99_ms, tick_lateness_p99_over (the p99 is beyond the
// largest bucket, which tick_lateness_p99_ms then gives), ticks_dropped,
// frames_written, frames_skipped,
// frames_per_second, frames_skipped_per_second, mean_frame_bytes, logins,
// logins_per_second, heap_bytes, rss_bytes, goroutines, room_panics,
// panics (by worker: room, spectator-delay, results, matchmaker,
// replay-prune)} plus "build":
// buildinfo.Info {version, revision, date}, and "node" in a cluster (the
// node answering: these figures are its own) with "matchmaker" (the node
// holding the matchmaker lease, pairing every node's ranked queues); rates
// are over the time since the previous read, so poll it once a second.
func runStats(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, []string{"json", "cluster"}, nil)
	if err == nil && len(p.Pos) > 0 {
		err = fmt.Errorf("unexpected argument %q", sanitize.Arg(p.Pos[0]))
	}
	if err != nil {
		return r.usageErr("%v", err)
	}
	if p.Bools["cluster"] {
		return runClusterStats(r, p.Bools["json"])
	}
	if r.d.Stats == nil {
		return r.fail("this server keeps no telemetry")
	}
	s := r.d.Stats()
	build := buildinfo.Read()
	var matchmaker string
	if r.d.Matchmaker != nil {
		matchmaker = r.d.Matchmaker()
	}
	if p.Bools["json"] {
		return r.writeJSON(struct {
			telemetry.Stats
			Build      buildinfo.Info `json:"build"`
			Node       string         `json:"node,omitempty"`
			Matchmaker string         `json:"matchmaker,omitempty"`
		}{s, build, r.d.Node, matchmaker})
	}
	var t table
	if r.d.Node != "" {
		// These figures are this node's; who is online counts every node's.
		t.row("node", r.d.Node)
	}
	if matchmaker != "" {
		t.row("matchmaker", matchmaker)
	}
	t.row("build", build.Version+" "+build.Revision)
	t.row("sessions", fmt.Sprint(s.Sessions))
	t.row("players online", fmt.Sprint(s.PlayersOnline))
	t.row("players in matches", fmt.Sprint(s.PlayersInMatches))
	t.row("rooms", fmt.Sprint(s.Rooms))
	t.row("tick rate", fmt.Sprintf("%.1f/s", s.TickRate))
	late := fmt.Sprintf("%.2f ms", s.TickLatenessP99)
	if s.TickLatenessOver {
		late = fmt.Sprintf("over %.0f ms", s.TickLatenessP99)
	}
	t.row("tick lateness p99", late)
	t.row("frames written", fmt.Sprintf("%d (%.0f/s)", s.FramesWritten, s.FramesPerSecond))
	t.row("frames skipped", fmt.Sprintf("%d (%.0f/s)", s.FramesSkipped, s.SkippedPerSecond))
	t.row("mean frame bytes", fmt.Sprintf("%.1f", s.MeanFrameBytes))
	t.row("logins", fmt.Sprintf("%d (%.1f/s)", s.Logins, s.LoginsPerSecond))
	t.row("heap", fmt.Sprintf("%.1f MB", float64(s.HeapBytes)/1e6))
	t.row("rss", fmt.Sprintf("%.1f MB", float64(s.RSSBytes)/1e6))
	t.row("goroutines", fmt.Sprint(s.Goroutines))
	t.row("panics recovered", panicsRow(s))
	t.write(r.out)
	return ExitOK
}

// panicsRow sums the panics shared workers recovered, then names them:
// "0", or "3 (room 2, results 1)". Each cost a room or a job, not the
// server; the stacks are in the log.
func panicsRow(s telemetry.Stats) string {
	var sum uint64
	var by []string
	for _, w := range slices.Sorted(maps.Keys(s.Panics)) {
		if n := s.Panics[w]; n > 0 {
			sum += n
			by = append(by, fmt.Sprintf("%s %d", w, n))
		}
	}
	if sum == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", sum, strings.Join(by, ", "))
}
