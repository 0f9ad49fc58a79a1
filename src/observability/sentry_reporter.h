// ErrorReporter that sends each report as a Sentry event envelope over HTTP, from one
// background thread fed by a bounded queue: report() only takes a lock and appends (or
// drops and counts, when the queue is full), so a slow or dead Sentry costs a request
// nothing. Honors 429 Retry-After by dropping events until then.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <thread>

#include "core/mutex.h"
#include "observability/error_reporter.h"
#include "observability/sentry_dsn.h"
#include "observability/sentry_envelope.h"

namespace licensed {

struct SentryReporterOptions {
  SentryDsn dsn;
  SentryClientInfo client;
  // 500s come in bursts when something breaks; a burst's first events say everything,
  // and a bound keeps memory flat when Sentry is down.
  size_t max_queued = 100;
  // Per event: connect, send and read the answer.
  std::chrono::milliseconds send_timeout{3000};
};

class SentryReporter final : public ErrorReporter {
 public:
  // Starts the sending thread: create it after blocking the signals main() waits for.
  explicit SentryReporter(SentryReporterOptions options);
  // shutdown() with no grace, if it has not been called.
  ~SentryReporter() override;
  SentryReporter(const SentryReporter&) = delete;
  SentryReporter& operator=(const SentryReporter&) = delete;

  void report(ErrorReport report) override;

  // Stops taking reports, sends what is queued until `grace` has passed (an event being
  // sent then may take up to send_timeout more), drops the rest, joins the thread.
  void shutdown(std::chrono::milliseconds grace);

  uint64_t sent() const { return sent_.load(); }
  // Reports not delivered: queue full, rate limited, failed to send, left at shutdown.
  uint64_t dropped() const { return dropped_.load(); }

 private:
  void run();
  void send(const ErrorReport& report);

  const SentryReporterOptions options_;
  Mutex mu_;
  std::condition_variable cv_;
  std::deque<ErrorReport> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::chrono::steady_clock::time_point flush_deadline_ GUARDED_BY(mu_){};
  std::chrono::steady_clock::time_point rate_limited_until_{};  // only the thread uses it
  std::atomic<uint64_t> sent_{0};
  std::atomic<uint64_t> dropped_{0};
  std::thread thread_;
};

}  // namespace licensed
