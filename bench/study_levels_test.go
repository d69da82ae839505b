package bench

import (
	"math"
	"testing"
)

// TestStudyDefaultLevels: without levels the study scales the seed's to
// T's unthrottled rate: at the seed's 3,644 ops/s they are its 2500 ...
// 500 req/s.
func TestStudyDefaultLevels(t *testing.T) {
	c := StudyConfig{Master: "127.0.0.1:16000"}
	if err := c.defaults(); err != nil || !c.AutoLevels {
		t.Fatalf("defaults: %v, AutoLevels %v", err, c.AutoLevels)
	}
	fixed := StudyConfig{Master: "127.0.0.1:16000", Levels: []int64{0, 100}}
	if err := fixed.defaults(); err != nil || fixed.AutoLevels {
		t.Fatalf("with levels: %v, AutoLevels %v", err, fixed.AutoLevels)
	}
	for i, want := range []float64{2500, 2000, 1500, 1000, 500} {
		if got := math.Round(AutoFractions[i] * 3644); got != want {
			t.Errorf("level %d at the seed's rate: %v, want %v", i, got, want)
		}
	}
}
