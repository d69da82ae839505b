package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.quotas.QuotaFilter;
import org.apache.hadoop.hbase.quotas.QuotaSettings;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.QuotaType;
import org.apache.hadoop.hbase.quotas.ThrottleSettings;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import org.junit.jupiter.api.Test;

/** Admin.setQuota / getQuota: set_quota and list_quotas over MasterService and hbase:quota. */
class QuotaTest extends WeirTestBase {

  @Test
  void throttleUserIsListedAndRemoved() throws Exception {
    admin.setQuota(QuotaSettingsFactory.throttleUser("t", ThrottleType.REQUEST_NUMBER, 10, TimeUnit.SECONDS));
    List<QuotaSettings> got = admin.getQuota(new QuotaFilter().setUserFilter("t"));
    assertEquals(1, got.size(), "quotas of user t: " + got);
    QuotaSettings s = got.get(0);
    assertEquals(QuotaType.THROTTLE, s.getQuotaType());
    assertEquals("t", s.getUserName());
    ThrottleSettings ts = (ThrottleSettings) s;
    assertEquals(ThrottleType.REQUEST_NUMBER, ts.getThrottleType());
    assertEquals(10, ts.getSoftLimit());
    assertEquals(TimeUnit.SECONDS, ts.getTimeUnit());

    assertTrue(admin.getQuota(new QuotaFilter().setUserFilter("other")).isEmpty(), "no quotas for another user");

    admin.setQuota(QuotaSettingsFactory.unthrottleUser("t"));
    assertTrue(admin.getQuota(new QuotaFilter().setUserFilter("t")).isEmpty(), "quota of t removed");
  }

  @Test
  void rpcThrottleSwitch() throws Exception {
    assertTrue(admin.isRpcThrottleEnabled());
    assertTrue(admin.switchRpcThrottle(false), "previous state");
    assertEquals(false, admin.isRpcThrottleEnabled());
    assertEquals(false, admin.switchRpcThrottle(true), "previous state");
    assertTrue(admin.isRpcThrottleEnabled());
  }
}
