package webui

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"time"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"bytes":  formatBytes,
	"rate":   formatRate,
	"pct":    func(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" },
	"num":    func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) },
	"clock":  func(t time.Time) string { return t.UTC().Format("15:04:05") },
	"stamp":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"ms":     func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) + " ms" },
	"orDash": orDash,
}).ParseFS(templateFS, "templates/*.html"))

// registerCommon adds what both UIs serve: the page at /, /api/status,
// /static/ and a 404 page for every other path.
func registerCommon(mux *http.ServeMux, page string, status func() any) {
	mux.Handle("GET /static/", staticHandler())
	mux.HandleFunc("GET /api/status", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, status()) })
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { render(w, http.StatusOK, page, status()) })
	mux.HandleFunc("/", notFoundHandler)
}

func staticHandler() http.Handler {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return http.StripPrefix("/static/", http.FileServerFS(sub))
}

// render executes a page into a buffer first, so a template error becomes
// a 500 instead of half a page.
func render(w http.ResponseWriter, code int, name string, data any) {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, "webui: rendering "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(b.Bytes())
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "webui: encoding status: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

func notFound(w http.ResponseWriter, what string) {
	render(w, http.StatusNotFound, "notfound.html", what)
}

func notFoundHandler(w http.ResponseWriter, r *http.Request) {
	notFound(w, "no page at "+quoteName(r.URL.Path))
}

// quoteName shows a user-supplied name in a message; html/template escapes
// it on output.
func quoteName(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strconv.Quote(s)
}

func formatBytes(v any) string {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case uint64:
		f = float64(x)
	case int64:
		f = float64(x)
	case int:
		f = float64(x)
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", f)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

func formatRate(f float64) string {
	switch {
	case f >= 100:
		return strconv.FormatFloat(f, 'f', 0, 64)
	case f >= 1:
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
