package bench_test

import (
	"os"
	"testing"

	"github.com/weirdb/weir/internal/cli"
)

// childEnv makes this test binary run as the weir command: the
// colocation study's test starts its etcd, master and region servers as
// real processes of this binary.
const childEnv = "WEIR_BENCH_TEST_AS_WEIR"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
