package bench

import (
	"strings"
	"testing"
	"time"
)

func TestParseProps(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Props
		wantErr  string
	}{
		{name: "comments and separators", in: "# comment\n! also a comment\n\n  recordcount=10\nfieldcount: 3\nfieldlength 7\ntable =  t1  \n",
			want: Props{"recordcount": "10", "fieldcount": "3", "fieldlength": "7", "table": "t1"}},
		{name: "continuation", in: "requestdistribution=zip\\\n    fian\nreadproportion=0.5\n",
			want: Props{"requestdistribution": "zipfian", "readproportion": "0.5"}},
		{name: "escaped backslash is no continuation", in: "table=a\\\\\nfieldcount=2\n",
			want: Props{"table": `a\\`, "fieldcount": "2"}},
		{name: "continuation at EOF", in: "table=abc\\", want: Props{"table": "abc"}},
		{name: "empty value", in: "table=\n", want: Props{"table": ""}},
		{name: "unknown key", in: "# x\nrecordcount=1\nreadproportoin=1\n", wantErr: `w:3: unknown workload property "readproportoin"`},
		{name: "unknown key suggestion", in: "recordcountt=1\n", wantErr: `did you mean "recordcount"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Props{}
			err := ParseProps(strings.NewReader(tc.in), "w", got)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func TestOverrides(t *testing.T) {
	p := Props{}
	if err := p.LoadFile("../workloads/workloada"); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"recordcount=5000", "requestdistribution=uniform", "recordcount=7"} {
		if err := p.SetOverride(o); err != nil {
			t.Fatal(err)
		}
	}
	w, err := NewWorkload(p)
	if err != nil {
		t.Fatal(err)
	}
	if w.RecordCount != 7 || w.InsertCount != 7 || w.RequestDist != "uniform" || w.Proportions[OpUpdate] != 0.5 {
		t.Errorf("workload %+v", w)
	}
	for _, bad := range []string{"novalue", "=1", "bogus=1"} {
		if err := p.SetOverride(bad); err == nil {
			t.Errorf("-p %s accepted", bad)
		}
	}
}

func TestWorkloadFiles(t *testing.T) {
	for _, f := range []string{"a", "b", "c", "d", "e", "f"} {
		p := Props{}
		if err := p.LoadFile("../workloads/workload" + f); err != nil {
			t.Fatal(err)
		}
		w, err := NewWorkload(p)
		if err != nil {
			t.Fatalf("workload%s: %v", f, err)
		}
		if err := w.checkPhase("run"); err != nil {
			t.Errorf("workload%s: %v", f, err)
		}
	}
}

func TestWorkloadValidation(t *testing.T) {
	base := func() Props {
		return Props{"workload": "site.ycsb.workloads.CoreWorkload", "recordcount": "100", "operationcount": "10"}
	}
	for _, tc := range []struct {
		set     map[string]string
		del     string
		wantErr string
	}{
		{del: "workload", wantErr: "no workload"},
		{set: map[string]string{"workload": "site.ycsb.workloads.TimeSeriesWorkload"}, wantErr: "only CoreWorkload"},
		{set: map[string]string{"readproportion": "0.5", "updateproportion": "0.4"}, wantErr: "sum to 0.9, not 1"},
		{set: map[string]string{"readproportion": "0.9", "insertproportion": "0.2"}, wantErr: "not 1"},
		{set: map[string]string{"readproportion": "1.5"}, wantErr: "between 0 and 1"},
		{set: map[string]string{"fieldcount": "x"}, wantErr: `fieldcount="x": want an integer`},
		{set: map[string]string{"requestdistribution": "pareto"}, wantErr: "one of uniform, zipfian, latest, hotspot, sequential"},
		{set: map[string]string{"readallfields": "yes"}, wantErr: "true or false"},
		{set: map[string]string{"threadcount": "0"}, wantErr: "threadcount=0"},
		{set: map[string]string{"minscanlength": "10", "maxscanlength": "5"}, wantErr: "minscanlength"},
		{set: map[string]string{"durability": "MAYBE"}, wantErr: "SKIP_WAL"},
		{set: map[string]string{"splits": "0"}, wantErr: "splits=0"},
		{set: map[string]string{"readproportion": "0.5", "readmodifywriteproportion": "0.5", "updateproportion": "0"}},
	} {
		p := base()
		delete(p, tc.del)
		for k, v := range tc.set {
			p[k] = v
		}
		_, err := NewWorkload(p)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%v: %v", tc.set, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%v -%s: err %v, want %q", tc.set, tc.del, err, tc.wantErr)
		}
	}
}

func TestCheckPhase(t *testing.T) {
	w, err := NewWorkload(Props{"workload": "core"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.checkPhase("load"); err == nil || !strings.Contains(err.Error(), "recordcount") {
		t.Errorf("load with no records: %v", err)
	}
	w, _ = NewWorkload(Props{"workload": "core", "recordcount": "10"})
	if err := w.checkPhase("run"); err == nil || !strings.Contains(err.Error(), "never ends") {
		t.Errorf("unbounded run: %v", err)
	}
	w, _ = NewWorkload(Props{"workload": "core", "recordcount": "10", "maxexecutiontime": "3"})
	if err := w.checkPhase("run"); err != nil || w.MaxExecution != 3*time.Second {
		t.Errorf("maxexecutiontime run: %v", err)
	}
}
