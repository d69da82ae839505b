package meta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/quota"
)

// Quota keys (docs/format/etcd.md):
//
//	<prefix>/quotas/settings        JSON QuotaDoc: every subject's quota (HBase part as a Quotas protobuf)
//	<prefix>/quotas/rpc-throttle    "true" / "false" (absent: true, HBase's default)
//	<prefix>/quotas/exceed-throttle "true" / "false" (absent: false)
const (
	QuotaSwitchRPCThrottle    = "rpc-throttle"
	QuotaSwitchExceedThrottle = "exceed-throttle"
)

// QuotasPrefix is where the quota keys live; region servers watch it.
func (c *Catalog) QuotasPrefix() string { return c.key("quotas") + "/" }

func (c *Catalog) quotaSettingsKey() string { return c.key("quotas", "settings") }

// QuotaDoc is the stored form of quota.Settings.
type QuotaDoc struct {
	Version  int               `json:"version"`
	Subjects []QuotaDocSubject `json:"subjects"`
}

// QuotaDocSubject is one subject's quota: its HBase part as an encoded
// hbase.pb.Quotas, plus Weir's priority and weight.
type QuotaDocSubject struct {
	User         string `json:"user,omitempty"`
	Namespace    string `json:"namespace,omitempty"`
	Table        string `json:"table,omitempty"`
	RegionServer string `json:"region_server,omitempty"`
	Quotas       []byte `json:"quotas"`
	Priority     string `json:"priority,omitempty"`
	Weight       int    `json:"weight,omitempty"`
}

// EncodeQuotaSettings renders st for etcd. It refuses a subject whose
// names are not valid UTF-8: JSON would store them as U+FFFD, so the quota
// would come back on another subject.
func EncodeQuotaSettings(st quota.Settings) ([]byte, error) {
	doc := QuotaDoc{Version: 1, Subjects: []QuotaDocSubject{}}
	for _, s := range st.Subjects() {
		if !utf8.ValidString(s.User) || !utf8.ValidString(s.Namespace) || !utf8.ValidString(s.Table) || !utf8.ValidString(s.RegionServer) {
			return nil, fmt.Errorf("meta: quota of %q: subject names must be valid UTF-8", s)
		}
		q, _ := st.Get(s)
		b, err := proto.Marshal(q.ToProto())
		if err != nil {
			return nil, err
		}
		ds := QuotaDocSubject{User: s.User, Namespace: s.Namespace, Table: s.Table, RegionServer: s.RegionServer,
			Quotas: b, Weight: q.Weight}
		if q.Priority != quota.PriorityMedium {
			ds.Priority = q.Priority.String()
		}
		doc.Subjects = append(doc.Subjects, ds)
	}
	return json.Marshal(doc)
}

// DecodeQuotaSettings parses what EncodeQuotaSettings wrote; empty input is
// no quotas.
func DecodeQuotaSettings(v []byte) (quota.Settings, error) {
	var st quota.Settings
	if len(v) == 0 {
		return st, nil
	}
	var doc QuotaDoc
	if err := json.Unmarshal(v, &doc); err != nil {
		return st, fmt.Errorf("meta: decoding quota settings: %w", err)
	}
	for _, ds := range doc.Subjects {
		s := quota.Subject{User: ds.User, Namespace: ds.Namespace, Table: ds.Table, RegionServer: ds.RegionServer}
		var pq hbasepb.Quotas
		if err := proto.Unmarshal(ds.Quotas, &pq); err != nil {
			return quota.Settings{}, fmt.Errorf("meta: decoding quota of %s: %w", s, err)
		}
		q, err := quota.QuotaFromProto(s, &pq)
		if err != nil {
			return quota.Settings{}, err
		}
		if ds.Priority != "" {
			if q.Priority, err = quota.ParsePriority(ds.Priority); err != nil {
				return quota.Settings{}, err
			}
		}
		q.Weight = ds.Weight
		if st, err = st.With(s, q); err != nil {
			return quota.Settings{}, err
		}
	}
	return st, nil
}

// QuotaState is everything under QuotasPrefix, read at one revision.
type QuotaState struct {
	Settings       quota.Settings
	RPCThrottle    bool
	ExceedThrottle bool
	Revision       int64
}

// ParseQuotaState builds the state from the keys under QuotasPrefix.
func (c *Catalog) ParseQuotaState(kvs map[string][]byte) (QuotaState, error) {
	st := QuotaState{RPCThrottle: true}
	var err error
	if v, ok := kvs[c.quotaSettingsKey()]; ok {
		if st.Settings, err = DecodeQuotaSettings(v); err != nil {
			return st, err
		}
	}
	if v, ok := kvs[c.QuotasPrefix()+QuotaSwitchRPCThrottle]; ok {
		st.RPCThrottle = string(v) != "false"
	}
	if v, ok := kvs[c.QuotasPrefix()+QuotaSwitchExceedThrottle]; ok {
		st.ExceedThrottle = string(v) == "true"
	}
	return st, nil
}

// QuotaState reads the quota settings and switches.
func (c *Catalog) QuotaState(ctx context.Context) (QuotaState, error) {
	resp, err := c.cli.Get(ctx, c.QuotasPrefix(), clientv3.WithPrefix())
	if err != nil {
		return QuotaState{}, err
	}
	kvs := make(map[string][]byte, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		kvs[string(kv.Key)] = kv.Value
	}
	st, err := c.ParseQuotaState(kvs)
	st.Revision = resp.Header.Revision
	return st, err
}

// UpdateQuotaSettings applies fn to the stored settings with compare-and-swap
// on the key's mod revision, retrying on a concurrent change. fn's error is
// returned as is.
func (c *Catalog) UpdateQuotaSettings(ctx context.Context, fn func(quota.Settings) (quota.Settings, error)) (quota.Settings, error) {
	key := c.quotaSettingsKey()
	for {
		resp, err := c.cli.Get(ctx, key)
		if err != nil {
			return quota.Settings{}, err
		}
		var cur quota.Settings
		var rev int64
		if len(resp.Kvs) > 0 {
			rev = resp.Kvs[0].ModRevision
			if cur, err = DecodeQuotaSettings(resp.Kvs[0].Value); err != nil {
				return quota.Settings{}, err
			}
		}
		next, err := fn(cur)
		if err != nil {
			return cur, err
		}
		if err := next.Validate(); err != nil {
			return cur, err
		}
		b, err := EncodeQuotaSettings(next)
		if err != nil {
			return cur, err
		}
		tr, err := c.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
			Then(clientv3.OpPut(key, string(b))).Commit()
		if err != nil {
			return cur, err
		}
		if tr.Succeeded {
			return next, nil
		}
		if ctx.Err() != nil {
			return cur, ctx.Err()
		}
	}
}

// SetQuotaSwitch stores switch name (QuotaSwitchRPCThrottle or
// QuotaSwitchExceedThrottle) and returns its previous value.
func (c *Catalog) SetQuotaSwitch(ctx context.Context, name string, on bool) (bool, error) {
	if name != QuotaSwitchRPCThrottle && name != QuotaSwitchExceedThrottle {
		return false, errors.New("meta: unknown quota switch " + name)
	}
	v := "false"
	if on {
		v = "true"
	}
	resp, err := c.cli.Put(ctx, c.QuotasPrefix()+name, v, clientv3.WithPrevKV())
	if err != nil {
		return false, err
	}
	if resp.PrevKv == nil {
		return name == QuotaSwitchRPCThrottle, nil
	}
	if name == QuotaSwitchRPCThrottle {
		return string(resp.PrevKv.Value) != "false", nil
	}
	return string(resp.PrevKv.Value) == "true", nil
}
