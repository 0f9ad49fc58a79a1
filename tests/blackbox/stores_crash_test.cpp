// Issue 20 item 3: "a SIGKILL in the middle of a burst of deliveries leaves every
// acknowledged order with its licenses and audit records and no order half-fulfilled".
// Bursts of 200 distinct signed Stripe orders (two per-unit units each) arrive from 8
// threads; the server is killed with SIGKILL after 5, 60 or 150 answers (one round each)
// and restarted on the same store. Every
// order answered 200 must have both licenses, each with its one license.create record;
// no order may have one license of two; redelivering every order then completes the rest
// with exactly two licenses each. Runs on SQLite, and as scale.* on PostgreSQL with Redis.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "support/fixture.h"
#include "support/signer.h"
#include "support/stores.h"

namespace bb {
namespace {

constexpr std::string_view kSecret = "whsec_crash_0123456789";
constexpr int kOrders = 200;
constexpr int kUnitsPerOrder = 2;
constexpr int kThreads = 8;

class StoresCrash : public StoresTest {};

std::string OrderId(int n) {
  return "cs_live_crash_" + std::to_string(n);
}

// Order n, freshly signed. Only price_single is mapped (per unit): its two units make two
// licenses; the session's price_site line is sold but not licensed here.
HttpRequest Order(const std::string& url, int n) {
  const std::string body = StripePaidSession("evt_crash_" + std::to_string(n), OrderId(n),
                                             "pi_crash_" + std::to_string(n), true, kUnitsPerOrder);
  return StripeDelivery(url, body, StripeSignature(kSecret, UnixNow(), body));
}

// Orders first .. first + kOrders - 1 sent from kThreads threads; SIGKILL once
// `kill_after` answers came. Each order's status: 200, or 0 when the server died first.
std::vector<int> BurstUntilKilled(ServerProcess& server, const std::string& url, int first,
                                  int kill_after) {
  std::mutex mu;
  std::condition_variable cv;
  int answered = 0;
  int threads_done = 0;
  std::atomic<bool> killed{false};
  std::vector<int> status(kOrders, 0);
  const std::uint16_t p = server.port();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < kOrders && !killed.load(); i += kThreads) {
        const int s = bb::Send(p, Order(url, first + i), std::chrono::seconds(30)).status;
        std::lock_guard lock(mu);
        status[static_cast<std::size_t>(i)] = s;
        if (s != 0) ++answered;
        cv.notify_all();
      }
      std::lock_guard lock(mu);
      ++threads_done;
      cv.notify_all();
    });
  }
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return answered >= kill_after || threads_done == kThreads; });
  }
  EXPECT_EQ(::kill(server.pid(), SIGKILL), 0);
  killed.store(true);
  for (auto& th : threads) th.join();
  return status;
}

TEST_F(StoresCrash, ASigkillInABurstOfDeliveriesLeavesEveryAcknowledgedOrderWholeAndNoneHalfMade) {
  // One round per kill point, so the kill lands early, mid-way and late in a burst.
  const std::vector<int> kill_after = {5, 60, 150};
  StartWithPlan();
  const auto [id, url] = CreateStoreFrom(
      R"({"provider":"stripe","name":"Burst shop","secret":")" + std::string(kSecret) +
      R"(","mapping":{"price_single":{"product":"reverb","plan":"pro","perUnit":true}}})");
  ASSERT_FALSE(url.empty());

  std::vector<int> status;  // every round's orders, in order
  for (std::size_t round = 0; round < kill_after.size(); ++round) {
    SCOPED_TRACE("round " + std::to_string(round) + ", SIGKILL after " +
                 std::to_string(kill_after[round]) + " answers");
    const int first = static_cast<int>(status.size());
    const std::vector<int> round_status = BurstUntilKilled(server(), url, first, kill_after[round]);
    int acknowledged = 0;
    for (int i = 0; i < kOrders; ++i) {
      const int s = round_status[static_cast<std::size_t>(i)];
      EXPECT_TRUE(s == 200 || s == 0) << OrderId(first + i) << " answered " << s;
      if (s == 200) ++acknowledged;
    }
    EXPECT_GE(acknowledged, kill_after[round]);
    EXPECT_LT(acknowledged, kOrders) << "the burst ended before the kill: nothing was tested";
    status.insert(status.end(), round_status.begin(), round_status.end());

    Start();  // reaps the killed server, then starts a new one on the same store
    std::map<std::string, std::vector<std::string>> made;  // order id -> license keys
    for (const auto& l : StoreLicenses()) {
      made[Str(l, "source.orderId")].push_back(Str(l, "licenseKey"));
    }
    std::size_t orders_made = 0;
    for (int n = 0; n < static_cast<int>(status.size()); ++n) {
      SCOPED_TRACE(OrderId(n));
      const auto found = made.find(OrderId(n));
      const std::size_t count = found == made.end() ? 0 : found->second.size();
      EXPECT_TRUE(count == 0 || count == kUnitsPerOrder)
          << count << " of " << kUnitsPerOrder << " licenses: half-fulfilled";
      if (status[static_cast<std::size_t>(n)] == 200) {
        EXPECT_EQ(count, static_cast<std::size_t>(kUnitsPerOrder)) << "acknowledged, then lost";
      }
      if (count == 0) continue;
      ++orders_made;
      for (const auto& key : found->second) {
        EXPECT_EQ(LicenseAudit(key, "license.create").size(), 1u) << key;
      }
    }
    EXPECT_EQ(made.size(), orders_made) << "licenses of an order never sent";
    if (HasFailure()) return;
  }

  // Stripe delivers every order again (those unanswered, and the rest as duplicates).
  std::vector<HttpRequest> again;
  for (int n = 0; n < static_cast<int>(status.size()); ++n) again.push_back(Order(url, n));
  for (std::size_t from = 0; from < again.size(); from += 50) {
    const auto to = std::min(again.size(), from + 50);
    const std::vector<HttpRequest> batch(again.begin() + static_cast<std::ptrdiff_t>(from),
                                         again.begin() + static_cast<std::ptrdiff_t>(to));
    for (const HttpResponse& r : SendAllAtOnce(batch)) EXPECT_EQ(r.status, 200) << r.Describe();
  }
  std::map<std::string, std::vector<std::string>> made;
  const auto licenses = StoreLicenses();
  EXPECT_EQ(licenses.size(), status.size() * kUnitsPerOrder);
  for (const auto& l : licenses) {
    made[Str(l, "source.orderId")].push_back(Str(l, "licenseKey"));
  }
  for (int n = 0; n < static_cast<int>(status.size()); ++n) {
    EXPECT_EQ(made[OrderId(n)].size(), static_cast<std::size_t>(kUnitsPerOrder)) << OrderId(n);
  }
  for (const auto& l : licenses) {
    EXPECT_EQ(LicenseAudit(Str(l, "licenseKey"), "license.create").size(), 1u);
  }
}

}  // namespace
}  // namespace bb
