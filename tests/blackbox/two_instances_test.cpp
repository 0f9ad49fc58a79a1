// Two `licensed` processes on one store, as behind a load balancer: the cap is the
// store's (a license row lock on PostgreSQL, the file's write lock on SQLite), not one
// process's, so 64 concurrent activations of distinct machines split across both
// instances on a license of 5 give exactly 5 successes.
#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <thread>

#include "support/fixture.h"

namespace bb {
namespace {

class TwoInstances : public BlackboxTest {};

TEST_F(TwoInstances, SixtyFourActivationsAcrossBothInstancesGiveExactlyFive) {
  Start();
  const auto second = StartAnother();
  const std::string license = NewLicense(5);
  constexpr int kRequests = 64;
  const std::uint16_t ports[2] = {port(), second->port()};
  std::atomic<int> ok{0}, limit{0}, other{0};
  std::latch start(kRequests);
  std::vector<std::thread> clients;
  for (int i = 0; i < kRequests; ++i) {
    clients.emplace_back([&, i] {
      const HttpRequest r =
          SignedRequest(kPluginKey, Endpoint("activate"),
                        Body(license, "machine-" + std::to_string(i), std::nullopt));
      start.arrive_and_wait();
      const HttpResponse answer = bb::Send(ports[i % 2], r);
      (answer.status == 200 ? ok : answer.status == 409 ? limit : other)++;
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok.load(), 5);
  EXPECT_EQ(limit.load(), kRequests - 5);
  EXPECT_EQ(other.load(), 0);
  // Without Redis the two do not share nonces: the second says so at start (SQLite only:
  // it can tell from a lock on the file).
  if (!on_postgres() && !on_redis()) {
    EXPECT_NE(second->log().find("another licensed serve without --redis"), std::string::npos)
        << second->log();
    EXPECT_EQ(server().log().find("another licensed serve"), std::string::npos)
        << "the first instance had the file to itself";
  }
  EXPECT_EQ(Arr(admin().Show(license), "activations").size(), 5u);
  EXPECT_EQ(AuditRecords(license, "license.activate").size(), 5u);
}

}  // namespace
}  // namespace bb
