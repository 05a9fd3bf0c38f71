package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/termarena/termarena/store"
)

// watchStore checks the store now and then every `every` (store.Health: a
// read of every bucket, and whether the last write failed), logs each
// change — naming the damaged bucket — and hands the problem to publish
// ("" when healthy) for the healthcheck. termarena_store_healthy on
// /metrics is 1 or 0. The first check runs before it returns, so a store
// damaged at start is in the log and the healthcheck's file from the
// start. stop ends the checks and waits for one in progress.
// healthChecker is what the watch asks of the store.
type healthChecker interface {
	Health(ctx context.Context) error
}

func watchStore(st healthChecker, every time.Duration, log *slog.Logger, reg prometheus.Registerer, publish func(problem string)) (stop func()) {
	var healthy atomic.Bool
	gauge := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "termarena_store_healthy",
		Help: "1 when the database's last check passed: every bucket reads and the last write succeeded; 0 otherwise (see the log).",
	}, func() float64 {
		if healthy.Load() {
			return 1
		}
		return 0
	})
	if err := reg.Register(gauge); err != nil {
		log.Warn("termarena_store_healthy not registered", "err", err)
	}
	last := "unchecked"
	check := func() {
		err := st.Health(context.Background())
		problem := ""
		if err != nil {
			problem = err.Error()
		}
		healthy.Store(err == nil)
		// A change of kind is logged and published, not each new time
		// a failed write carries.
		var damaged *store.BucketDamageError
		kind := problem
		switch {
		case errors.As(err, &damaged):
			kind = "damaged " + damaged.Bucket
		case errors.Is(err, store.ErrCannotSave):
			kind = "cannot save"
		}
		if kind == last {
			return
		}
		switch {
		case errors.As(err, &damaged):
			log.Error("database damaged: commands reading this bucket fail; restore a backup (see Backups in the README)",
				"bucket", damaged.Bucket, "err", err)
		case errors.Is(err, store.ErrCannotSave):
			log.Error("database cannot save: is the disk full?", "err", err)
		case err != nil:
			log.Error("database check failed", "err", err)
		case last != "unchecked":
			log.Info("database healthy again")
		}
		last = kind
		publish(problem)
	}
	check()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				check()
			}
		}
	})
	return func() { cancel(); wg.Wait() }
}
