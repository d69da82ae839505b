package regionserver

import (
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

func clientv3WithLease(s *concurrency.Session) clientv3.OpOption {
	return clientv3.WithLease(s.Lease())
}
