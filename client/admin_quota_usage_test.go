package client

import "testing"

func TestQuotaOwner(t *testing.T) {
	for _, tc := range []struct {
		user, ns, table, rs, want string
	}{
		{"u", "", "", "", "USER => 'u'"},
		{"u", "ns", "t", "", "USER => 'u', TABLE => 'ns:t'"},
		{"u", "ns", "", "", "USER => 'u', NAMESPACE => 'ns'"},
		{"", "default", "t", "", "TABLE => 'default:t'"},
		{"", "ns", "", "", "NAMESPACE => 'ns'"},
		{"", "", "", "all", "REGIONSERVER => 'all'"},
	} {
		if got := quotaOwner(tc.user, tc.ns, tc.table, tc.rs); got != tc.want {
			t.Errorf("quotaOwner(%q, %q, %q, %q) = %q, want %q", tc.user, tc.ns, tc.table, tc.rs, got, tc.want)
		}
	}
}
