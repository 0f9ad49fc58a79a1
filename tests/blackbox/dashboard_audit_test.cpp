// Security issue item 2: the customer dashboard's history is paged and its reads are rate
// limited. A customer can grow their own audit log without end (each activation of a
// known machine writes a record); the dashboard used to read it whole on every view, so
// a few looping viewers of a long log took the License API's store time and the
// server's memory. Now a view shows the newest page, older pages come by cursor from
// GET /dashboard/api/audit, and reads count per session and per client IP.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <thread>

#include "support/fixture.h"
#include "support/store_sql.h"

namespace bb {
namespace {

constexpr size_t kPageSize = 20;  // the view's page, and the audit endpoint's default
constexpr int kReadsPerSession = 60;
constexpr int kReadsPerIp = 300;

class DashboardAudit : public BlackboxTest {
 protected:
  // `count` audit records of `license`, written straight into the store in one
  // statement (one transaction): the same rows repeated activations would leave.
  void AppendAuditRecords(const std::string& license, int count) const {
    StoreSql(store(),
             "INSERT INTO audit_log (at, action, license_key, machine_id, refresh, actor, ip)"
             " WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
                 std::to_string(count) + ") SELECT 1780000000000 + i, 'license.heartbeat', '" +
                 license + "', 'studio-pc-7f3a9c21', TRUE, 'client', '203.0.113.7' FROM n");
  }

  int64_t AuditCount(const std::string& license) const {
    return std::stoll(
        StoreSql(store(), "SELECT COUNT(*) FROM audit_log WHERE license_key = '" + license + "'"));
  }

  DashboardSession SignIn(const std::string& license, std::string_view source = "127.0.0.1") const {
    return DashboardSignIn(port(), license, source);
  }

  HttpResponse Read(const DashboardSession& session, std::string target,
                    std::string_view source = "127.0.0.1") const {
    return SendFrom(source, port(), DashboardGet(session, std::move(target)));
  }

  // Reads `target` in that session until one is refused (at most `tries`); returns how
  // many were admitted and leaves the refusal in `refused`.
  int ReadsAdmitted(const DashboardSession& session, const std::string& target, int tries,
                    HttpResponse& refused, std::string_view source = "127.0.0.1") const {
    for (int i = 0; i < tries; ++i) {
      HttpResponse r = Read(session, target, source);
      if (r.status != 200) {
        refused = std::move(r);
        return i;
      }
    }
    return tries;
  }

  // The server's resident memory, from /proc.
  int64_t ResidentKb() {
    std::ifstream status("/proc/" + std::to_string(server().pid()) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.starts_with("VmRSS:")) return std::stoll(line.substr(6));
    }
    ADD_FAILURE() << "no VmRSS for the server";
    return 0;
  }
};

// The page of history in a view ("audit") or an audit answer (the body itself).
json::object HistoryPage(const HttpResponse& r) {
  const json::value body = BodyJson(r);
  if (!body.is_object()) return {};
  const json::object& o = body.as_object();
  if (const auto* audit = o.if_contains("audit"))
    return audit->is_object() ? audit->as_object() : json::object{};
  return o;
}

TEST_F(DashboardAudit, ALicenseWith300000RecordsShowsOnePagePerViewAndKeepsMemoryFlat) {
  const std::string license = NewLicense(2);
  const std::string other = NewLicense(2);
  AppendAuditRecords(license, 300'000);
  ServerOptions options;
  // Under AddressSanitizer freed memory waits in a quarantine (256 MB by default) and
  // allocation stacks are kept: both count as resident. Small ones keep the measure about
  // what the server holds; other builds ignore the variable.
  const char* asan = std::getenv("ASAN_OPTIONS");
  options.env.emplace_back("ASAN_OPTIONS",
                           (asan != nullptr ? std::string(asan) + ":" : "") +
                               "quarantine_size_mb=8:thread_local_quarantine_size_kb=64:"
                               "malloc_context_size=4");
  Start(options);
  const HttpResponse warm = Status(other);  // the server's first answer, before measuring
  ASSERT_EQ(warm.status, 200) << warm.Describe();
  const DashboardSession session = SignIn(license);
  const int64_t before_kb = ResidentKb();

  for (int i = 0; i < 20; ++i) {
    const auto started = std::chrono::steady_clock::now();
    const HttpResponse view = Read(session, "/dashboard/api/license");
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    ASSERT_EQ(view.status, 200) << view.Describe().substr(0, 2000);
    const json::object page = HistoryPage(view);
    ASSERT_TRUE(page.contains("items")) << view.Describe().substr(0, 2000);
    EXPECT_EQ(page.at("items").as_array().size(), kPageSize);
    EXPECT_TRUE(page.at("nextCursor").is_string());
    if (i == 0) std::printf("  first view of 300,000 records: %lld ms\n", (long long)ms.count());
  }

  // Four viewers loop (views and older pages) while a plugin checks its status; the
  // viewers are soon refused 429, which is the point.
  std::atomic<bool> stop{false};
  std::atomic<int> viewed{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> viewers;
  for (int v = 0; v < 4; ++v) {
    viewers.emplace_back([&, viewer = SignIn(license)] {
      std::string target = "/dashboard/api/license";
      while (!stop) {
        const HttpResponse r = Read(viewer, target);
        if (r.status == 429) {
          ++refused;
          continue;
        }
        ++viewed;
        const json::object page = HistoryPage(r);
        const auto* next = page.if_contains("nextCursor");
        target = next != nullptr && next->is_string()
                     ? "/dashboard/api/audit?cursor=" + std::string(next->as_string())
                     : "/dashboard/api/license";
      }
    });
  }
  std::vector<long long> status_ms;
  for (int i = 0; i < 50; ++i) {
    const auto started = std::chrono::steady_clock::now();
    const HttpResponse r = Status(other);
    status_ms.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - started)
                            .count());
    EXPECT_EQ(r.status, 200) << r.Describe();
  }
  stop = true;
  for (auto& t : viewers) t.join();
  std::sort(status_ms.begin(), status_ms.end());
  std::printf("  status while viewers loop: median %lld ms, max %lld ms; %d views, %d refused\n",
              status_ms[status_ms.size() / 2], status_ms.back(), viewed.load(), refused.load());

  const int64_t after_kb = ResidentKb();
  std::printf("  resident memory: %lld kB before the views, %lld kB after\n", (long long)before_kb,
              (long long)after_kb);
  EXPECT_LT(after_kb - before_kb, 50 * 1024) << "the views grew the server's memory";
}

TEST_F(DashboardAudit, FollowingTheCursorShowsEveryRecordOnceNewestFirst) {
  const std::string license = NewLicense(2);
  AppendAuditRecords(license, 120);
  Start();
  const DashboardSession session = SignIn(license);
  std::vector<int64_t> ids;
  HttpResponse r = Read(session, "/dashboard/api/license");
  for (int pages = 0; pages < 20; ++pages) {
    ASSERT_EQ(r.status, 200) << r.Describe();
    const json::object page = HistoryPage(r);
    const json::array& items = page.at("items").as_array();
    EXPECT_LE(items.size(), kPageSize);
    for (const auto& item : items) ids.push_back(item.at("id").as_int64());
    if (page.at("nextCursor").is_null()) break;
    r = Read(session,
             "/dashboard/api/audit?cursor=" + std::string(page.at("nextCursor").as_string()));
  }
  // 120 written here, and the license's own license.create.
  ASSERT_EQ(static_cast<int64_t>(ids.size()), AuditCount(license));
  EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), ids.size()) << "a record twice";
  EXPECT_TRUE(std::is_sorted(ids.rbegin(), ids.rend())) << "not newest first";
  EXPECT_EQ(ids.front(), std::stoll(StoreSql(store(), "SELECT MAX(id) FROM audit_log")));
}

TEST_F(DashboardAudit, AnAuditPageTakesALimitUpToAHundredAndRefusesOtherLimitsAndCursors) {
  const std::string license = NewLicense(2);
  AppendAuditRecords(license, 150);
  Start();
  const DashboardSession session = SignIn(license);
  const HttpResponse big = Read(session, "/dashboard/api/audit?limit=100");
  ASSERT_EQ(big.status, 200) << big.Describe();
  EXPECT_EQ(HistoryPage(big).at("items").as_array().size(), 100u);
  EXPECT_API_ERROR(Read(session, "/dashboard/api/audit?limit=101"), 400, 1702,
                   "LICENSE_API_MALFORMED");
  EXPECT_API_ERROR(Read(session, "/dashboard/api/audit?cursor=%21%21"), 400, 1702,
                   "LICENSE_API_MALFORMED");
  EXPECT_EQ(Read(DashboardSession{}, "/dashboard/api/audit").status, 401);
}

TEST_F(DashboardAudit, ASessionsReadsBeyondItsLimitAnswer429WhileAnotherSessionReads) {
  const std::string license = NewLicense(2);
  Start();
  HttpResponse refused;
  const int admitted =
      ReadsAdmitted(SignIn(license), "/dashboard/api/audit", kReadsPerSession + 20, refused);
  // A read or two may come back into the bucket while the loop runs.
  EXPECT_GE(admitted, kReadsPerSession);
  EXPECT_LE(admitted, kReadsPerSession + 5);
  EXPECT_RATE_LIMITED(refused, "session", 60);
  EXPECT_EQ(refused.header("Cache-Control"), "no-store");
  EXPECT_EQ(Read(SignIn(license), "/dashboard/api/license").status, 200);
}

TEST_F(DashboardAudit, ReadsFromOneAddressBeyondItsLimitAnswer429WhateverTheSession) {
  const std::string license = NewLicense(2);
  Start();
  constexpr std::string_view kOffice = "127.0.0.3";
  int admitted = 0;
  HttpResponse refused;
  const auto began = std::chrono::steady_clock::now();
  // Sessions of 50 reads each stay under the session limit; together they pass the IP's.
  for (int s = 0; s < kReadsPerIp / 50 + 8 && refused.status == 0; ++s) {
    admitted +=
        ReadsAdmitted(SignIn(license, kOffice), "/dashboard/api/license", 50, refused, kOffice);
  }
  // The bucket refills kReadsPerIp a minute while the loop runs (slowly on a loaded
  // machine): what came back in that time may be admitted too, and no more.
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - began)
          .count();
  EXPECT_GE(admitted, kReadsPerIp);
  EXPECT_LE(admitted, kReadsPerIp + 10 + (seconds + 1) * kReadsPerIp / 60) << seconds << " s";
  EXPECT_RATE_LIMITED(refused, "ip", 60);
  // Another address is counted apart.
  EXPECT_EQ(Read(SignIn(license), "/dashboard/api/license").status, 200);
}

}  // namespace
}  // namespace bb
