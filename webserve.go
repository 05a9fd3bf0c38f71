package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/termarena/termarena/web"
)

// serveWeb serves the web face on ln (main listens first: failing to is a
// start-up error, since the operator asked for the address). Failing later
// is logged and leaves the SSH side serving: the web face is never why
// players lose their games.
func serveWeb(ln net.Listener, w *web.Server, log *slog.Logger) (stop func()) {
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
	}
}

// webURL is the address links to the web face start with: public when
// the operator gave it (an absolute http or https URL), else one made from
// the machine's name and the --http port.
func webURL(public, listen string) (string, error) {
	if public != "" {
		u, err := url.Parse(public)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return "", fmt.Errorf("--public-url %q: want an http or https address such as https://play.example.com", public)
		}
		return strings.TrimRight(public, "/"), nil
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("--http %q: want HOST:PORT or :PORT", listen)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if host, err = os.Hostname(); err != nil || host == "" {
			host = "localhost"
		}
	}
	return "http://" + net.JoinHostPort(host, port), nil
}
