package master

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
)

// snapshotCallTimeout bounds one order to a region server: an image is a
// checkpoint (hard links), a copy rewrites the table's data once.
const snapshotCallTimeout = 10 * time.Minute

// callStore sends one meta.SnapshotService order to the live region server
// of a store and decodes its JSON answer into resp (nil: ignored).
func (m *Master) callStore(ctx context.Context, live map[string]meta.ServerInfo, store, method string, req, resp any) error {
	s, ok := live[store]
	if !ok {
		return fmt.Errorf("master: store %s has no live region server (its snapshot image lives there)", store)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotCallTimeout)
	defer cancel()
	cc, err := hbaserpc.Dial(ctx, s.Addr(), hbaserpc.DialOptions{User: "weir-master", Service: meta.SnapshotService,
		DisableCellBlocks: true, DialTimeout: 5 * time.Second})
	if err != nil {
		return fmt.Errorf("master: dialling region server %s: %w", s.Addr(), err)
	}
	defer cc.Close()
	var out wrapperspb.BytesValue
	if _, err := cc.Call(ctx, method, wrapperspb.Bytes(body), nil, &out); err != nil {
		return fmt.Errorf("master: %s on region server %s: %w", method, s.Addr(), err)
	}
	if resp != nil {
		if err := json.Unmarshal(out.GetValue(), resp); err != nil {
			return fmt.Errorf("master: %s answer from %s: %w", method, s.Addr(), err)
		}
	}
	return nil
}

// eachStore runs fn for every store concurrently (one order per region
// server, as HBase's snapshot procedure fans out to its region servers)
// and returns the errors joined. The goroutines end before it returns.
func eachStore(stores []string, fn func(store string) error) error {
	errs := make([]error, len(stores))
	var wg sync.WaitGroup
	for i, st := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(st)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
