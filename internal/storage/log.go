package storage

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/cockroachdb/pebble/v2"
)

// slogAdapter routes Pebble's logger into an injected slog.Logger.
type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Infof(format string, args ...any) {
	a.l.Log(context.Background(), slog.LevelDebug, fmt.Sprintf(format, args...), "component", "pebble")
}

func (a slogAdapter) Errorf(format string, args ...any) {
	a.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

func (a slogAdapter) Fatalf(format string, args ...any) {
	a.l.Error(fmt.Sprintf(format, args...), "component", "pebble", "fatal", true)
	os.Exit(1)
}

// pebble converts the typed listener into Pebble's, logging what nobody
// listens to at a sensible level.
// reshaped runs after every flush and compaction.
func (l EventListener) pebble(log *slog.Logger, reshaped func()) *pebble.EventListener {
	return &pebble.EventListener{
		FlushEnd: func(i pebble.FlushInfo) {
			reshaped()
			var n uint64
			for _, t := range i.Output {
				n += t.Size
			}
			if l.FlushEnd != nil {
				l.FlushEnd(FlushInfo{Duration: i.TotalDuration, Bytes: n, Err: i.Err})
			}
		},
		CompactionEnd: func(i pebble.CompactionInfo) {
			reshaped()
			var n uint64
			for _, t := range i.Output.Tables {
				n += t.Size
			}
			if l.CompactionEnd != nil {
				l.CompactionEnd(CompactionInfo{Duration: i.TotalDuration, OutputLevel: i.Output.Level, OutputBytes: n, Err: i.Err})
			}
		},
		WriteStallBegin: func(i pebble.WriteStallBeginInfo) {
			log.Warn("storage: write stall", "reason", i.Reason)
			if l.WriteStallBegin != nil {
				l.WriteStallBegin(i.Reason)
			}
		},
		WriteStallEnd: func() {
			if l.WriteStallEnd != nil {
				l.WriteStallEnd()
			}
		},
		DiskSlow: func(i pebble.DiskSlowInfo) {
			log.Warn("storage: slow disk", "path", i.Path, "duration", i.Duration)
			if l.DiskSlow != nil {
				l.DiskSlow(i.Path, i.Duration)
			}
		},
		BackgroundError: func(err error) {
			log.Error("storage: background error", "err", err)
			if l.BackgroundError != nil {
				l.BackgroundError(err)
			}
		},
		DataCorruption: func(i pebble.DataCorruptionInfo) {
			log.Error("storage: data corruption", "path", i.Path, "err", i.Details)
			if l.Corruption != nil {
				l.Corruption(i.Path, i.Details)
			}
		},
	}
}
