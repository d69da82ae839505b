package coord

import (
	"context"
	"net"
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

// A port picked free but taken before etcd binds it is picked again.
func TestEmbeddedRetriesTakenPort(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	calls := 0
	freePort = func(host string, port int) (int, error) {
		if calls++; calls == 1 {
			return taken.Addr().(*net.TCPAddr).Port, nil // the client port, first try
		}
		return pickPort(host, port)
	}
	defer func() { freePort = pickPort }()
	e, err := StartEmbedded(EmbeddedConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if calls < 4 {
		t.Fatalf("%d ports picked, want a second try", calls)
	}
}
