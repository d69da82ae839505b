package shell

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"go.uber.org/goleak"

	"github.com/weirdb/weir/internal/cluster"
)

func TestMain(m *testing.M) {
	// The interactive test runs this binary in a tmux pane as the shell.
	if os.Getenv("WEIR_SHELL_TEST_CHILD") == "1" {
		os.Exit(Run(context.Background(), Config{
			Master: os.Getenv("WEIR_SHELL_TEST_MASTER"), User: "tester", Interactive: true,
			HistoryFile: os.Getenv("WEIR_SHELL_TEST_HISTORY"), Version: "test",
		}, ""))
	}
	code := m.Run()
	if testCluster != nil {
		testCluster.Close()
		os.RemoveAll(testDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

var (
	clusterOnce sync.Once
	testCluster *cluster.Cluster
	testDir     string
	clusterErr  error
)

// master starts the shared in-process cluster on first use.
func master(t *testing.T) string {
	t.Helper()
	clusterOnce.Do(func() {
		testDir, clusterErr = os.MkdirTemp("", "weir-shell-test")
		if clusterErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		testCluster, clusterErr = cluster.Start(ctx, cluster.Config{DataDir: testDir, HostIDs: []string{"shell-host"}})
	})
	if clusterErr != nil {
		t.Fatalf("starting cluster: %v", clusterErr)
	}
	return testCluster.MasterAddr()
}

// fixedNow makes every "Took" line read 0.0000 seconds.
func fixedNow() time.Time { return time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC) }

func runScript(t *testing.T, script string) (string, int) {
	var out bytes.Buffer
	code := Run(context.Background(), Config{
		Master: master(t), User: "tester", Stdout: &out, Stderr: &out,
		Now: fixedNow, Version: "test",
	}, script)
	return out.String(), code
}

// TestShellDataDriven runs testdata/shell/*: each "run" block is a script
// run non-interactively against an in-process cluster; the expected output
// is stdout and stderr together, then "exit N" when the status is not 0.
func TestShellDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/shell", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "run":
				out, code := runScript(t, d.Input)
				if code != 0 {
					out += fmt.Sprintf("exit %d\n", code)
				}
				return out
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		script string
		code   int
		want   string
	}{
		{"version", 0, "Weir test"},
		{"help 'get'", 0, "Get row or cell contents"},
		// Stops at the first error: the list does not run.
		{"exists 'exitcodes_nope'; frob; list", 1, "ERROR: column 26: unknown command 'frob'"},
		{"get 'exitcodes_nope', 'r'; list", 1, "ERROR: Unknown table exitcodes_nope!"},
		{"create 'exitcodes_mob', {NAME => 'f', IS_MOB => true}", 1, "ERROR: create with column family attribute IS_MOB is not supported by this Weir server yet"},
		{"exit; frob 'x'", 1, "unknown command"}, // checked before running
		{"version; exit; get 'exitcodes_nope', 'r'", 0, "Weir test"},
	} {
		out, code := runScript(t, tc.script)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%q: exit %d, output:\n%s\nwant exit %d and %q", tc.script, code, out, tc.code, tc.want)
		}
		if tc.code != 0 && strings.Contains(out, "TABLE\n") {
			t.Errorf("%q: ran past the error:\n%s", tc.script, out)
		}
	}
}

// TestNoConnectionNeeded checks that local commands start without a
// server (the master address is unreachable).
func TestNoConnectionNeeded(t *testing.T) {
	var out bytes.Buffer
	start := time.Now()
	code := Run(context.Background(), Config{Master: "127.0.0.1:1", Stdout: &out, Stderr: &out, Now: fixedNow, Version: "test"},
		"version; help; whoami")
	if code != 0 || !strings.Contains(out.String(), "Weir test") {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("local commands took %v", d)
	}
}

// TestEveryCommandHandled checks that each command of the table either
// runs or is declared unsupported.
func TestEveryCommandHandled(t *testing.T) {
	for _, s := range Commands() {
		if !supported(s.Name) && !unsupportedGroups[s.Group] && !unsupportedCommands[s.Name] {
			t.Errorf("command %s has no handler and is not marked unsupported", s.Name)
		}
	}
}

func TestToStringBinary(t *testing.T) {
	got := ToStringBinary([]byte("a\\b\x00\xff ~'\"z"))
	if want := `a\x5Cb\x00\xFF ~'"z`; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}
