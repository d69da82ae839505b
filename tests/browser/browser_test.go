//go:build browser

// Package browser loads the web UI of a real `weir standalone` in headless
// Chromium. It is behind the browser build tag (make test-ui builds bin/weir
// first and runs it); it skips, saying why, when no Chromium is installed.
package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weirdb/weir/client"
)

const (
	table  = "uitest"
	tenant = "tenant"
	limit  = 20 // tenant's REQUEST_NUMBER per second, per region server
)

func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("SKIP: no Chromium found (chromium, chromium-browser, google-chrome): `make setup` installs the Debian package chromium with apt-get when it can")
	return ""
}

// weirBinary is $WEIR_BINARY (make test-ui sets it to bin/weir) or a fresh
// build.
func weirBinary(t *testing.T) string {
	if b := os.Getenv("WEIR_BINARY"); b != "" {
		return b
	}
	out := filepath.Join(t.TempDir(), "weir")
	cmd := exec.Command("go", "build", "-o", out, "github.com/weirdb/weir/cmd/weir")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building weir: %v\n%s", err, b)
	}
	return out
}

// freePorts returns n ports each free together with the next width-1
// ports (region server i listens on port+i). The listeners are held until
// all are chosen, so the runs cannot overlap each other.
func freePorts(t *testing.T, n, width int) []int {
	var ports []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			_ = l.Close()
		}
	}()
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, l)
		base := l.Addr().(*net.TCPAddr).Port
		ok := true
		for i := 1; i < width && ok; i++ {
			next, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i))
			if ok = err == nil; ok {
				held = append(held, next)
			}
		}
		if ok {
			ports = append(ports, base)
		}
	}
	return ports
}

// artifacts is where screenshots go: $WEIR_ARTIFACTS or tests/artifacts.
func artifacts(t *testing.T) string {
	dir := os.Getenv("WEIR_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

type browser struct {
	t    *testing.T
	path string
	prof string
}

// run runs headless Chromium on url with extra flags; the virtual time
// budget lets the page's script poll /api/status a few times first.
func (b *browser) run(url string, flags ...string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--user-data-dir=" + b.prof, "--virtual-time-budget=4000", "--window-size=1400,1600"}, flags...)
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, b.path, append(args, url)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.t.Fatalf("chromium %v: %v\n%s", flags, err, stderr.String())
	}
	return stdout.String()
}

var (
	seqAttr     = regexp.MustCompile(`<body[^>]*data-seq="(\d+)"`)
	updatesAttr = regexp.MustCompile(`<body[^>]*data-updates="(\d+)"`)
	historySVG  = regexp.MustCompile(`<svg[^>]*data-chart="history"[^>]*>`)
	quotaChart  = regexp.MustCompile(`<svg[^>]*data-chart="quota"[^>]*>`)
	pointsAttr  = regexp.MustCompile(`data-points="(\d+)"`)
	polyline    = regexp.MustCompile(`<polyline points="([^"]*)"[^>]*data-series="total"`)
)

func attr(t *testing.T, re *regexp.Regexp, s, what string) int {
	t.Helper()
	m := re.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("%s not found in the page", what)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// section is the text of the <tbody data-list=name> of a dumped page.
func section(dom, name string) string {
	i := strings.Index(dom, `data-list="`+name+`"`)
	if i < 0 {
		return ""
	}
	j := strings.Index(dom[i:], "</tbody>")
	if j < 0 {
		return dom[i:]
	}
	return dom[i : i+j]
}

// statusSeq is the sequence number of the master's latest status.
func statusSeq(t *testing.T, ui string) int {
	t.Helper()
	resp, err := http.Get(ui + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct{ Seq int }
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st.Seq
}

func TestMasterPageInChromium(t *testing.T) {
	b := &browser{t: t, path: chromium(t), prof: t.TempDir()}
	bin := weirBinary(t)
	ports := freePorts(t, 5, 2)
	masterPort, rsPort, etcdPort, infoPort, rsInfoPort := ports[0], ports[1], ports[2], ports[3], ports[4]
	var log bytes.Buffer
	weir := exec.Command(bin, "standalone", "--data", t.TempDir(), "--regionservers", "2",
		"--port", strconv.Itoa(masterPort), "--regionserver-port", strconv.Itoa(rsPort),
		"--etcd-port", strconv.Itoa(etcdPort), "--info-port", strconv.Itoa(infoPort),
		"--regionserver-info-port", strconv.Itoa(rsInfoPort))
	weir.Stdout, weir.Stderr = &log, &log
	if err := weir.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- weir.Wait() }()
	t.Cleanup(func() {
		_ = weir.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = weir.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("weir standalone output:\n%s", log.String())
		}
	})
	master := fmt.Sprintf("127.0.0.1:%d", masterPort)
	ui := fmt.Sprintf("http://127.0.0.1:%d", infoPort)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	var admin *client.Conn
	for deadline := time.Now().Add(20 * time.Second); ; {
		var err error
		if admin, err = client.Connect(ctx, master); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("weir standalone did not come up: %v", err)
		}
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			t.Fatalf("weir standalone exited: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
	defer admin.Close()
	if err := admin.Admin().CreateTable(ctx, client.TableDescriptor{Name: table, Families: []client.FamilyDescriptor{{Name: "f"}}},
		[][]byte{[]byte("m")}); err != nil {
		t.Fatal(err)
	}
	if err := admin.Admin().SetQuota(ctx, client.QuotaSettings{User: tenant,
		Throttle: &client.Throttle{Type: client.RequestNumber, Limit: limit, Per: time.Second}}); err != nil {
		t.Fatal(err)
	}

	// The tenant writes as fast as its throttle lets it, from 4 goroutines.
	conn, err := client.Connect(ctx, master, client.WithUser(tenant))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var puts atomic.Int64
	for w := range 4 {
		wg.Go(func() {
			tbl := conn.Table(table)
			for i := 0; loadCtx.Err() == nil; i++ {
				row := fmt.Sprintf("%c%05d", "amtz"[w], i)
				if tbl.Put(loadCtx, client.NewPut([]byte(row)).AddColumn([]byte("f"), []byte("q"), []byte("v"))) == nil {
					puts.Add(1)
				}
			}
		})
	}
	defer func() { stopLoad(); wg.Wait() }()

	// Wait for the UI to have seen the servers, the table and load.
	for deadline := time.Now().Add(15 * time.Second); ; {
		var st struct {
			Servers []struct{ Regions int }
			Tables  []struct{ Name string }
			Quotas  []struct{ Subject string }
			Rates   struct{ Total float64 }
			QHist   []struct{ Rates map[string]float64 } `json:"quota_history"`
		}
		resp, err := http.Get(ui + "/api/status")
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
		}
		// The quota chart draws the master's usage history: two samples
		// of the tenant's usage must exist before the page can draw them.
		usage := 0
		for _, p := range st.QHist {
			for k := range p.Rates {
				if strings.Contains(k, tenant) {
					usage++
					break
				}
			}
		}
		if err == nil && len(st.Servers) == 2 && len(st.Tables) == 1 && len(st.Quotas) == 1 && st.Rates.Total > 0 && usage >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("master status never showed 2 servers, the table, the quota, load and 2 usage samples (%d puts): %+v %v", puts.Load(), st, err)
		}
		time.Sleep(250 * time.Millisecond)
	}

	dir := artifacts(t)
	dom1 := b.run(ui+"/", "--dump-dom")
	// The dumped DOMs stay with the screenshots, to read after a failure.
	_ = os.WriteFile(filepath.Join(dir, "master-dom-1.html"), []byte(dom1), 0o644)
	servers := section(dom1, "servers")
	if n := strings.Count(servers, "<tr>"); n != 2 {
		t.Errorf("region server rows: %d, want 2:\n%s", n, servers)
	}
	for _, want := range []string{fmt.Sprintf("127.0.0.1:%d", rsPort), fmt.Sprintf("127.0.0.1:%d", rsPort+1)} {
		if !strings.Contains(servers, want) {
			t.Errorf("region server rows lack %s", want)
		}
	}
	if tables := section(dom1, "tables"); !strings.Contains(tables, "default:"+table) || !strings.Contains(tables, `href="/table?name=default%3A`+table+`"`) {
		t.Errorf("table rows lack %s with its link:\n%s", table, tables)
	}
	if quotas := section(dom1, "quotas"); !strings.Contains(quotas, "USER =&gt; '"+tenant+"'") || !strings.Contains(quotas, fmt.Sprintf("%dreq/sec", limit)) {
		t.Errorf("quota rows lack %s's %dreq/sec:\n%s", tenant, limit, quotas)
	}
	seq1, updates := attr(t, seqAttr, dom1, "body data-seq"), attr(t, updatesAttr, dom1, "body data-updates")
	if updates < 2 {
		t.Errorf("the page's script polled %d times in 4 s of virtual time, want >= 2", updates)
	}
	svg := historySVG.FindString(dom1)
	if pts := attr(t, pointsAttr, svg, "history chart data-points"); pts < 2 {
		t.Errorf("the history chart drew %d points, want >= 2", pts)
	}
	quotaSVG := quotaChart.FindString(dom1)
	if pts := attr(t, pointsAttr, quotaSVG, "quota chart data-points"); pts < 2 {
		t.Errorf("the quota chart drew %d points of %s's usage, want >= 2", pts, tenant)
	}
	line1 := polyline.FindStringSubmatch(dom1)
	if line1 == nil {
		t.Fatal("the history chart has no total line")
	}

	// The server samples every second: once it has published a newer
	// sample, a later load of the page must show it and a different chart.
	for deadline := time.Now().Add(10 * time.Second); statusSeq(t, ui) <= seq1+1; {
		if time.Now().After(deadline) {
			t.Fatalf("the master's status stayed at seq %d for 10 s", seq1)
		}
		time.Sleep(200 * time.Millisecond)
	}
	dom2 := b.run(ui+"/", "--dump-dom")
	_ = os.WriteFile(filepath.Join(dir, "master-dom-2.html"), []byte(dom2), 0o644)
	if seq2 := attr(t, seqAttr, dom2, "body data-seq"); seq2 <= seq1 {
		t.Errorf("status seq went from %d to %d: the page is not live", seq1, seq2)
	}
	if line2 := polyline.FindStringSubmatch(dom2); line2 == nil || line2[1] == line1[1] {
		t.Errorf("the history chart did not change between loads 2 s apart")
	}

	for name, url := range map[string]string{"master.png": ui + "/", "regionserver.png": fmt.Sprintf("http://127.0.0.1:%d/", rsInfoPort)} {
		path, err := filepath.Abs(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(path)
		b.run(url, "--screenshot="+path)
		if fi, err := os.Stat(path); err != nil || fi.Size() < 10_000 {
			t.Errorf("screenshot %s: %v (size %v)", path, err, fi)
		} else {
			t.Logf("screenshot: %s", path)
		}
	}
	t.Logf("%d throttled puts by %s during the test", puts.Load(), tenant)
}
