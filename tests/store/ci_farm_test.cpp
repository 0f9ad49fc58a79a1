// Issue 9, item 3, on every Store: a CI farm runs all day against one license with max 5
// and a 10-minute machine TTL (docs/protocol.md §10), on an injected clock. A job starts every
// 6 minutes on the next runner of a pool of 50, heartbeats each minute for its 10
// minutes, then the runner vanishes without deactivating. A job's machine is fresh for
// at most 20 minutes (10 running, 10 of TTL), so at most 4 are fresh at once and the
// farm never meets the cap; stale runners are reclaimed by the activations that follow.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "admin/admin_operations.h"
#include "core/clock.h"
#include "core/operations.h"
#include "http/license_api_error.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::Endpoint;
using licensed::ErrorCode;
using licensed::ManualClock;
using licensed::Result;
using licensed::StoreTx;
using licensed::TxKind;

constexpr licensed::UnixMillis kDayStart = 1'795'000'000'000;
constexpr int kMax = 5;
constexpr int64_t kTtlSeconds = 600;
constexpr int kRunners = 50;
constexpr int kMinutesPerDay = 24 * 60;
constexpr int kJobEvery = 6;
constexpr int kJobLength = 10;

class CiFarm : public ::testing::TestWithParam<std::string> {
 protected:
  template <class Fn>
  auto Write(Fn&& fn) {
    return licensed::run_blocking(harness_->store(), TxKind::kWrite, std::forward<Fn>(fn));
  }

  void SetUp() override {
    if (!StoreKindAvailable(GetParam())) GTEST_SKIP() << "no test PostgreSQL server";
    harness_ = std::make_unique<StoreHarness>(GetParam());
    auto made = Write([&](StoreTx& tx) -> Result<licensed::License> {
      auto product = licensed::create_product(tx, "reverb", "Reverb Pro", admin());
      if (!product.ok()) return product.error();
      licensed::LicenseSpec spec{
          "reverb", kMax, std::nullopt, kTtlSeconds, licensed::LicenseStatus::kActive,
          "",       {},   {},           {}};
      return licensed::create_license(tx, spec, admin());
    });
    ASSERT_TRUE(made.ok()) << made.error().message;
    key_ = made->key;
  }

  licensed::AdminContext admin() const { return {clock_.now_ms(), std::nullopt}; }

  licensed::RequestResult<boost::json::object> Call(Endpoint e,
                                                    std::optional<std::string> machine) {
    licensed::LicenseRequest req{key_, std::move(machine), std::nullopt, {}, {}, {}, {}};
    return Write([&](StoreTx& tx) {
      licensed::OperationContext ctx;
      ctx.now = clock_.now_ms();
      ctx.ip = "127.0.0.1";
      ctx.key_id = "ci";
      ctx.request_id = "req_ci_farm";
      ctx.dashboard_url = &dashboard_;
      return licensed::run_operation(e, tx, req, ctx);
    });
  }

  static int Code(const licensed::RequestResult<boost::json::object>& r) {
    if (r.ok()) return 200;
    return static_cast<int>(
        r.error().answer_or(licensed::to_api_error).code.value_or(ErrorCode::kInternal));
  }

  int64_t Reclaims() {
    auto audit = Write([&](StoreTx& tx) { return licensed::license_audit(tx, key_); });
    EXPECT_TRUE(audit.ok());
    if (!audit.ok()) return 0;
    return std::count_if(audit->begin(), audit->end(), [](const boost::json::value& e) {
      return e.at("action").as_string() == "license.reclaim" &&
             e.at("actor").as_string() == "system";
    });
  }

  std::unique_ptr<StoreHarness> harness_;
  ManualClock clock_{kDayStart};
  std::optional<std::string> dashboard_;
  std::string key_;
};

TEST_P(CiFarm, FiftyShortLivedRunnersRunAllDayWithoutAConflictButASixthConcurrentOneGets1705) {
  struct Job {
    std::string runner;
    int ends_at;
  };
  std::vector<Job> running;
  int jobs = 0;
  int64_t most_fresh = 0;
  for (int minute = 0; minute < kMinutesPerDay; ++minute) {
    std::erase_if(running, [&](const Job& j) { return j.ends_at <= minute; });
    for (const auto& job : running) {
      const auto beat = Call(Endpoint::kHeartbeat, job.runner);
      ASSERT_EQ(Code(beat), 200) << job.runner << " at minute " << minute;
    }
    if (minute % kJobEvery == 0) {
      const std::string runner = "runner-" + std::to_string(1000 + jobs % kRunners);
      const auto a = Call(Endpoint::kActivate, runner);
      ASSERT_EQ(Code(a), 200) << runner << " at minute " << minute;
      most_fresh = std::max(most_fresh, a->at("activations").as_int64());
      running.push_back({runner, minute + kJobLength});
      ++jobs;
    }
    clock_.advance_ms(60'000);
  }
  EXPECT_EQ(jobs, kMinutesPerDay / kJobEvery);
  EXPECT_LE(most_fresh, kMax);
  // Every job's runner but the last few went stale and was reclaimed by a later job.
  EXPECT_GE(Reclaims(), jobs - kMax);

  // The last jobs' runners are still fresh: runners join beside them up to the cap, and
  // the next concurrent one is refused.
  const auto status = Call(Endpoint::kStatus, std::nullopt);
  ASSERT_EQ(Code(status), 200);
  int64_t fresh = status->at("activations").as_int64();
  ASSERT_GT(fresh, 0);
  for (int i = 0; fresh < kMax; ++i, ++fresh) {
    ASSERT_EQ(Code(Call(Endpoint::kActivate, "late-runner-" + std::to_string(1000 + i))), 200);
  }
  const auto sixth = Call(Endpoint::kActivate, "late-runner-sixth");
  ASSERT_EQ(Code(sixth), 1705);
}

INSTANTIATE_TEST_SUITE_P(Stores, CiFarm, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace bb
