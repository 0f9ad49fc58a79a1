#include "observability/sentry_reporter.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace licensed {
namespace {

// A loopback port nothing listens on: bound, read, closed.
uint16_t ClosedPort() {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor a(
      ioc, {boost::asio::ip::make_address("127.0.0.1"), static_cast<uint16_t>(0)});
  return a.local_endpoint().port();
}

SentryReporterOptions Options(size_t max_queued) {
  auto dsn = parse_sentry_dsn("http://publickey@127.0.0.1:" + std::to_string(ClosedPort()) + "/42");
  EXPECT_TRUE(dsn.ok());
  SentryReporterOptions o;
  o.dsn = dsn.value();
  o.client.version = "test";
  o.max_queued = max_queued;
  return o;
}

ErrorReport Report(int n) {
  ErrorReport r;
  r.message = "internal error";
  r.request_id = "req_" + std::to_string(n);
  return r;
}

// Delivery is covered by the black-box test against a real receiver; here, the
// accounting: every report ends up sent or dropped, never lost silently or blocking.
TEST(SentryReporter, UndeliverableReportsAreCountedAsDropped) {
  SentryReporter reporter(Options(100));
  for (int i = 0; i < 5; ++i) reporter.report(Report(i));
  reporter.shutdown(std::chrono::seconds(5));
  EXPECT_EQ(reporter.sent(), 0u);
  EXPECT_EQ(reporter.dropped(), 5u);
}

TEST(SentryReporter, AFullQueueDropsInsteadOfWaiting) {
  SentryReporter reporter(Options(1));
  for (int i = 0; i < 50; ++i) reporter.report(Report(i));
  reporter.shutdown(std::chrono::seconds(5));
  EXPECT_EQ(reporter.sent() + reporter.dropped(), 50u);
}

TEST(SentryReporter, ReportsAfterShutdownAreDropped) {
  SentryReporter reporter(Options(10));
  reporter.shutdown(std::chrono::milliseconds(0));
  reporter.report(Report(1));
  EXPECT_EQ(reporter.dropped(), 1u);
  reporter.shutdown(std::chrono::milliseconds(0));  // idempotent
}

}  // namespace
}  // namespace licensed
