package region

import "context"

// Yielder is called by a scan between rows (a safe point: no row is half
// read); the region server's scheduler uses it to make long LOW-priority
// scans give way to higher-priority calls. Yield may block briefly and
// must not touch the scanner.
type Yielder interface {
	Yield(ctx context.Context)
}

type yielderKey struct{}

// WithYielder returns ctx carrying y for the scans run with it.
func WithYielder(ctx context.Context, y Yielder) context.Context {
	return context.WithValue(ctx, yielderKey{}, y)
}

// YielderFrom returns ctx's Yielder, or nil.
func YielderFrom(ctx context.Context) Yielder {
	y, _ := ctx.Value(yielderKey{}).(Yielder)
	return y
}
