package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"time"

	"github.com/termarena/termarena/lobby"
)

// serveMetrics exposes a small Prometheus text endpoint. The full telemetry
// set (ticks, frames, latencies) arrives with the load-tool work; what is
// here is real and cheap to read.
func serveMetrics(addr string, hub *lobby.Hub, log *slog.Logger) (stop func(), done <-chan error, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		online, _ := hub.Online()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintf(w, "# HELP termarena_players_online Distinct players with a live session.\n# TYPE termarena_players_online gauge\ntermarena_players_online %d\n", online)
		fmt.Fprintf(w, "# HELP termarena_sessions Live SSH sessions running a screen.\n# TYPE termarena_sessions gauge\ntermarena_sessions %d\n", hub.Sessions())
		fmt.Fprintf(w, "# HELP termarena_heap_bytes Go heap in use.\n# TYPE termarena_heap_bytes gauge\ntermarena_heap_bytes %d\n", ms.HeapInuse)
		fmt.Fprintf(w, "# HELP termarena_goroutines Live goroutines.\n# TYPE termarena_goroutines gauge\ntermarena_goroutines %d\n", runtime.NumGoroutine())
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	ch := make(chan error, 1)
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			ch <- err
		}
	}()
	log.Info("metrics serving", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}, ch, nil
}
