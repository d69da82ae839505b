package arch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const mod = "github.com/weirdb/weir/"

// rules lists, for each package (prefix) of Weir, the Weir packages it must
// not depend on, directly or transitively. The arrows of the architecture:
// cmd → {master, regionserver, shell, bench} → {region, meta, quota,
// hbaserpc} → storage; shell, bench → client → hbaserpc/hbasepb.
var rules = []struct {
	pkg       string
	forbidden []string
	// allowThirdParty, when set, is the only non-standard code the
	// package may import directly.
	allowThirdParty []string
}{
	{pkg: "internal/storage", forbidden: []string{"internal/cell", "internal/filter", "internal/region", "internal/regionserver", "internal/master", "internal/meta", "internal/quota", "internal/hbaserpc", "internal/hbasepb", "internal/rpcmetrics", "client", "shell", "bench"},
		allowThirdParty: []string{"github.com/cockroachdb/", "golang.org/x/"}},
	{pkg: "internal/invariants", forbidden: []string{"internal/", "client", "shell", "bench"}},
	{pkg: "internal/cell", forbidden: []string{"internal/", "client", "shell", "bench"}},
	{pkg: "internal/filter", forbidden: []string{"internal/storage", "internal/region", "internal/regionserver",
		"internal/master", "internal/quota", "internal/hbaserpc", "internal/rpcmetrics", "client", "shell", "bench"}},
	{pkg: "internal/region", forbidden: []string{"internal/regionserver", "internal/master", "internal/quota",
		"internal/hbaserpc", "internal/rpcmetrics", "internal/meta", "client", "shell", "bench", "internal/cli"}},
	{pkg: "internal/filterpb", forbidden: []string{"internal/storage", "internal/region", "internal/regionserver",
		"internal/master", "internal/meta", "internal/quota", "internal/clientsvc", "client", "shell", "bench"}},
	// quotawire is the wire form of Weir's quota extensions, which the
	// client shares with the server: a leaf.
	{pkg: "internal/quotawire", forbidden: []string{"internal/", "client", "shell", "bench"}},
	{pkg: "client", forbidden: []string{"internal/region", "internal/storage", "internal/regionserver",
		"internal/master", "internal/quota", "shell", "bench"}},
}

func TestDependencyDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}|{{.Dir}}|{{join .GoFiles " "}}`, "github.com/weirdb/weir/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		// go test caches a result by the files the test itself opened or
		// stat'ed, not by what go list read: without these stats a cached
		// pass hid an import that broke the rules (a clean clone's CI
		// reused it from the machine's build cache).
		for _, f := range strings.Fields(parts[4]) {
			if _, err := os.Stat(filepath.Join(parts[3], f)); err != nil {
				t.Fatal(err)
			}
		}
		pkg := strings.TrimPrefix(parts[0], mod)
		direct := map[string]bool{}
		for _, d := range strings.Fields(parts[1]) {
			direct[d] = true
		}
		for _, r := range rules {
			if pkg != r.pkg && !strings.HasPrefix(pkg, r.pkg+"/") {
				continue
			}
			seen[r.pkg] = true
			for _, dep := range strings.Fields(parts[2]) {
				if strings.HasPrefix(dep, mod) {
					d := strings.TrimPrefix(dep, mod)
					for _, f := range r.forbidden {
						if (d == f || strings.HasPrefix(d, f+"/") || strings.HasSuffix(f, "/") && strings.HasPrefix(d, f)) && !strings.HasPrefix(d, r.pkg) {
							t.Errorf("%s depends on %s: forbidden by the layering rules", pkg, d)
						}
					}
					continue
				}
				// Third-party rules bind direct imports only: what Pebble
				// itself pulls in is Pebble's business.
				if r.allowThirdParty == nil || isStd(dep) || !direct[dep] {
					continue
				}
				ok := false
				for _, a := range r.allowThirdParty {
					ok = ok || strings.HasPrefix(dep, a)
				}
				if !ok {
					t.Errorf("%s depends on %s: only %v may be imported there", pkg, dep, r.allowThirdParty)
				}
			}
		}
	}
	for _, r := range rules {
		if !seen[r.pkg] && r.pkg != "client" {
			t.Errorf("rule for %s matched no package: is the layout out of date?", r.pkg)
		}
	}
}

// isStd reports whether an import path belongs to the standard library
// (no dot in its first element), vendored std packages included.
func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".") || strings.HasPrefix(p, "vendor/")
}
