package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Increment, Append, CheckAndMutate and RowMutations. */
class AtomicOpsTest extends WeirTestBase {
  static final byte[] ROW = b("row");

  @Test
  void incrementColumnValueAccumulates(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      assertEquals(5L, t.incrementColumnValue(ROW, CF, b("n"), 5L), "missing counter starts at 0");
      assertEquals(8L, t.incrementColumnValue(ROW, CF, b("n"), 3L));
      assertEquals(6L, t.incrementColumnValue(ROW, CF, b("n"), -2L));
      assertEquals(6L, t.incrementColumnValue(ROW, CF, b("n"), 0L), "increment by 0 reads the value");
      byte[] stored = t.get(new Get(ROW)).getValue(CF, b("n"));
      assertEquals(8, stored.length, "counters are 8-byte big-endian longs");
      assertEquals(6L, Bytes.toLong(stored));
    }
  }

  @Test
  void incrementOfTwoColumnsReturnsBoth(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(ROW).addColumn(CF, b("b"), Bytes.toBytes(100L)));
      Result r = t.increment(new Increment(ROW).addColumn(CF, b("a"), 1L).addColumn(CF, b("b"), 10L));
      assertEquals(2, r.size());
      assertEquals(1L, Bytes.toLong(r.getValue(CF, b("a"))));
      assertEquals(110L, Bytes.toLong(r.getValue(CF, b("b"))));
      Result again = t.increment(new Increment(ROW).addColumn(CF, b("a"), 1L).addColumn(CF, b("b"), 10L));
      assertEquals(2L, Bytes.toLong(again.getValue(CF, b("a"))));
      assertEquals(120L, Bytes.toLong(again.getValue(CF, b("b"))));
      Result got = t.get(new Get(ROW));
      assertEquals(2L, Bytes.toLong(got.getValue(CF, b("a"))));
      assertEquals(120L, Bytes.toLong(got.getValue(CF, b("b"))));
    }
  }

  @Test
  void appendConcatenatesBytes(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      Result first = t.append(new Append(ROW).addColumn(CF, b("s"), b("abc")));
      assertEquals("abc", s(first.getValue(CF, b("s"))));
      Result second = t.append(new Append(ROW).addColumn(CF, b("s"), b("def")).addColumn(CF, b("o"), b("x")));
      assertEquals("abcdef", s(second.getValue(CF, b("s"))));
      assertEquals("x", s(second.getValue(CF, b("o"))));
      assertEquals("abcdef", s(t.get(new Get(ROW)).getValue(CF, b("s"))));
    }
  }

  @Test
  void checkAndMutateIfEqualsSucceedsWhenValueMatches(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(ROW).addColumn(CF, b("state"), b("open")));
      CheckAndMutateResult res = t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
          .ifEquals(CF, b("state"), b("open"))
          .build(new Put(ROW).addColumn(CF, b("state"), b("closed"))));
      assertTrue(res.isSuccess());
      assertEquals("closed", s(t.get(new Get(ROW)).getValue(CF, b("state"))));
    }
  }

  @Test
  void checkAndMutateIfEqualsFailsWhenValueDiffers(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(ROW).addColumn(CF, b("state"), b("open")));
      CheckAndMutateResult res = t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
          .ifEquals(CF, b("state"), b("something-else"))
          .build(new Put(ROW).addColumn(CF, b("state"), b("closed"))));
      assertFalse(res.isSuccess());
      assertEquals("open", s(t.get(new Get(ROW)).getValue(CF, b("state"))), "value unchanged");

      // ifEquals on a missing column also fails
      CheckAndMutateResult missing = t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
          .ifEquals(CF, b("nothere"), b("open"))
          .build(new Put(ROW).addColumn(CF, b("state"), b("closed"))));
      assertFalse(missing.isSuccess());
    }
  }

  @Test
  void checkAndMutateIfNotExistsOnlyFirstTime(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      CheckAndMutate first = CheckAndMutate.newBuilder(ROW).ifNotExists(CF, b("owner"))
          .build(new Put(ROW).addColumn(CF, b("owner"), b("alice")));
      assertTrue(t.checkAndMutate(first).isSuccess());
      CheckAndMutate second = CheckAndMutate.newBuilder(ROW).ifNotExists(CF, b("owner"))
          .build(new Put(ROW).addColumn(CF, b("owner"), b("bob")));
      assertFalse(t.checkAndMutate(second).isSuccess());
      assertEquals("alice", s(t.get(new Get(ROW)).getValue(CF, b("owner"))));
    }
  }

  @Test
  void checkAndMutateCompareOperatorComparesGivenAgainstStored(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(ROW).addColumn(CF, b("n"), b("5")).addColumn(CF, b("x"), b("1")));
      // HBase evaluates "<given> OP <stored>" (HRegion: comparator(given).compareTo(stored)):
      // GREATER with given "3" and stored "5" is 3 > 5: no match.
      CheckAndMutateResult no = t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
          .ifMatches(CF, b("n"), CompareOperator.GREATER, b("3"))
          .build(new Delete(ROW).addColumns(CF, b("x"))));
      assertFalse(no.isSuccess(), "GREATER given(3) vs stored(5) does not match");
      assertEquals("1", s(t.get(new Get(ROW)).getValue(CF, b("x"))));
      // GREATER with given "7": 7 > 5 matches, the Delete runs.
      CheckAndMutateResult yes = t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
          .ifMatches(CF, b("n"), CompareOperator.GREATER, b("7"))
          .build(new Delete(ROW).addColumns(CF, b("x"))));
      assertTrue(yes.isSuccess(), "GREATER given(7) vs stored(5) matches");
      assertNull(t.get(new Get(ROW)).getValue(CF, b("x")));
    }
  }

  @Test
  void checkAndMutateWithRowMutations(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(ROW).addColumn(CF, b("v"), b("1")).addColumn(CF, b("old"), b("x")));
      RowMutations rm = new RowMutations(ROW);
      rm.add(new Put(ROW).addColumn(CF, b("v"), b("2")));
      rm.add(new Delete(ROW).addColumns(CF, b("old")));
      assertTrue(t.checkAndMutate(CheckAndMutate.newBuilder(ROW).ifEquals(CF, b("v"), b("1")).build(rm))
          .isSuccess());
      Result r = t.get(new Get(ROW));
      assertEquals("2", s(r.getValue(CF, b("v"))));
      assertNull(r.getValue(CF, b("old")));
    }
  }

  @Test
  void mutateRowAppliesPutAndDeleteAtomically(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(ROW).addColumn(CF, b("a"), b("1")).addColumn(CF, b("b"), b("2")));
      RowMutations rm = new RowMutations(ROW);
      rm.add(new Put(ROW).addColumn(CF, b("c"), b("3")));
      rm.add(new Delete(ROW).addColumns(CF, b("a")));
      t.mutateRow(rm);
      Result r = t.get(new Get(ROW));
      assertNull(r.getValue(CF, b("a")));
      assertEquals("2", s(r.getValue(CF, b("b"))));
      assertEquals("3", s(r.getValue(CF, b("c"))));
    }
  }
}
