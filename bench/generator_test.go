package bench

import (
	"math"
	"math/rand/v2"
	"testing"
)

const draws = 400_000

func rng() *rand.Rand { return rand.New(rand.NewPCG(42, 7)) }

func histogram(g Generator, n int64) []int {
	r := rng()
	h := make([]int, n)
	for i := 0; i < draws; i++ {
		v := g.Next(r)
		if v < 0 || v >= n {
			panic("out of range")
		}
		h[v]++
	}
	return h
}

func TestZipfianSkew(t *testing.T) {
	const n = 1000
	h := histogram(NewZipfian(0, n-1, ZipfianConstant), n)
	// Item k has probability 1/((k+1)^theta * zeta(n)).
	zn := zeta(0, 0, n, ZipfianConstant)
	for _, k := range []int{0, 1, 9} {
		want := 1 / (math.Pow(float64(k+1), ZipfianConstant) * zn)
		got := float64(h[k]) / draws
		if math.Abs(got-want)/want > 0.1 {
			t.Errorf("item %d: share %.4f, want %.4f (theta 0.99)", k, got, want)
		}
	}
	if h[0] <= h[1] || h[1] <= h[10] || h[10] <= h[500] {
		t.Errorf("not decreasing: %d %d %d %d", h[0], h[1], h[10], h[500])
	}
}

func TestZipfianGrows(t *testing.T) {
	z := NewZipfian(0, 99, ZipfianConstant)
	r := rng()
	for i := 0; i < 1000; i++ {
		if v := z.NextN(r, 1000); v < 0 || v >= 1000 {
			t.Fatalf("draw %d outside [0,1000)", v)
		}
	}
	fresh := NewZipfian(0, 999, ZipfianConstant)
	if math.Abs(z.zetan-fresh.zetan) > 1e-9 {
		t.Errorf("incremental zeta %v, from scratch %v", z.zetan, fresh.zetan)
	}
}

func TestScrambledZipfianSpreads(t *testing.T) {
	const n = 1000
	h := histogram(NewScrambledZipfian(0, n-1), n)
	deciles := make([]int, 10)
	max, argmax := 0, 0
	for k, c := range h {
		deciles[k/100] += c
		if c > max {
			max, argmax = c, k
		}
	}
	for i, c := range deciles {
		if share := float64(c) / draws; share < 0.02 || share > 0.4 {
			t.Errorf("decile %d has %.3f of the draws: not spread", i, share)
		}
	}
	// Still skewed: the favourite item is far above the uniform 0.1%.
	if share := float64(max) / draws; share < 0.01 {
		t.Errorf("most popular item %d has only %.4f", argmax, share)
	}
	if argmax == 0 {
		t.Errorf("the most popular item is item 0: not scrambled")
	}
}

func TestLatestFavoursRecent(t *testing.T) {
	c := NewAckCounter(0)
	for i := 0; i < 1000; i++ {
		c.Ack(c.Next())
	}
	if c.Last() != 999 {
		t.Fatalf("Last = %d", c.Last())
	}
	h := histogram(NewLatest(c), 1000)
	recent := 0
	for _, v := range h[900:] {
		recent += v
	}
	if share := float64(recent) / draws; share < 0.6 {
		t.Errorf("newest 10%% got %.3f of the reads, want most", share)
	}
	if h[999] < h[998] || h[998] < h[900] {
		t.Errorf("not favouring the newest: %d %d %d", h[999], h[998], h[900])
	}
	// New inserts become the favourites.
	for i := 0; i < 100; i++ {
		c.Ack(c.Next())
	}
	h = histogram(NewLatest(c), 1100)
	if h[1099] < h[999] {
		t.Errorf("after inserts, newest %d < former newest %d", h[1099], h[999])
	}
}

func TestAckCounterOutOfOrder(t *testing.T) {
	c := NewAckCounter(10)
	a, b, d := c.Next(), c.Next(), c.Next()
	c.Ack(b)
	c.Ack(d)
	if c.Last() != 9 {
		t.Fatalf("Last %d before the first ack, want 9", c.Last())
	}
	c.Ack(a)
	if c.Last() != 12 {
		t.Fatalf("Last %d, want 12", c.Last())
	}
}

func TestHotspotFraction(t *testing.T) {
	h := histogram(NewHotspot(0, 999, 0.2, 0.8), 1000)
	hot := 0
	for _, v := range h[:200] {
		hot += v
	}
	if share := float64(hot) / draws; math.Abs(share-0.8) > 0.01 {
		t.Errorf("hot set got %.3f of the draws, want 0.8", share)
	}
}

func TestUniformFlat(t *testing.T) {
	h := histogram(newUniform(0, 99), 100)
	for k, c := range h {
		if dev := math.Abs(float64(c)-draws/100) / (draws / 100); dev > 0.08 {
			t.Errorf("item %d: %d draws, %.1f%% off flat", k, c, dev*100)
		}
	}
}

func TestSequentialWraps(t *testing.T) {
	s := NewSequential(5, 7)
	var got []int64
	for i := 0; i < 5; i++ {
		got = append(got, s.Next(nil))
	}
	if want := []int64{5, 6, 7, 5, 6}; !equalInts(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestKeys(t *testing.T) {
	p := Props{"workload": "site.ycsb.workloads.CoreWorkload", "recordcount": "100"}
	w, err := NewWorkload(p)
	if err != nil {
		t.Fatal(err)
	}
	// YCSB's well-known first key of a hashed load.
	if got := string(w.AppendKey(nil, 0)); got != "user6284781860667377211" {
		t.Errorf("key 0 = %s", got)
	}
	if FNVHash64(1) != 8517097267634966620 {
		t.Errorf("FNVHash64(1) = %d", FNVHash64(1))
	}
	p["insertorder"], p["zeropadding"] = "ordered", "8"
	w, _ = NewWorkload(p)
	if got := string(w.AppendKey(nil, 42)); got != "user00000042" {
		t.Errorf("ordered key 42 = %s", got)
	}
	p["zeropadding"] = "1"
	w, _ = NewWorkload(p)
	if got := string(w.AppendKey(make([]byte, 0, 8), 123456)); got != "user123456" {
		t.Errorf("ordered key = %s", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = w.AppendKey(make([]byte, 0), 7) }); n > 1 {
		t.Errorf("AppendKey allocates %v times", n)
	}
}

func TestSplitKeys(t *testing.T) {
	w, err := NewWorkload(Props{"workload": "core", "recordcount": "10000"})
	if err != nil {
		t.Fatal(err)
	}
	splits := w.SplitKeys(10)
	if len(splits) != 9 {
		t.Fatalf("%d split keys, want 9", len(splits))
	}
	// Each region gets about a tenth of the records.
	counts := make([]int, 10)
	for i := int64(0); i < 10000; i++ {
		k := string(w.AppendKey(nil, i))
		r := 0
		for r < len(splits) && k >= string(splits[r]) {
			r++
		}
		counts[r]++
	}
	for i, c := range counts {
		if c < 900 || c > 1100 {
			t.Errorf("region %d gets %d records of 10000", i, c)
		}
	}
	if w.SplitKeys(1) != nil {
		t.Error("one region needs no split keys")
	}
}
