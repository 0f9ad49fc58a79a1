#include "observability/sentry_reporter.h"

#include <spdlog/spdlog.h>

#include <boost/json/serialize.hpp>

#include "observability/http_post.h"
#include "observability/log_fields.h"

namespace licensed {

using Steady = std::chrono::steady_clock;

SentryReporter::SentryReporter(SentryReporterOptions options) : options_(std::move(options)) {
  thread_ = std::thread([this] { run(); });
}

SentryReporter::~SentryReporter() {
  shutdown(std::chrono::milliseconds(0));
}

void SentryReporter::report(ErrorReport report) {
  {
    MutexLock lock(mu_);
    if (!stopping_ && queue_.size() < options_.max_queued) {
      queue_.push_back(std::move(report));
      cv_.notify_one();
      return;
    }
  }
  ++dropped_;
}

void SentryReporter::shutdown(std::chrono::milliseconds grace) {
  {
    MutexLock lock(mu_);
    if (!thread_.joinable()) return;
    if (!stopping_) {
      stopping_ = true;
      flush_deadline_ = Steady::now() + grace;
    }
  }
  cv_.notify_all();
  thread_.join();
}

void SentryReporter::run() {
  for (;;) {
    ErrorReport report;
    {
      MutexLock lock(mu_);
      while (!stopping_ && queue_.empty()) lock.wait(cv_);
      if (queue_.empty() || (stopping_ && Steady::now() >= flush_deadline_)) {
        dropped_ += queue_.size();
        queue_.clear();
        if (stopping_) return;
        continue;
      }
      report = std::move(queue_.front());
      queue_.pop_front();
    }
    send(report);
  }
}

void SentryReporter::send(const ErrorReport& report) {
  const auto now = Steady::now();
  if (now < rate_limited_until_) {
    ++dropped_;
    return;
  }
  const std::string event_id = new_sentry_event_id();
  const std::string event_json =
      boost::json::serialize(sentry_event(report, event_id, options_.client));
  HttpPostRequest post;
  post.host = options_.dsn.host;
  post.port = options_.dsn.port;
  post.target = options_.dsn.envelope_target();
  post.headers = {{"Content-Type", "application/x-sentry-envelope"},
                  {"X-Sentry-Auth", sentry_auth_header(options_.dsn, options_.client)},
                  {"User-Agent", options_.client.name + "/" + options_.client.version}};
  const UnixMillis sent_at = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
  post.body = sentry_envelope(options_.dsn, event_id, sent_at, options_.client, event_json);

  const HttpPostOutcome outcome = http_post(post, now + options_.send_timeout);
  if (outcome.status >= 200 && outcome.status < 300) {
    ++sent_;
    return;
  }
  ++dropped_;
  const ScopedLogFields log_fields{{"requestId", report.request_id}};
  // Never the DSN itself: its key is a credential.
  const std::string where = options_.dsn.describe();
  if (outcome.status == 429) {
    const int64_t wait = outcome.retry_after_seconds.value_or(60);
    rate_limited_until_ = Steady::now() + std::chrono::seconds(wait);
    spdlog::warn("error report for request {} not sent: sentry at {} rate-limits us for {} s",
                 report.request_id, where, wait);
  } else if (outcome.status != 0) {
    spdlog::warn("error report for request {} refused by sentry at {}: HTTP {}", report.request_id,
                 where, outcome.status);
  } else {
    spdlog::warn("error report for request {} not sent to sentry at {}: {}", report.request_id,
                 where, outcome.error);
  }
}

}  // namespace licensed
