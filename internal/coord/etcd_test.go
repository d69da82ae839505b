package coord

import (
	"context"
	"testing"
	"time"
)

func TestEmbeddedRestartKeepsData(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	for round := 0; round < 2; round++ {
		start := time.Now()
		e, err := StartEmbedded(EmbeddedConfig{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("embedded etcd ready in %v", time.Since(start))
		c, err := Connect(ctx, []string{e.ClientURL()}, 5*time.Second)
		if err != nil {
			e.Close()
			t.Fatal(err)
		}
		if round == 0 {
			if _, err := c.Put(ctx, "k", "v"); err != nil {
				t.Fatal(err)
			}
		} else {
			r, err := c.Get(ctx, "k")
			if err != nil || len(r.Kvs) != 1 || string(r.Kvs[0].Value) != "v" {
				t.Fatalf("after restart: %v %v", r, err)
			}
		}
		_ = c.Close()
		e.Close()
	}
}

func TestEmbeddedConfigValidate(t *testing.T) {
	for _, c := range []EmbeddedConfig{{}, {Dir: "x", Bind: "localhost"}, {Dir: "x", ClientPort: 70000}} {
		c.ensureDefaults()
		if c.Validate() == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}
