// Package webui serves the web pages of the master and the region servers
// on their info ports, next to /metrics: server-rendered html/template
// pages, a JSON endpoint (/api/status) behind them and a small hand-written
// script (static/ui.js) that polls it each second and redraws the live
// charts. Every asset is embedded; nothing comes from the internet.
//
// The pages never reach into a server's state: each UI owns one goroutine
// (Run) that takes a sample every Interval, derives rates from the previous
// sample and publishes an immutable status through an atomic pointer. HTTP
// handlers only read the latest status, so a slow browser or a stuck
// region server never holds up an RPC, and an RPC never waits for a page.
//
// The master's UI polls every region server's /api/status (concurrently,
// each bounded by a timeout) and merges them with a catalog sample the
// master hands it: servers, tables and regions, quota settings, masters.
package webui
