package bench

import (
	"strings"
	"testing"
	"time"
)

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
