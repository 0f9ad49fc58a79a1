// Issue 24 item 7: /metrics carries the process's figures under the usual names, error
// answers by code (1705, and 1708/1709 for the store), 401 causes apart, and the store
// queue's and connections' figures beside their limits, store failures by kind and the
// PostgreSQL pool's figures.
#include <gtest/gtest.h>

#include "support/db_lock.h"
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

std::string StoreErrors(std::string_view kind) {
  return "licensed_store_errors_total{kind=\"" + std::string(kind) + "\"}";
}

// A database locked by another process: the job waiting for the lock fails as unavailable
// (1708), and those beyond the queue's limit (3), refused at once, as queue_full.
TEST_F(OperationsMetrics, ALockedStoreCountsUnavailableAndQueueFullStoreErrors) {
  SKIP_UNLESS_SQLITE();
  ServerOptions options;
  options.args = {"--max-queue", "3"};
  Start(options);
  const std::string license = NewLicense(100);
  const std::string before = AdminGet("/metrics").body;
  for (const char* kind : {"unavailable", "internal", "queue_full"}) {
    EXPECT_EQ(MetricSample(before, StoreErrors(kind)), 0) << before;
  }
  {
    DbLock lock(db_path());
    std::vector<HttpRequest> requests;
    for (int i = 0; i < 10; ++i) {
      requests.push_back(Signed("activate", Body(license, "machine-" + std::to_string(1000 + i))));
    }
    for (const auto& r : SendAllAtOnce(requests)) {
      EXPECT_API_ERROR(r, 503, 1708, "LICENSE_API_UNAVAILABLE");
    }
  }
  const std::string text = AdminGet("/metrics").body;
  EXPECT_GE(MetricSample(text, StoreErrors("unavailable")), 1) << text;
  EXPECT_GE(MetricSample(text, StoreErrors("queue_full")), 1) << text;
  // Each refused activation is one failed job at least (a refusal recorded for support
  // may fail beside it).
  EXPECT_GE(MetricSample(text, StoreErrors("unavailable")) +
                MetricSample(text, StoreErrors("queue_full")),
            10)
      << text;
  EXPECT_EQ(MetricSample(text, StoreErrors("internal")), 0) << text;
  EXPECT_NE(text.find("# TYPE licensed_store_errors_total counter"), std::string::npos) << text;
}

// A row the server cannot read (500 1709) counts as an internal store error, on either
// store; a refusal of the License API (an unknown key) counts nothing.
TEST_F(OperationsMetrics, AStoreRowThatCannotBeReadCountsAnInternalStoreError) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_API_ERROR(Status(RandomUuidV4()), 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_EQ(MetricSample(AdminGet("/metrics").body, StoreErrors("internal")), 0);
  CorruptLicenseStatus(license);
  EXPECT_API_ERROR(Status(license), 500, 1709, "LICENSE_API_INTERNAL");
  const std::string text = AdminGet("/metrics").body;
  EXPECT_EQ(MetricSample(text, StoreErrors("internal")), 1) << text;
  EXPECT_EQ(MetricSample(text, StoreErrors("unavailable")), 0) << text;
}

// PostgreSQL's pool: its size (--store-pool-size), connections open, in use and idle.
// SQLite has no pool (one writer thread, fixed readers) and shows no such series.
TEST_F(OperationsMetrics, ThePostgresPoolFiguresAreGaugesAndSqliteHasNone) {
  ServerOptions options;
  options.args = {"--store-pool-size", "3"};
  Start(options);
  const std::string license = NewLicense(5);
  ASSERT_OK(Activate(license, "machine-0001"));
  const std::string text = AdminGet("/metrics").body;
  if (!on_postgres()) {
    EXPECT_EQ(text.find("licensed_store_pool_"), std::string::npos) << text;
    return;
  }
  EXPECT_EQ(MetricSample(text, "licensed_store_pool_size"), 3) << text;
  const double open = MetricSample(text, "licensed_store_pool_connections_open");
  EXPECT_GE(open, 1) << text;
  EXPECT_LE(open, 3) << text;
  const double in_use = MetricSample(text, "licensed_store_pool_connections_in_use");
  const double idle = MetricSample(text, "licensed_store_pool_connections_idle");
  EXPECT_GE(in_use, 0) << text;
  EXPECT_GE(idle, 0) << text;
  EXPECT_EQ(in_use + idle, open) << text;
  EXPECT_NE(text.find("# TYPE licensed_store_pool_connections_open gauge"), std::string::npos);
}

}  // namespace
}  // namespace bb
