package bench

import (
	"math"
	"strings"
	"testing"
)

func TestExponentialShape(t *testing.T) {
	c := NewAckCounter(100_000) // Last() is 99,999
	for _, tc := range []struct{ percentile, span float64 }{{95, 1000}, {50, 100}, {99, 20_000}} {
		g := NewExponential(c, tc.percentile, tc.span)
		r := rng()
		within := 0
		for i := 0; i < draws; i++ {
			v := g.Next(r)
			if v < 0 || v > c.Last() {
				t.Fatalf("draw %d outside [0, %d]", v, c.Last())
			}
			if c.Last()-v < int64(tc.span) {
				within++
			}
		}
		got := 100 * float64(within) / draws
		if math.Abs(got-tc.percentile) > 0.5 {
			t.Errorf("percentile %v of span %v: %.2f%% of draws within the span", tc.percentile, tc.span, got)
		}
	}
	// Draws before key 0 are drawn again.
	small := NewAckCounter(10)
	g := NewExponential(small, 50, 1000)
	r := rng()
	for i := 0; i < 10_000; i++ {
		if v := g.Next(r); v < 0 || v > 9 {
			t.Fatalf("draw %d outside [0, 9]", v)
		}
	}
}

func TestHistogramDraws(t *testing.T) {
	h, err := ReadHistogram(strings.NewReader("BlockSize\t50\n0\t2\n1\t5\n2\t3\n"), "h")
	if err != nil {
		t.Fatal(err)
	}
	// YCSB's generator: a uniform n in [0, 10) minus bucket counts until
	// it is <= 0. n in 0..2 gives 50, n in 3..7 gives 100, and 8..9 fall
	// through to the last bucket, which gives its index times 50: 100.
	r := rng()
	got := map[int64]int{}
	for i := 0; i < draws; i++ {
		got[h.Next(r)]++
	}
	if len(got) != 2 {
		t.Fatalf("lengths drawn: %v, want 50 and 100 only", got)
	}
	if share := float64(got[50]) / draws; math.Abs(share-0.3) > 0.01 {
		t.Errorf("share of 50: %.3f, want 0.3", share)
	}
	if h.Max() != 100 {
		t.Errorf("Max = %d, want 100", h.Max())
	}
	for _, bad := range []string{"", "BlockSize\t0\n0\t1\n", "BlockSize\t8\n0\t-1\n", "BlockSize\t8\n1\t1\n", "BlockSize\t8\n0\n",
		"BlockSize\t1048576\n0\t1\n1\t1\n2\t1\n"} {
		if _, err := ReadHistogram(strings.NewReader(bad), "h"); err == nil {
			t.Errorf("ReadHistogram(%q) accepted", bad)
		}
	}
}

// TestDeterministicValue compares with YCSB's CoreWorkload
// buildDeterministicValue, run in Java on these inputs.
func TestDeterministicValue(t *testing.T) {
	for _, tc := range []struct {
		key, field string
		size       int
		want       string
	}{
		{"user6284781860667377211", "field0", 100, "user6284781860667377211:field0:-56807877:2032869390:-165488160:1762371712:-169193395:-1039977118:-10"},
		{"user1", "field9", 10, "user1:fiel"},
		{"user123", "field3", 7, "user123"},
	} {
		got := appendDeterministicValue([]byte("prefix"), []byte(tc.key), []byte(tc.field), tc.size)
		if string(got) != "prefix"+tc.want {
			t.Errorf("value of %s/%s, %d bytes: %q, want %q", tc.key, tc.field, tc.size, got[6:], tc.want)
		}
	}
}

// FuzzReadHistogram: an accepted histogram file has a block size and a
// positive total, and every length drawn from it is a multiple of the
// block size no longer than Max.
func FuzzReadHistogram(f *testing.F) {
	for _, s := range []string{"BlockSize\t50\n0\t2\n1\t5\n2\t3\n", "BlockSize\t8\n0\t1\n", "", "BlockSize\t0\n",
		"BlockSize\t8\n1\t1\n", "BlockSize\t1048576\n0\t1\n1\t1\n2\t1\n", "\n\nBlockSize 4\n\n0 9\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ReadHistogram(strings.NewReader(s), "h")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "h") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if h.block < 1 || h.area < 1 || len(h.buckets) == 0 || h.Max() > maxFieldLength {
			t.Fatalf("accepted %q as %+v", s, h)
		}
		r := rng()
		for i := 0; i < 100; i++ {
			if v := h.Next(r); v < 0 || v%h.block != 0 || v > h.Max() {
				t.Fatalf("%q: drew %d (block %d, max %d)", s, v, h.block, h.Max())
			}
		}
	})
}
