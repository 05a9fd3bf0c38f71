package lobby

import (
	"fmt"
	"log/slog"
	"sync/atomic"
)

// The goroutines the lobby shares between players, as logs and telemetry
// name them. A panic on one of them is recovered, logged with its stack and
// counted: a bug there must cost one room or one job, never the server
// (DESIGN.md, "Rooms fail alone").
const (
	WorkerRoom       = "room"            // a room's loop, with its game and hooks
	WorkerDelay      = "spectator-delay" // a room's feed for watchers
	WorkerResults    = "results"         // the results writer
	WorkerMatchmaker = "matchmaker"      // the ranked queues' waves and new ranked rooms
	WorkerPrune      = "replay-prune"    // replay pruning
)

// panicCount counts the panics one kind of worker recovered.
type panicCount struct{ atomic.Uint64 }

// recovered logs a panic recovered on a shared worker, with the stack taken
// where it was recovered (debug.Stack in the deferred function that called
// recover, so it still shows where the panic happened), and counts it.
func (c *panicCount) recovered(log *slog.Logger, worker, msg string, v any, stack []byte, attrs ...any) {
	c.Add(1)
	log.Error(msg, append(attrs, "worker", worker, "panic", fmt.Sprint(v), "stack", string(stack))...)
}
