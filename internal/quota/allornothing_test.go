package quota

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// TestCheckAllOrNothing: a request refused by any one of the four limiters
// it meets (user, table, namespace, region server) takes nothing from the
// others (HBase: a request that fails one limiter consumes from none), and
// counts as admitted by none.
func TestCheckAllOrNothing(t *testing.T) {
	subjects := []string{"USER => 'u'", "TABLE => 'ns:t'", "NAMESPACE => 'ns'", "REGIONSERVER => 'all'"}
	for tight := range subjects {
		t.Run(subjects[tight], func(t *testing.T) {
			var lines []string
			for i, s := range subjects {
				limit := "100req/sec"
				if i == tight {
					limit = "2req/sec"
				}
				lines = append(lines, s+", LIMIT => '"+limit+"'")
			}
			c, err := NewChecker(Config{}, mustSettings(t, lines...), epoch)
			if err != nil {
				t.Fatal(err)
			}
			req := Request{User: "u", Namespace: "ns", Table: "t", Kind: KindRead}
			for i := 0; i < 2; i++ {
				if _, err := c.Check(epoch, req); err != nil {
					t.Fatal(err)
				}
			}
			for i := 0; i < 3; i++ {
				_, err := c.Check(epoch, req)
				var te *ThrottledError
				if !errors.As(err, &te) || te.lim == nil || te.lim.subject.String() != c.describe(epoch, req)[tight] {
					t.Fatalf("refusal %d: %v (by %v), want one by %s", i, err, te, c.describe(epoch, req)[tight])
				}
			}
			rows := c.Usage(epoch)
			if len(rows) != 4 {
				t.Fatalf("%d usage rows, want 4", len(rows))
			}
			for _, r := range rows {
				if r.Consumed != 2 || r.Admitted != 2 || r.Available != r.Limit-2 {
					t.Errorf("%s: consumed %v, admitted %d, available %v of %v; want 2, 2, limit-2",
						r.Subject, r.Consumed, r.Admitted, r.Available, r.Limit)
				}
			}
		})
	}
}

// TestCheckRefusedTakesNothingMeanwhile: requests that a table limiter
// refuses never hold the user's tokens even for a moment, so another
// request of the same user, on another table, that fits the user's limit
// always passes, however the two interleave.
func TestCheckRefusedTakesNothingMeanwhile(t *testing.T) {
	const n = 100
	st := mustSettings(t,
		fmt.Sprintf("USER => 'u', LIMIT => '%dreq/min'", n),
		"TABLE => 'full', LIMIT => '1req/min'",
	)
	for round := 0; round < 10; round++ {
		c, err := NewChecker(Config{}, st, epoch)
		if err != nil {
			t.Fatal(err)
		}
		// Use up the table's one request (and one of the user's).
		if _, err := c.Check(epoch, Request{User: "u", Table: "full"}); err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := c.Check(epoch, Request{User: "u", Table: "full"}); !errors.Is(err, ErrThrottled) {
					t.Errorf("request on the full table: %v", err)
					return
				}
			}
		}()
		for i := 1; i < n; i++ {
			if _, err := c.Check(epoch, Request{User: "u", Table: "other"}); err != nil {
				t.Errorf("round %d: request %d of the user's %d refused: %v", round, i+1, n, err)
				break
			}
			if i%2 == 0 {
				runtime.Gosched() // vary the interleaving
			}
		}
		close(stop)
		wg.Wait()
		if t.Failed() {
			return
		}
	}
}
