package shell

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInteractive drives the interactive shell through a terminal: tmux
// runs this test binary as the shell (see TestMain) in a detached pane;
// the test types keys with send-keys and reads the screen with
// capture-pane. It covers the prompt, table and command name completion,
// history (Up arrow), continuation lines, exit, and the history file.
func TestInteractive(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("the interactive test needs tmux to drive a terminal, and tmux is not installed")
	}
	addr := master(t)
	if out, code := runScript(t, "create 'itab_completion', 'f'; put 'itab_completion', 'r1', 'f:c', 'v', 1795406400000"); code != 0 {
		t.Fatalf("setup:\n%s", out)
	}
	defer runScript(t, "disable 'itab_completion'; drop 'itab_completion'")
	dir := t.TempDir()
	sock := filepath.Join(dir, "tmux.sock")
	hist := filepath.Join(dir, "history")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tm := func(args ...string) (string, error) {
		out, err := exec.Command(tmux, append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	shellCmd := fmt.Sprintf("env TERM=xterm WEIR_SHELL_TEST_CHILD=1 WEIR_SHELL_TEST_MASTER=%s WEIR_SHELL_TEST_HISTORY=%s %s; sleep 30",
		addr, hist, self)
	if out, err := tm("new-session", "-d", "-s", "weir", "-x", "180", "-y", "50", shellCmd); err != nil {
		t.Skipf("tmux cannot start a session here (%v: %s); skipping the interactive test", err, out)
	}
	defer tm("kill-server")
	screen := func() string {
		out, _ := tm("capture-pane", "-p", "-J", "-t", "weir")
		return out
	}
	waitFor := func(what string, cond func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			s := screen()
			if cond(s) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	contains := func(sub string) func(string) bool {
		return func(s string) bool { return strings.Contains(s, sub) }
	}
	count := func(sub string, n int) func(string) bool {
		return func(s string) bool { return strings.Count(s, sub) >= n }
	}
	send := func(keys ...string) {
		t.Helper()
		if out, err := tm(append([]string{"send-keys", "-t", "weir"}, keys...)...); err != nil {
			t.Fatalf("send-keys %q: %v: %s", keys, err, out)
		}
	}
	typeText := func(s string) { t.Helper(); send("-l", s) }

	waitFor("the prompt", contains("weir(main):001:0> "))

	// Table name completion inside the first quoted argument.
	typeText("get 'itab_compl")
	send("Tab")
	waitFor("the completed table name", contains("get 'itab_completion'"))
	typeText(", 'r1'")
	send("Enter")
	waitFor("the get output", count("value=v", 1))
	waitFor("the second prompt", contains("weir(main):002:0> "))

	// Command name completion.
	typeText("descri")
	send("Tab")
	waitFor("the completed command", contains("weir(main):002:0> describe"))
	typeText(" 'itab_completion'")
	send("Enter")
	waitFor("the describe output", contains("Table itab_completion is ENABLED"))

	// History: Up Up recalls the get.
	waitFor("the third prompt", contains("weir(main):003:0> "))
	send("Up", "Up")
	waitFor("the recalled get", contains("weir(main):003:0> get 'itab_completion', 'r1'"))
	send("Enter")
	waitFor("the get output again", count("value=v", 2))

	// A statement continues while it is incomplete.
	typeText("get 'itab_completion',")
	send("Enter")
	waitFor("the continuation prompt", contains("weir(main):005:0* "))
	typeText("'r1'")
	send("Enter")
	waitFor("the continued get's output", count("value=v", 3))

	// Errors are one line and the shell goes on.
	typeText("get 'itab_nope', 'r1'")
	send("Enter")
	waitFor("the error", contains("ERROR: Unknown table itab_nope!"))

	typeText("exit")
	send("Enter")
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(hist)
		if err == nil && strings.Contains(string(b), "get 'itab_completion', 'r1'") && strings.Contains(string(b), "exit") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("history file %s not written (err %v):\n%s\nscreen:\n%s", hist, err, b, screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
