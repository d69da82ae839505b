#!/usr/bin/env python3
"""Prints the markdown ratio table of bench/hbase/run.sh's results.

Reads OUT/hbase/*.json and OUT/weir/*.json (one `weir bench --json` report
per phase, with the server's CPU seconds added) and each side's
throttle/results.json. Ratios are Weir / HBase: an ops/s ratio above 1 and
a p99 ratio below 1 favour Weir.
"""

import argparse
import json
import os
import platform
import subprocess

PHASES = [
    ("load", "load (INSERT)", ["INSERT"]),
    ("workloada", "A (50/50 read/update)", ["READ", "UPDATE"]),
    ("workloadc", "C (read only)", ["READ"]),
    ("workloadf", "F (read-modify-write)", ["READ-MODIFY-WRITE"]),
    ("reload", "reload for E (INSERT)", ["INSERT"]),
    ("workloade", "E (short scans)", ["SCAN"]),
]
SIDES = ["hbase", "weir"]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def op(report, name):
    for o in report.get("ops", []):
        if o["name"] == name:
            return o
    return None


def fmt(x, pat="{:,.0f}"):
    return "–" if x is None else pat.format(x)


def ratio(w, h, pat="{:.2f}×"):
    if w is None or h is None or h == 0:
        return "–"
    return pat.format(w / h)


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = int(open("/proc/meminfo").readline().split()[1]) / 1024 / 1024
        load_avg = open("/proc/loadavg").read().split()[:3]
    except OSError:
        mem, load_avg = 0, ["?"] * 3
    return "%s, %d cores, %.0f GiB, %s %s; load average at the end %s" % (
        cpu, os.cpu_count(), mem, platform.system(), platform.release(), " ".join(load_avg))


def pinning(server, driver):
    """How run.sh's --server-cpus and --driver-cpus placed the processes."""
    if not server and not driver:
        return " (neither pinned: the driver and the server share the cores)"
    return "; server on CPU %s, driver on CPU %s (taskset)" % (server or "any", driver or "any")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--started", default="?")
    ap.add_argument("--command", default="bench/hbase/run.sh")
    ap.add_argument("--wal-hsync", default="false")
    ap.add_argument("--server-cpus", default="")
    ap.add_argument("--driver-cpus", default="")
    a = ap.parse_args()

    rep = {s: {p: load(os.path.join(a.out, s, p + ".json")) for p, _, _ in PHASES} for s in SIDES}
    print("# Weir vs HBase 2.6.4, side by side\n")
    print("Started %s; machine: %s." % (a.started, machine()))
    print("Command: `%s`\n" % a.command)
    try:
        java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
        print("HBase 2.6.4-hadoop3 standalone (Maven Central jars, local filesystem, quotas on, %s); "
              "Weir `weir standalone` (one region server, queue-mode quotas). Both on 127.0.0.1 with "
              "hbase.wal.hsync=%s, driven by `weir bench` in another process on the same machine%s.\n"
              % (java, a.wal_hsync, pinning(a.server_cpus, a.driver_cpus)))
    except OSError:
        pass
    print("| workload | HBase ops/s | Weir ops/s | ops/s ratio | HBase p99 ms | Weir p99 ms | p99 ratio "
          "| HBase server CPU/op | Weir server CPU/op |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p, label, ops in PHASES:
        h, w = rep["hbase"][p], rep["weir"][p]
        if h is None and w is None:
            continue
        thru = {s: (r["throughput_ops_sec"] if r else None) for s, r in (("h", h), ("w", w))}
        p99 = {}
        cpu = {}
        for s, r in (("h", h), ("w", w)):
            p99[s] = [(op(r, o)["p99_us"] / 1000 if r and op(r, o) else None) for o in ops]
            cpu[s] = (r["server_cpu_sec"] * 1e6 / r["operations"]) if r and r["operations"] else None
        names = "/".join(o for o in ops) + " " if len(ops) > 1 else ""
        print("| %s | %s | %s | %s | %s%s | %s%s | %s | %s | %s |" % (
            label, fmt(thru["h"]), fmt(thru["w"]), ratio(thru["w"], thru["h"]),
            names, " / ".join(fmt(x, "{:.2f}") for x in p99["h"]),
            names, " / ".join(fmt(x, "{:.2f}") for x in p99["w"]),
            " / ".join(ratio(wx, hx) for wx, hx in zip(p99["w"], p99["h"])),
            fmt(cpu["h"], "{:,.0f} µs"), fmt(cpu["w"], "{:,.0f} µs")))
    print("\nops/s ratio and p99 ratio are Weir ÷ HBase. Server CPU/op is the server process's "
          "utime+stime (/proc/PID/stat) during the phase ÷ the phase's operations (a read-modify-write "
          "counts once; the load's includes the table creation).")
    mem = {s: load(os.path.join(a.out, s, "memory.json")) for s in SIDES}
    if all(mem.values()):
        print("Peak server RSS (VmHWM, /proc/PID/status, at the end of the workloads): HBase %.1f GiB, Weir %.1f GiB." % (
            mem["hbase"]["peak_rss_kb"] / 2**20, mem["weir"]["peak_rss_kb"] / 2**20))
    print()

    study = {s: load(os.path.join(a.out, s, "throttle", "results.json")) for s in SIDES}
    if not any(study.values()):
        return
    print("## Throttle study (U unthrottled, T throttled; both workload C)\n")
    print("| T's limit (req/s) | HBase total ops/s | HBase T ops/s | HBase throttle error | HBase T p99 ms | HBase T failed "
          "| Weir total ops/s | Weir T ops/s | Weir throttle error | Weir T p99 ms | Weir T failed |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = {}
    for s in SIDES:
        for r in (study[s] or {}).get("rows", []):
            rows.setdefault((r["variant"], r["throttle"]), {})[s] = r
    for (_, throttle), by in rows.items():
        cells = []
        for s in SIDES:
            r = by.get(s)
            if r is None:
                cells += ["–"] * 5
                continue
            err = r.get("throttle_error")
            cells += [fmt(r["total_ops_sec"]), fmt(r["thruput_t_ops_sec"]),
                      "–" if err is None else "{:+.1f}%".format(err * 100), fmt(r["latency_t_p99_ms"], "{:.2f}"),
                      fmt(r.get("errors_t", 0))]
        print("| %s | %s |" % (throttle, " | ".join(cells)))
    print("\nT ops/s counts successful operations; throttle error = that ÷ T's limit − 1; T failed = T's operations "
          "that failed (still throttled after the client's retries: 15, HBase's default). HBase rejects over-limit "
          "requests (RpcThrottlingException, the client waits the hinted time and retries); Weir queues them by default.")
    for s in SIDES:
        for r in (study[s] or {}).get("u_alone") or []:
            print("%s, U alone (T idle, %s variant): %s ops/s, p99 %s ms: the most U's threads do by themselves." % (
                {"hbase": "HBase", "weir": "Weir"}[s], r["variant"], fmt(r["thruput_u_ops_sec"]), fmt(r["latency_u_p99_ms"], "{:.2f}")))
    for s in SIDES:
        c = load(os.path.join(a.out, s, "throttle", "cpu.json"))
        if c and study[s]:
            runs = study[s]["rows"] + (study[s].get("u_alone") or [])
            ops = sum(r["total_ops_sec"] for r in runs) * study[s]["duration_sec"]
            print("%s server CPU during the study: %.1f s (about %.0f µs per measured op, warm-ups included in the CPU)." % (
                {"hbase": "HBase", "weir": "Weir"}[s], c["server_cpu_sec"], c["server_cpu_sec"] * 1e6 / max(ops, 1)))


if __name__ == "__main__":
    main()
