package webui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"
)

// Options are what both UIs share. Zero fields take the defaults.
type Options struct {
	// Interval is the time between samples. Default 1 s.
	Interval time.Duration
	// History is the number of samples the charts keep. Default 120.
	History int
	// Logger receives sampling failures. Default: discard.
	Logger *slog.Logger
}

// EnsureDefaults fills zero fields in.
func (o *Options) EnsureDefaults() {
	if o.Interval == 0 {
		o.Interval = time.Second
	}
	if o.History == 0 {
		o.History = 120
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate reports impossible settings.
func (o *Options) Validate() error {
	var errs []error
	if o.Interval < 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("webui: Interval %v is below 10ms", o.Interval))
	}
	if o.History < 2 {
		errs = append(errs, fmt.Errorf("webui: History %d is below 2", o.History))
	}
	return errors.Join(errs...)
}

// every calls step at once and then every interval until ctx ends.
func every(ctx context.Context, interval time.Duration, step func(now time.Time)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	step(time.Now())
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			step(now)
		}
	}
}

// ring keeps the last max values pushed.
type ring[T any] struct {
	buf []T
	max int
}

func (r *ring[T]) push(v T) {
	r.buf = append(r.buf, v)
	if len(r.buf) > r.max {
		r.buf = slices.Delete(r.buf, 0, len(r.buf)-r.max)
	}
}

// snapshot copies the values: a published status never shares memory with
// the sampler's buffers.
func (r *ring[T]) snapshot() []T { return slices.Clone(r.buf) }

// perSec is (cur - prev) / dt, 0 for a counter that went back (a
// restart) or a zero interval.
func perSec(cur, prev float64, dt time.Duration) float64 {
	if dt <= 0 || cur < prev {
		return 0
	}
	return (cur - prev) / dt.Seconds()
}

// callRates derives request rates from two samples of the ClientService
// call counters.
func callRates(cur, prev map[string]float64, dt time.Duration) Rates {
	r := Rates{
		Read:  perSec(cur["Get"], prev["Get"], dt),
		Write: perSec(cur["Mutate"], prev["Mutate"], dt),
		Scan:  perSec(cur["Scan"], prev["Scan"], dt),
		Multi: perSec(cur["Multi"], prev["Multi"], dt),
	}
	for m, v := range cur {
		r.Total += perSec(v, prev[m], dt)
	}
	return r
}

func (r *Rates) add(o Rates) {
	r.Total += o.Total
	r.Read += o.Read
	r.Write += o.Write
	r.Scan += o.Scan
	r.Multi += o.Multi
}

// quotaPoint is the chart sample of a set of quota rows.
func quotaPoint(now time.Time, rows []QuotaRow) QuotaPoint {
	p := QuotaPoint{T: now.UnixMilli(), Rates: map[string]float64{}}
	for i := range rows {
		if rows[i].Live {
			p.Rates[rows[i].Key()] = rows[i].Rate
		}
	}
	return p
}

// uptime renders d as HBase's UI does, to the second.
func uptime(d time.Duration) string {
	d = d.Truncate(time.Second)
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	if days > 0 {
		return fmt.Sprintf("%dd %s", days, d)
	}
	return d.String()
}
