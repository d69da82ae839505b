package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/weirdb/weir/client"
)

// child is one weir process the study started.
type child struct {
	name string
	addr string // the address it serves clients on
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, set before done closes
}

func (ch *child) pid() int { return ch.cmd.Process.Pid }

func (ch *child) exited() bool {
	select {
	case <-ch.done:
		return true
	default:
		return false
	}
}

// procCluster is a Weir cluster of separate processes on this host: an
// etcd, a master and one process per region server instance.
type procCluster struct {
	master  string
	etcd    *child
	mast    *child
	servers []*child
}

// startChild starts weir with args, its output appended to logPath.
func startChild(c *ColocationConfig, name, addr, logPath string, args ...string) (*child, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	argv := append(append([]string(nil), c.Command[1:]...), args...)
	cmd := exec.Command(c.Command[0], argv...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), c.Env...)
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", name, c.Command[0], err)
	}
	ch := &child{name: name, addr: addr, cmd: cmd, log: f, done: make(chan struct{})}
	go func() {
		ch.err = cmd.Wait()
		f.Close()
		close(ch.done)
	}()
	return ch, nil
}

// stop asks the process to stop (SIGTERM) and kills it after a grace
// period. It returns once the process has exited.
func (ch *child) stop(grace time.Duration) error {
	if ch.exited() {
		return nil
	}
	_ = ch.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-ch.done:
		return nil
	case <-time.After(grace):
		_ = ch.cmd.Process.Kill()
		<-ch.done
		return fmt.Errorf("bench: %s (pid %d) did not stop within %v of SIGTERM; killed", ch.name, ch.pid(), grace)
	}
}

// waitListening waits until ch accepts TCP connections on its address.
func (ch *child) waitListening(ctx context.Context, logPath string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		if ch.exited() {
			return fmt.Errorf("bench: %s exited while starting (%v); see %s", ch.name, ch.err, logPath)
		}
		conn, err := net.DialTimeout("tcp", ch.addr, time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("bench: %s is not listening on %s after 60 s; see %s", ch.name, ch.addr, logPath)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// freePorts returns n ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("bench: finding a free port: %w", err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// startProcCluster starts etcd, the master and n region server processes
// for configuration n, and waits until the master sees every region
// server. On error it returns the cluster started so far (to stop) or nil.
func startProcCluster(ctx context.Context, c *ColocationConfig, n int) (*procCluster, error) {
	// etcd client, etcd peer, master, master HTTP, then the region servers.
	var ports []int
	if c.PortBase > 0 {
		ports = []int{c.PortBase, c.PortBase + 1, c.PortBase + 2, c.PortBase + 3}
		for i := 0; i < n; i++ {
			ports = append(ports, c.PortBase+10+i)
		}
	} else {
		var err error
		if ports, err = freePorts(4 + n); err != nil {
			return nil, err
		}
	}
	rsInfo := 0 // free ports
	if c.PortBase > 0 {
		rsInfo = c.PortBase + 40
	}
	dir := filepath.Join(c.DataDir, fmt.Sprintf("%drs", n))
	logs := filepath.Join(c.OutDir, "logs")
	logPath := func(name string) string { return filepath.Join(logs, fmt.Sprintf("%drs-%s.log", n, name)) }
	addr := func(p int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p)) }
	etcdURL := addr(ports[0])
	cl := &procCluster{master: addr(ports[2])}
	var err error
	cl.etcd, err = startChild(c, "etcd", etcdURL, logPath("etcd"), "etcd", "--data", filepath.Join(dir, "etcd"),
		"--client-port", strconv.Itoa(ports[0]), "--peer-port", strconv.Itoa(ports[1]))
	if err != nil {
		return nil, err
	}
	if err := cl.etcd.waitListening(ctx, logPath("etcd")); err != nil {
		return cl, err
	}
	cl.mast, err = startChild(c, "master", cl.master, logPath("master"), "master", "--etcd", etcdURL,
		"--port", strconv.Itoa(ports[2]), "--info-port", strconv.Itoa(ports[3]))
	if err != nil {
		return cl, err
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("regionserver-%d", i)
		// Every instance gets port ports[4+i] as instance i: --port is
		// instance 0's port, so it is shifted back by i.
		args := []string{"regionserver", "--etcd", etcdURL,
			"--data", filepath.Join(dir, "rs"), "--port", strconv.Itoa(ports[4+i] - i), "--info-port", strconv.Itoa(rsInfo),
			"--instances", "1", "--first-instance", strconv.Itoa(i), "--host-id", "colocation-host"}
		for _, kv := range c.ServerConf {
			args = append(args, "-D", kv)
		}
		rs, err := startChild(c, name, addr(ports[4+i]), logPath(name), args...)
		if err != nil {
			return cl, err
		}
		cl.servers = append(cl.servers, rs)
	}
	for _, ch := range append([]*child{cl.mast}, cl.servers...) {
		if err := ch.waitListening(ctx, logPath(ch.name)); err != nil {
			return cl, err
		}
	}
	return cl, cl.waitServers(ctx, n)
}

// waitServers waits until the master lists n live region servers, so that
// the table's regions are spread over all of them.
func (cl *procCluster) waitServers(ctx context.Context, n int) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var last error
	for {
		conn, err := client.Connect(ctx, cl.master, client.WithRetries(1))
		if err == nil {
			var st client.ClusterStatus
			st, err = conn.Admin().ClusterStatus(ctx)
			conn.Close()
			if err == nil && len(st.Servers) >= n {
				return nil
			}
			if err == nil {
				err = fmt.Errorf("%d of %d region servers registered", len(st.Servers), n)
			}
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("bench: waiting for %d region servers: %w (last: %w)", n, ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stop stops the region servers, the master and etcd, in that order.
func (cl *procCluster) stop() error {
	var errs []error
	for _, ch := range cl.servers {
		_ = ch.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, ch := range cl.servers {
		errs = append(errs, ch.stop(30*time.Second))
	}
	for _, ch := range []*child{cl.mast, cl.etcd} {
		if ch != nil {
			errs = append(errs, ch.stop(30*time.Second))
		}
	}
	return errors.Join(errs...)
}
