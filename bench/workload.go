package bench

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Operation indexes, in report order.
const (
	OpInsert = iota
	OpRead
	OpRMW
	OpScan
	OpUpdate
	// OpVerify is the check of what a read returned under
	// dataintegrity=true; it has no proportion of its own.
	OpVerify
	numOps
)

// OpNames are the operations' names in YCSB's output.
var OpNames = [numOps]string{"INSERT", "READ", "READ-MODIFY-WRITE", "SCAN", "UPDATE", "VERIFY"}

// textExporters are the accepted values of exporter.
var textExporters = map[string]bool{
	"site.ycsb.measurements.exporter.TextMeasurementsExporter":      true,
	"com.yahoo.ycsb.measurements.exporter.TextMeasurementsExporter": true,
}

// maxFieldLength bounds a field's length (fieldlength, a histogram's
// largest bucket).
const maxFieldLength = 1 << 20

// Workload is a parsed, validated CoreWorkload configuration. It is
// immutable once built; each worker thread draws from its own generators.
type Workload struct {
	DB              string
	Table, Family   string
	Threads         int
	Target          float64 // ops/s over all threads; 0: unthrottled
	RecordCount     int64
	OperationCount  int64
	InsertStart     int64
	InsertCount     int64
	MaxExecution    time.Duration
	FieldCount      int
	FieldLength     int64
	MinFieldLength  int64
	FieldLengthDist string
	FieldPrefix     string
	ReadAllFields   bool
	// ReadAllByName (readallfieldsbyname) names every field in a read of
	// all fields instead of asking for the whole family.
	ReadAllByName  bool
	WriteAllFields bool
	// DataIntegrity (dataintegrity) writes values derived from key and
	// field, and checks every read's (OpVerify).
	DataIntegrity bool
	Proportions   [numOps]float64
	RequestDist   string
	// ExpPercentile and ExpFrac are exponential.percentile and
	// exponential.frac: with requestdistribution=exponential, that
	// percentage of reads falls within the newest fraction of recordcount.
	ExpPercentile, ExpFrac float64
	ZeroPadding            int
	Ordered                bool
	MinScanLength          int64
	MaxScanLength          int64
	ScanLengthDist         string
	HotDataFrac            float64
	HotOpFrac              float64
	InsertRetries          int
	InsertRetryWait        time.Duration
	Splits                 int
	// PageFilter is hbase.usepagefilter (default true): scans carry a
	// PageFilter of their length, as YCSB 0.17's hbase2 binding sends
	// them.
	PageFilter      bool
	ClientBuffering bool
	WriteBufferSize int64
	Durability      string
	// ClientRetries is hbase.client.retries.number: how often the client
	// retries a failed operation (a throttled one waits the server's
	// hint first). Default 15, the HBase client's, which YCSB's hbase2
	// binding runs with.
	ClientRetries int
	// MeasureInterval is measurement.interval: op (latency from each
	// operation's start), intended (from when it was due under -target)
	// or both (the latter as Intended-OP sections), as YCSB reports them.
	MeasureInterval string
	// Percentiles is hdrhistogram.percentiles when set: the report's
	// percentile lines, named as YCSB names them; nil for the default
	// 50th, 95th, 99th and 99.9th.
	Percentiles []float64
	// StatusEvery is status.interval: the period of -s's status lines.
	StatusEvery time.Duration

	fieldNames [][]byte
	hist       *Histogram // fieldlengthdistribution=histogram
	cumulative [numOps]float64
	values     []byte // pre-generated value bytes; values are windows of it
}

// NewWorkload checks props and builds the workload. Every problem is
// reported here, before any connection is made or load is started.
func NewWorkload(p Props) (*Workload, error) {
	for k := range p {
		if !knownProps[k] {
			return nil, fmt.Errorf("unknown workload property %q%s", k, suggest(k))
		}
	}
	if w, ok := p["workload"]; !ok {
		return nil, errors.New("no workload: give a workload file (-P workloads/workloada) or -p workload=site.ycsb.workloads.CoreWorkload")
	} else if !coreWorkloadClasses[w] {
		return nil, fmt.Errorf("workload %q is not supported: only CoreWorkload (site.ycsb.workloads.CoreWorkload)", w)
	}
	r := &propReader{p: p}
	w := &Workload{
		DB:              r.oneOf("db", "hbase", "hbase", "hbase2", "weir", "null", "site.ycsb.db.hbase2.HBaseClient2", "site.ycsb.BasicDB"),
		Table:           r.str("table", "usertable"),
		Family:          r.str("columnfamily", "family"),
		Threads:         int(r.int("threadcount", 1)),
		Target:          r.float("target", 0),
		RecordCount:     r.nonNeg("recordcount", 0),
		OperationCount:  r.nonNeg("operationcount", 0),
		InsertStart:     r.nonNeg("insertstart", 0),
		MaxExecution:    time.Duration(r.nonNeg("maxexecutiontime", 0)) * time.Second,
		FieldCount:      int(r.int("fieldcount", 10)),
		FieldLength:     r.int("fieldlength", 100),
		MinFieldLength:  r.int("minfieldlength", 1),
		FieldLengthDist: r.oneOf("fieldlengthdistribution", "constant", "constant", "uniform", "zipfian", "histogram"),
		FieldPrefix:     r.str("fieldnameprefix", "field"),
		ReadAllFields:   r.bool("readallfields", true),
		ReadAllByName:   r.bool("readallfieldsbyname", false),
		DataIntegrity:   r.bool("dataintegrity", false),
		WriteAllFields:  r.bool("writeallfields", false),
		RequestDist:     r.oneOf("requestdistribution", "uniform", "uniform", "zipfian", "latest", "hotspot", "sequential", "exponential"),
		ExpPercentile:   r.float("exponential.percentile", 95),
		ExpFrac:         r.float("exponential.frac", 0.8571428571),
		ZeroPadding:     int(r.int("zeropadding", 1)),
		Ordered:         r.oneOf("insertorder", "hashed", "hashed", "ordered") == "ordered",
		MinScanLength:   r.int("minscanlength", 1),
		MaxScanLength:   r.int("maxscanlength", 1000),
		ScanLengthDist:  r.oneOf("scanlengthdistribution", "uniform", "uniform", "zipfian"),
		HotDataFrac:     r.fraction("hotspotdatafraction", 0.2),
		HotOpFrac:       r.fraction("hotspotopnfraction", 0.8),
		InsertRetries:   int(r.nonNeg("core_workload_insertion_retry_limit", r.nonNeg("insertionretrylimit", 0))),
		InsertRetryWait: time.Duration(r.nonNeg("core_workload_insertion_retry_interval", r.nonNeg("insertionretryinterval", 3))) * time.Second,
		Splits:          int(r.int("splits", 10)),
		PageFilter:      r.bool("hbase.usepagefilter", true),
		ClientBuffering: r.bool("clientbuffering", false),
		WriteBufferSize: r.int("writebuffersize", 12<<20),
		Durability:      r.oneOf("durability", "USE_DEFAULT", "USE_DEFAULT", "SKIP_WAL", "ASYNC_WAL", "SYNC_WAL", "FSYNC_WAL"),
		ClientRetries:   int(r.nonNeg("hbase.client.retries.number", 15)),
	}
	w.Proportions[OpRead] = r.fraction("readproportion", 0.95)
	w.Proportions[OpUpdate] = r.fraction("updateproportion", 0.05)
	w.Proportions[OpInsert] = r.fraction("insertproportion", 0)
	w.Proportions[OpScan] = r.fraction("scanproportion", 0)
	w.Proportions[OpRMW] = r.fraction("readmodifywriteproportion", 0)
	w.InsertCount = r.nonNeg("insertcount", w.RecordCount-w.InsertStart)
	histFile := r.str("fieldlengthhistogram", "hist.txt")
	w.MeasureInterval = r.oneOf("measurement.interval", "op", "op", "intended", "both")
	w.StatusEvery = time.Duration(r.int("status.interval", 10)) * time.Second
	if v, ok := p["hdrhistogram.percentiles"]; ok {
		for _, f := range strings.Split(v, ",") {
			x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || !(x > 0 && x <= 100) {
				return nil, fmt.Errorf("hdrhistogram.percentiles=%q: %q is not a percentile in (0, 100]", v, strings.TrimSpace(f))
			}
			w.Percentiles = append(w.Percentiles, x)
		}
	}
	if v, ok := p["measurementtype"]; ok && v != "hdrhistogram" {
		return nil, fmt.Errorf("measurementtype=%s: only hdrhistogram (YCSB's default) is measured", v)
	}
	if v, ok := p["exporter"]; ok && !textExporters[v] {
		return nil, fmt.Errorf("exporter=%s: only YCSB's text exporter; --json writes the report as JSON", v)
	}
	if r.err != nil {
		return nil, r.err
	}
	switch {
	case w.Threads < 1:
		return nil, fmt.Errorf("threadcount=%d: want at least 1", w.Threads)
	case w.Target < 0:
		return nil, fmt.Errorf("target=%v: want a non-negative rate", w.Target)
	case w.FieldCount < 1:
		return nil, fmt.Errorf("fieldcount=%d: want at least 1", w.FieldCount)
	case w.FieldLength < 1 || w.MinFieldLength < 1 || w.MinFieldLength > w.FieldLength:
		return nil, fmt.Errorf("fieldlength=%d, minfieldlength=%d: want 1 <= minfieldlength <= fieldlength", w.FieldLength, w.MinFieldLength)
	case w.FieldLength > maxFieldLength:
		return nil, fmt.Errorf("fieldlength=%d: at most 1 MiB", w.FieldLength)
	case w.DataIntegrity && w.FieldLengthDist != "constant":
		return nil, fmt.Errorf("dataintegrity=true needs fieldlengthdistribution=constant, not %s: a reader must know each value's length", w.FieldLengthDist)
	case w.RequestDist == "exponential" && !(w.ExpPercentile > 0 && w.ExpPercentile < 100):
		return nil, fmt.Errorf("exponential.percentile=%v: want more than 0 and less than 100", w.ExpPercentile)
	case w.RequestDist == "exponential" && !(w.ExpFrac > 0 && !math.IsInf(w.ExpFrac, 1)):
		return nil, fmt.Errorf("exponential.frac=%v: want a positive fraction of recordcount", w.ExpFrac)
	case w.MinScanLength < 1 || w.MinScanLength > w.MaxScanLength:
		return nil, fmt.Errorf("minscanlength=%d, maxscanlength=%d: want 1 <= minscanlength <= maxscanlength", w.MinScanLength, w.MaxScanLength)
	case w.ZeroPadding < 1 || w.ZeroPadding > 64:
		return nil, fmt.Errorf("zeropadding=%d: want 1..64", w.ZeroPadding)
	case w.StatusEvery < time.Second:
		return nil, fmt.Errorf("status.interval=%d: want at least 1 second", w.StatusEvery/time.Second)
	case w.Splits < 1:
		return nil, fmt.Errorf("splits=%d: want at least 1", w.Splits)
	case w.Table == "" || w.Family == "":
		return nil, errors.New("table and columnfamily must not be empty")
	}
	sum := 0.0
	for i, f := range w.Proportions {
		sum += f
		w.cumulative[i] = sum
	}
	if math.Abs(sum-1) > 1e-6 {
		return nil, fmt.Errorf("operation proportions (read %v + update %v + insert %v + scan %v + readmodifywrite %v) sum to %.6g, not 1",
			w.Proportions[OpRead], w.Proportions[OpUpdate], w.Proportions[OpInsert], w.Proportions[OpScan], w.Proportions[OpRMW], sum)
	}
	for i := 0; i < w.FieldCount; i++ {
		w.fieldNames = append(w.fieldNames, []byte(w.FieldPrefix+strconv.Itoa(i)))
	}
	maxLen := w.FieldLength
	if w.FieldLengthDist == "histogram" {
		h, err := LoadHistogram(histFile)
		if err != nil {
			return nil, fmt.Errorf("fieldlengthhistogram: %w", err)
		}
		w.hist, maxLen = h, h.Max()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	w.values = make([]byte, 1<<20+maxLen)
	for i := range w.values {
		w.values[i] = byte(' ' + rng.IntN(95)) // printable ASCII, as YCSB's random values
	}
	return w, nil
}

// checkPhase reports settings that make the phase meaningless.
func (w *Workload) checkPhase(phase string) error {
	switch phase {
	case "load":
		if w.InsertCount < 1 {
			return fmt.Errorf("load: nothing to insert: set recordcount (and optionally insertstart/insertcount)")
		}
	case "run":
		if w.RecordCount < 1 && w.InsertCount < 1 {
			return errors.New("run: recordcount is not set: it must match the loaded data")
		}
		if w.InsertCount < 1 {
			return fmt.Errorf("run: insertcount=%d: the key range to read is empty", w.InsertCount)
		}
		if w.OperationCount == 0 && w.MaxExecution == 0 {
			return errors.New("run: set operationcount or maxexecutiontime, or the run never ends")
		}
	default:
		return fmt.Errorf("phase %q: want load or run", phase)
	}
	return nil
}

// FieldNames returns the field (qualifier) names, field0...
func (w *Workload) FieldNames() [][]byte { return w.fieldNames }

// AppendKey appends the row key of key number n: "user" followed by the
// number (hashed unless insertorder=ordered), left-padded with zeros to
// zeropadding digits.
func (w *Workload) AppendKey(dst []byte, n int64) []byte {
	if !w.Ordered {
		n = FNVHash64(n)
	}
	dst = append(dst, "user"...)
	var num [20]byte
	d := strconv.AppendInt(num[:0], n, 10)
	for i := len(d); i < w.ZeroPadding; i++ {
		dst = append(dst, '0')
	}
	return append(dst, d...)
}

// SplitKeys returns n-1 split points dividing the keys of the insert
// range into n regions of about equal record counts: the keys of (a
// sample of at most 100k of) the record numbers, sorted, cut at quantiles.
func (w *Workload) SplitKeys(n int) [][]byte {
	if n <= 1 || w.InsertCount < int64(n) {
		return nil
	}
	step := int64(1)
	if w.InsertCount > 100_000 {
		step = w.InsertCount / 100_000
	}
	var keys []string
	for i := w.InsertStart; i < w.InsertStart+w.InsertCount; i += step {
		keys = append(keys, string(w.AppendKey(nil, i)))
	}
	sortStrings(keys)
	var out [][]byte
	for i := 1; i < n; i++ {
		k := []byte(keys[i*len(keys)/n])
		if len(out) > 0 && string(out[len(out)-1]) == string(k) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// newKeyChooser builds a goroutine's generator of existing key numbers.
func (w *Workload) newKeyChooser(ins *AckCounter, seq *Sequential) Generator {
	lo, hi := w.InsertStart, w.InsertStart+w.InsertCount-1
	switch w.RequestDist {
	case "zipfian":
		// Leave room for the keys this run inserts, as YCSB does.
		extra := int64(float64(w.OperationCount) * w.Proportions[OpInsert] * 2)
		return NewScrambledZipfian(lo, hi+extra)
	case "latest":
		return NewLatest(ins)
	case "hotspot":
		return NewHotspot(lo, hi, w.HotDataFrac, w.HotOpFrac)
	case "sequential":
		return seq
	case "exponential":
		// YCSB spans a fraction of recordcount, counted back from the
		// newest record.
		span := w.RecordCount
		if span < 1 {
			span = w.InsertStart + w.InsertCount
		}
		return NewExponential(ins, w.ExpPercentile, float64(span)*w.ExpFrac)
	}
	return newUniform(lo, hi)
}

func (w *Workload) lengthGen(dist string, min, max int64) Generator {
	switch dist {
	case "uniform":
		return newUniform(min, max)
	case "zipfian":
		return NewZipfian(min, max, ZipfianConstant)
	case "histogram":
		return w.hist
	}
	return constantGen{max}
}

// chooseOp picks an operation by the proportions.
func (w *Workload) chooseOp(r *rand.Rand) int {
	u := r.Float64()
	for i, c := range w.cumulative {
		if u < c && w.Proportions[i] > 0 {
			return i
		}
	}
	for i := numOps - 1; i >= 0; i-- {
		if w.Proportions[i] > 0 {
			return i
		}
	}
	return OpRead
}

// String summarises the workload for the report header.
func (w *Workload) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "db=%s table=%s family=%s records=%d ops=%d threads=%d dist=%s", w.DB, w.Table, w.Family, w.RecordCount, w.OperationCount, w.Threads, w.RequestDist)
	return b.String()
}
