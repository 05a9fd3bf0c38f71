package web

import (
	"compress/gzip"
	"net/http"
	"strings"
	"sync"
)

// newGzipPool reuses compressors: each holds ~256 KB of window and tables.
func newGzipPool() *sync.Pool {
	return &sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression); return w }}
}

// gzipWriter compresses a response when the client accepts gzip and the
// handler sends text (pages, JSON, CSS, JS, SVG, asciicast).
type gzipWriter struct {
	http.ResponseWriter
	accept bool
	zw     *gzip.Writer
	pool   *sync.Pool
	wrote  bool
}

func compress(w http.ResponseWriter, r *http.Request, pool *sync.Pool) *gzipWriter {
	w.Header().Add("Vary", "Accept-Encoding")
	return &gzipWriter{ResponseWriter: w, pool: pool, accept: strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")}
}

func (g *gzipWriter) WriteHeader(code int) {
	if g.wrote {
		return
	}
	g.wrote = true
	h := g.Header()
	if g.accept && code != http.StatusNoContent && code != http.StatusNotModified && h.Get("Content-Encoding") == "" && compressible(h.Get("Content-Type")) {
		h.Del("Content-Length")
		h.Set("Content-Encoding", "gzip")
		g.zw = g.pool.Get().(*gzip.Writer)
		g.zw.Reset(g.ResponseWriter)
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *gzipWriter) Write(p []byte) (int, error) {
	if !g.wrote {
		if g.Header().Get("Content-Type") == "" {
			g.Header().Set("Content-Type", http.DetectContentType(p))
		}
		g.WriteHeader(http.StatusOK)
	}
	if g.zw != nil {
		return g.zw.Write(p)
	}
	return g.ResponseWriter.Write(p)
}

// Flush sends what is compressed so far (a live stream's event).
func (g *gzipWriter) Flush() {
	if g.zw != nil {
		g.zw.Flush()
	}
	if f, ok := g.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (g *gzipWriter) Unwrap() http.ResponseWriter { return g.ResponseWriter }

func (g *gzipWriter) finish() {
	if g.zw != nil {
		g.zw.Close()
		g.zw.Reset(nil)
		g.pool.Put(g.zw)
		g.zw = nil
	}
}

func compressible(ct string) bool {
	for _, p := range []string{"text/", "application/json", "application/javascript", "image/svg+xml", "application/x-asciicast"} {
		if strings.HasPrefix(ct, p) {
			return true
		}
	}
	return false
}
