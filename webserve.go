package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/termarena/termarena/web"
)

// serveWeb serves the web face on addr. Failing to listen is a start-up
// error (the operator asked for the address); failing later is logged and
// leaves the SSH side serving: the web face is never why players lose
// their games.
func serveWeb(addr string, w *web.Server, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("web listen (--http %s; --http \"\" turns the web face off): %w", addr, err)
	}
	log.Info("web serving", "addr", ln.Addr().String())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Serve(ln); err != nil {
			log.Error("the web face stopped; SSH serves on", "err", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = w.Shutdown(ctx)
		<-done
	}, nil
}
