import org.apache.hbase.thirdparty.com.google.protobuf.ByteString;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.*;
import org.apache.hadoop.hbase.shaded.protobuf.generated.TracingProtos.*;
import org.apache.hadoop.hbase.shaded.protobuf.generated.HBaseProtos.*;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.*;
import org.apache.hadoop.hbase.shaded.protobuf.generated.FilterProtos.*;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ComparatorProtos.*;
import org.apache.hadoop.hbase.shaded.protobuf.generated.QuotaProtos.*;
import org.apache.hadoop.hbase.shaded.protobuf.generated.MasterProtos.*;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RegistryProtos.*;

public class Gold {
  static ByteString b(String s) { return ByteString.copyFromUtf8(s); }
  static void p(String name, Message m) {
    StringBuilder sb = new StringBuilder();
    for (byte x : m.toByteArray()) sb.append(String.format("%02x", x));
    System.out.println("\t{\"" + name + "\", \"" + sb + "\"},");
  }
  public static void main(String[] a) {
    p("ConnectionHeader", ConnectionHeader.newBuilder()
      .setUserInfo(UserInformation.newBuilder().setEffectiveUser("alice"))
      .setServiceName("ClientService")
      .setCellBlockCodecClass("org.apache.hadoop.hbase.codec.KeyValueCodec").build());
    p("ConnectionHeader2", ConnectionHeader.newBuilder().setRpcCryptoCipherTransformation("x")
      .addAttribute(NameBytesPair.newBuilder().setName("k").setValue(ByteString.copyFrom(new byte[]{1}))).build());
    p("RequestHeader", RequestHeader.newBuilder().setCallId(1).setMethodName("Get").setRequestParam(true).build());
    p("RequestHeader2", RequestHeader.newBuilder().setCallId(300)
      .setTraceInfo(RPCTInfo.newBuilder().putHeaders("a", "b"))
      .setCellBlockMeta(CellBlockMeta.newBuilder().setLength(7)).setPriority(200).setTimeout(60000)
      .addAttribute(NameBytesPair.newBuilder().setName("n")).build());
    p("ResponseHeader", ResponseHeader.newBuilder().setCallId(-1)
      .setException(ExceptionResponse.newBuilder().setExceptionClassName("E").setPort(16020).setDoNotRetry(true)).build());
    p("GetConnectionRegistryResponse", GetConnectionRegistryResponse.newBuilder().setClusterId("abc").build());
    p("GetRequest", GetRequest.newBuilder()
      .setRegion(RegionSpecifier.newBuilder().setType(RegionSpecifier.RegionSpecifierType.REGION_NAME).setValue(b("hbase:meta,,1")))
      .setGet(Get.newBuilder().setRow(b("r1")).addColumn(Column.newBuilder().setFamily(b("cf")))).build());
    p("ScanRequest", ScanRequest.newBuilder().setScannerId(300).setNumberOfRows(100).setCloseScanner(true).setNextCallSeq(0).build());
    p("ScanRequestOpen", ScanRequest.newBuilder().setScan(Scan.newBuilder().setStartRow(b("a")).setReversed(true)
      .setCaching(5).setReadType(Scan.ReadType.PREAD)).setClientHandlesPartials(true).build());
    p("ScanResponse", ScanResponse.newBuilder().addCellsPerResult(1).addCellsPerResult(2).setScannerId(7).setMoreResults(true)
      .addPartialFlagPerResult(false).addPartialFlagPerResult(true).setMoreResultsInRegion(false).build());
    p("MutationPut", MutationProto.newBuilder().setRow(b("r")).setMutateType(MutationProto.MutationType.PUT)
      .addColumnValue(MutationProto.ColumnValue.newBuilder().setFamily(b("cf"))
        .addQualifierValue(MutationProto.ColumnValue.QualifierValue.newBuilder().setQualifier(b("q")).setValue(b("v")).setTimestamp(5)))
      .setDurability(MutationProto.Durability.SKIP_WAL).build());
    p("MutationDelete", MutationProto.newBuilder().setRow(b("r")).setMutateType(MutationProto.MutationType.DELETE)
      .setTimestamp(9).setAssociatedCellCount(1).setNonce(1).build());
    Filter f = Filter.newBuilder().setName("org.apache.hadoop.hbase.filter.PageFilter")
      .setSerializedFilter(PageFilter.newBuilder().setPageSize(10).build().toByteString()).build();
    p("FilterPage", f);
    p("FilterList", FilterList.newBuilder().setOperator(FilterList.Operator.MUST_PASS_ALL).addFilters(f).build());
    p("SingleColumnValueFilter", SingleColumnValueFilter.newBuilder().setColumnFamily(b("cf")).setColumnQualifier(b("f"))
      .setCompareOp(CompareType.EQUAL)
      .setComparator(Comparator.newBuilder().setName("org.apache.hadoop.hbase.filter.BinaryComparator")
        .setSerializedComparator(BinaryComparator.newBuilder().setComparable(ByteArrayComparable.newBuilder().setValue(b("v"))).build().toByteString()))
      .setFilterIfMissing(true).build());
    p("TimestampsFilter", TimestampsFilter.newBuilder().addTimestamps(1).addTimestamps(300).build());
    p("SetQuotaRequest", SetQuotaRequest.newBuilder().setUserName("u").setThrottle(ThrottleRequest.newBuilder()
      .setType(ThrottleType.READ_NUMBER).setTimedQuota(TimedQuota.newBuilder().setTimeUnit(TimeUnit.SECONDS).setSoftLimit(10).setScope(QuotaScope.MACHINE))).build());
    p("GetMetaRegionLocationsResponse", GetMetaRegionLocationsResponse.newBuilder().addMetaLocations(RegionLocation.newBuilder()
      .setRegionInfo(RegionInfo.newBuilder().setRegionId(1).setTableName(TableName.newBuilder().setNamespace(b("hbase")).setQualifier(b("meta"))))
      .setServerName(ServerName.newBuilder().setHostName("h").setPort(16020).setStartCode(2)).setSeqNum(0)).build());
    p("TableState", TableState.newBuilder().setState(TableState.State.DISABLED).build());
  }
}
