package hbasepb

import (
	"os"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// TestContractAgainstHBase compares every message, field, enum and rpc
// declared here with HBase's own .proto files, given as a descriptor set in
// $HBASEPB_HBASE_DESCRIPTORS (check_contract.sh builds one from the
// hbase-protocol-shaded jar). Skipped without it.
func TestContractAgainstHBase(t *testing.T) {
	path := os.Getenv("HBASEPB_HBASE_DESCRIPTORS")
	if path == "" {
		t.Skip("HBASEPB_HBASE_DESCRIPTORS not set; run internal/hbasepb/check_contract.sh")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	hb, err := protodesc.NewFiles(&set)
	if err != nil {
		t.Fatal(err)
	}
	kind := func(fd protoreflect.FieldDescriptor) string {
		s := fd.Kind().String()
		if fd.Message() != nil {
			s += ":" + string(fd.Message().FullName())
		}
		if fd.Enum() != nil {
			s += ":" + string(fd.Enum().FullName())
		}
		return s
	}
	sameDefault := func(a, b protoreflect.FieldDescriptor) bool {
		if a.HasDefault() != b.HasDefault() {
			return false
		}
		if !a.HasDefault() {
			return true
		}
		if a.Kind() == protoreflect.EnumKind {
			return a.DefaultEnumValue().Name() == b.DefaultEnumValue().Name()
		}
		return a.Default().Interface() == b.Default().Interface()
	}
	checkEnums := func(es protoreflect.EnumDescriptors) {
		for i := 0; i < es.Len(); i++ {
			e := es.Get(i)
			d, err := hb.FindDescriptorByName(e.FullName())
			if err != nil {
				t.Errorf("enum %s is not in HBase", e.FullName())
				continue
			}
			he := d.(protoreflect.EnumDescriptor)
			if he.Values().Len() != e.Values().Len() {
				t.Errorf("enum %s: %d values, HBase has %d", e.FullName(), e.Values().Len(), he.Values().Len())
			}
			for j := 0; j < e.Values().Len(); j++ {
				v := e.Values().Get(j)
				if hv := he.Values().ByName(v.Name()); hv == nil || hv.Number() != v.Number() {
					t.Errorf("enum value %s = %d differs from HBase", v.FullName(), v.Number())
				}
			}
		}
	}
	var checkMessages func(ms protoreflect.MessageDescriptors)
	checkMessages = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			m := ms.Get(i)
			d, err := hb.FindDescriptorByName(m.FullName())
			if err != nil {
				t.Errorf("message %s is not in HBase", m.FullName())
				continue
			}
			hm := d.(protoreflect.MessageDescriptor)
			for j := 0; j < m.Fields().Len(); j++ {
				f := m.Fields().Get(j)
				hf := hm.Fields().ByNumber(f.Number())
				switch {
				case hf == nil:
					t.Errorf("%s: field %s = %d is not in HBase", m.FullName(), f.Name(), f.Number())
				case hf.Name() != f.Name() || hf.Cardinality() != f.Cardinality() || kind(hf) != kind(f) ||
					hf.IsPacked() != f.IsPacked() || hf.IsMap() != f.IsMap() || !sameDefault(hf, f):
					t.Errorf("%s #%d: Weir %s %s %s packed=%v, HBase %s %s %s packed=%v",
						m.FullName(), f.Number(), f.Cardinality(), kind(f), f.Name(), f.IsPacked(),
						hf.Cardinality(), kind(hf), hf.Name(), hf.IsPacked())
				}
			}
			for j := 0; j < hm.Fields().Len(); j++ {
				if hf := hm.Fields().Get(j); m.Fields().ByNumber(hf.Number()) == nil {
					t.Logf("not declared by Weir: %s = %d (%s)", hf.FullName(), hf.Number(), kind(hf))
				}
			}
			checkEnums(m.Enums())
			if !m.IsMapEntry() {
				checkMessages(m.Messages())
			}
		}
	}
	n := 0
	protoregistry.GlobalFiles.RangeFilesByPackage("hbase.pb", func(fd protoreflect.FileDescriptor) bool {
		n++
		checkMessages(fd.Messages())
		checkEnums(fd.Enums())
		for i := 0; i < fd.Services().Len(); i++ {
			s := fd.Services().Get(i)
			d, err := hb.FindDescriptorByName(s.FullName())
			if err != nil {
				t.Errorf("service %s is not in HBase", s.FullName())
				continue
			}
			hs := d.(protoreflect.ServiceDescriptor)
			for j := 0; j < s.Methods().Len(); j++ {
				mt := s.Methods().Get(j)
				hmt := hs.Methods().ByName(mt.Name())
				if hmt == nil || hmt.Input().FullName() != mt.Input().FullName() || hmt.Output().FullName() != mt.Output().FullName() {
					t.Errorf("rpc %s differs from HBase", mt.FullName())
				}
			}
		}
		return true
	})
	if n == 0 {
		t.Fatal("no hbase.pb files registered")
	}
}
