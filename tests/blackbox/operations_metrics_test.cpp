// Issue 24 item 7: /metrics carries the process's figures under the usual names, error
// answers by code (1705, and 1708/1709 for the store), 401 causes apart, and the store
// queue's and connections' figures beside their limits.
#include <gtest/gtest.h>

#include "support/fixture.h"

namespace bb {
namespace {

class OperationsMetrics : public BlackboxTest {};

TEST_F(OperationsMetrics, ProcessFiguresAreExposedUnderTheUsualNames) {
  Start();
  const std::string text = AdminGet("/metrics").body;
  EXPECT_GT(MetricSample(text, "process_resident_memory_bytes"), 1e6) << text;
  EXPECT_GT(MetricSample(text, "process_open_fds"), 3) << text;
  EXPECT_GT(MetricSample(text, "process_max_fds"), MetricSample(text, "process_open_fds"));
  EXPECT_GE(MetricSample(text, "process_cpu_seconds_total"), 0) << text;
  EXPECT_GT(MetricSample(text, "process_start_time_seconds"), 1.7e9) << text;
  EXPECT_EQ(MetricSample(text, "licensed_store_queue_limit"), 10000) << text;
  EXPECT_GE(MetricSample(text, "licensed_connections_open"), 0) << text;
  EXPECT_GT(MetricSample(text, "licensed_connections_limit"), 0) << text;
}

TEST_F(OperationsMetrics, UnauthorizedCausesAndErrorCodesAreCountedApart) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), SigningKey{"nobody", "x"}), "unknown_key");
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), SigningKey{"nobody", "x"}), "unknown_key");
  SignOptions wrong;
  wrong.secret = "not the secret";
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), kPluginKey, wrong), "signature_mismatch");
  SignOptions stale;
  stale.timestamp = UnixNow() - 3600;
  EXPECT_API_ERROR(Call("status", Body(license), kPluginKey, stale), 401, 1701, "STALE_TIMESTAMP");
  EXPECT_OK(Activate(license, "machine-0001"));
  EXPECT_API_ERROR(Activate(license, "machine-0002"), 409, 1705, "LICENSE_API_LIMIT_REACHED");
  const std::string text = AdminGet("/metrics").body;
  EXPECT_EQ(MetricSample(text, "licensed_unauthorized_total{cause=\"unknown_key\"}"), 2) << text;
  EXPECT_EQ(MetricSample(text, "licensed_unauthorized_total{cause=\"signature_mismatch\"}"), 1);
  EXPECT_EQ(MetricSample(text, "licensed_unauthorized_total{cause=\"stale_timestamp\"}"), 1);
  EXPECT_EQ(MetricSample(text, "licensed_api_errors_total{code=\"1700\"}"), 3) << text;
  EXPECT_EQ(MetricSample(text, "licensed_api_errors_total{code=\"1705\"}"), 1) << text;
  EXPECT_EQ(MetricSample(text, "licensed_api_errors_total{code=\"1708\"}"), 0) << text;
}

}  // namespace
}  // namespace bb
