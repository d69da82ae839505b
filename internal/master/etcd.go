package master

import clientv3 "go.etcd.io/etcd/client/v3"

// clientv3WithFirstCreate selects the election key created first: the
// leader's (etcd's election orders candidates by creation revision).
func clientv3WithFirstCreate() []clientv3.OpOption {
	return []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend), clientv3.WithLimit(1)}
}
