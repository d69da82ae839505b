package shell

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/weirdb/weir/client"
)

func init() {
	handlers["snapshot"] = (*session).snapshot
	handlers["clone_snapshot"] = (*session).cloneSnapshot
	handlers["restore_snapshot"] = (*session).restoreSnapshot
	handlers["list_snapshots"] = (*session).listSnapshots
	handlers["delete_snapshot"] = (*session).deleteSnapshot
	handlers["snapshot_cleanup_switch"] = (*session).snapshotCleanupSwitch
	handlers["snapshot_cleanup_enabled"] = (*session).snapshotCleanupEnabled
}

func (s *session) snapshotCleanupSwitch(ctx context.Context, c Command) error {
	on, err := boolOf("enabled", c.Args[0])
	if err != nil {
		return err
	}
	prev, err := s.conn.Admin().SnapshotCleanupSwitch(ctx, on, true)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	fmt.Fprintf(s.out, "Previous snapshot cleanup state : %v\n", prev)
	return nil
}

func (s *session) snapshotCleanupEnabled(ctx context.Context, _ Command) error {
	on, err := s.conn.Admin().SnapshotCleanupEnabled(ctx)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	fmt.Fprintf(s.out, "%v\n", on)
	return nil
}

// snapshotErr adds the snapshot errors' shell messages to serverErr's.
func (s *session) snapshotErr(ctx context.Context, table, snapshot string, err error) error {
	switch {
	case errors.Is(err, client.ErrSnapshotExists):
		return errorf("Snapshot '%s' already stored on the filesystem.", snapshot)
	case errors.Is(err, client.ErrSnapshotNotFound):
		return errorf("Snapshot '%s' doesn't exist on the filesystem", snapshot)
	}
	return s.serverErr(ctx, table, err)
}

// noACLs accepts RESTORE_ACL => false only: Weir has no ACLs to restore.
func noACLs(cmd string, h *Hash) error {
	if err := rejectKeys(cmd, h, "CLONE_SFT"); err != nil {
		return err
	}
	if v := h.Get("RESTORE_ACL"); v != nil {
		on, err := boolOf("RESTORE_ACL", v)
		if err != nil {
			return err
		}
		if on {
			return unsupported(cmd + " option RESTORE_ACL => true (Weir has no ACLs)")
		}
	}
	return nil
}

func (s *session) snapshot(ctx context.Context, c Command) error {
	table, name := strArg(c, 0), strArg(c, 1)
	// The shell's clock stamps the snapshot (tests fix it).
	o := client.SnapshotOptions{Created: s.cfg.Now()}
	if h := firstHash(c, 2); h != nil {
		if err := rejectKeys("snapshot", h, "MAX_FILESIZE"); err != nil {
			return err
		}
		if v := h.Get("SKIP_FLUSH"); v != nil {
			skip, err := boolOf("SKIP_FLUSH", v)
			if err != nil {
				return err
			}
			o.SkipFlush = skip
		}
		if v := h.Get("TTL"); v != nil {
			ttl, err := intOf("TTL", v)
			if err != nil {
				return err
			}
			if ttl < 0 {
				return errorf("snapshot: TTL must not be negative, got %d", ttl)
			}
			o.TTL = time.Duration(ttl) * time.Second
		}
	}
	if err := s.conn.Admin().Snapshot(ctx, name, table, o); err != nil {
		return s.snapshotErr(ctx, table, name, err)
	}
	return nil
}

func (s *session) cloneSnapshot(ctx context.Context, c Command) error {
	name, table := strArg(c, 0), strArg(c, 1)
	if h := firstHash(c, 2); h != nil {
		if err := noACLs("clone_snapshot", h); err != nil {
			return err
		}
	}
	if err := s.conn.Admin().CloneSnapshot(ctx, name, table); err != nil {
		return s.snapshotErr(ctx, table, name, err)
	}
	return nil
}

func (s *session) restoreSnapshot(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	if h := firstHash(c, 1); h != nil {
		if err := noACLs("restore_snapshot", h); err != nil {
			return err
		}
	}
	if err := s.conn.Admin().RestoreSnapshot(ctx, name); err != nil {
		table := ""
		if list, lerr := s.conn.Admin().ListSnapshots(ctx, ""); lerr == nil {
			for _, sn := range list {
				if sn.Name == name {
					table = sn.Table
				}
			}
		}
		return s.snapshotErr(ctx, table, name, err)
	}
	return nil
}

// listSnapshots prints HBase's list_snapshots table: the name, then the
// table, creation time and TTL.
func (s *session) listSnapshots(ctx context.Context, c Command) error {
	list, err := s.conn.Admin().ListSnapshots(ctx, strArg(c, 0))
	if err != nil {
		if errors.Is(err, client.ErrInvalidArgument) {
			return errorf("%v", err)
		}
		return s.serverErr(ctx, "", err)
	}
	out := twoCol{s.out}
	out.header("SNAPSHOT", "TABLE + CREATION TIME + TTL(Sec)")
	for _, sn := range list {
		ttl := "FOREVER"
		if sn.TTL > 0 {
			ttl = strconv.FormatInt(int64(sn.TTL/time.Second), 10)
		}
		// Ruby's Time#to_s, to the second, as HBase prints it.
		created := sn.Created.In(s.cfg.Location).Format("2006-01-02 15:04:05 -0700")
		out.row(sn.Name, fmt.Sprintf("%s (%s) %s", sn.Table, created, ttl))
	}
	fmt.Fprintln(s.out, rows(len(list)))
	return nil
}

func (s *session) deleteSnapshot(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	if err := s.conn.Admin().DeleteSnapshot(ctx, name); err != nil {
		return s.snapshotErr(ctx, "", name, err)
	}
	return nil
}
