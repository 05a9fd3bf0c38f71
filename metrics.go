package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// serveMetrics serves the telemetry's Prometheus exposition on /metrics.
func serveMetrics(addr string, h http.Handler, log *slog.Logger) (stop func(), done <-chan error, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
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
