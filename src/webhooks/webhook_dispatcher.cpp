#include "webhooks/webhook_dispatcher.h"

#include <spdlog/spdlog.h>

#include <random>
#include <utility>

#include "auth/webhook_signature.h"
#include "webhooks/retry_schedule.h"

namespace licensed {
namespace {

// What one attempt came to.
struct AttemptResult {
  std::optional<int64_t> status;
  std::optional<std::string> error;
  std::optional<int64_t> retry_after_seconds;
  bool delivered() const { return status && *status >= 200 && *status < 300; }
  bool gone() const { return status && *status == 410; }
};

double jitter() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

std::string event_id_header(int64_t event_id) {
  return "evt_" + std::to_string(event_id);
}

std::vector<std::string> secret_texts(const WebhookEndpoint& endpoint) {
  std::vector<std::string> out;
  for (const auto& s : endpoint.secrets) out.push_back(s.secret);
  return out;
}

AttemptResult send_attempt(const OutgoingClient& client, const OutgoingLimits& limits,
                           const WebhookAttempt& a, UnixMillis now) {
  const std::string id = event_id_header(a.event.id);
  const int64_t timestamp = unix_seconds(now);
  auto signature = webhook_signature(secret_texts(a.endpoint), id, timestamp, a.event.body);
  if (!signature.ok()) return AttemptResult{std::nullopt, signature.error().message, std::nullopt};
  OutgoingRequest request;
  request.method = "POST";
  request.url = a.endpoint.url;
  request.headers = {{"webhook-id", id},
                     {"webhook-timestamp", std::to_string(timestamp)},
                     {"webhook-signature", signature.value()},
                     {"Content-Type", "application/json"},
                     {"User-Agent", "licensed-webhooks"}};
  request.body = a.event.body;
  request.limits = limits;
  // Answers beyond the size limit are not read, and only the status counts: a 2xx with a
  // long body still delivers (docs/protocol.md §25.3).
  request.limits.cut_long_answers = true;
  auto answer = client.send(request);
  if (!answer.ok()) return AttemptResult{std::nullopt, answer.error().message, std::nullopt};
  AttemptResult out{answer->status, std::nullopt, std::nullopt};
  if (auto after = answer->header("retry-after"))
    out.retry_after_seconds = parse_retry_after(*after);
  return out;
}

// The delivery after the attempt: delivered, due again, or failed.
WebhookDelivery after_attempt(WebhookDelivery d, const AttemptResult& r, UnixMillis now,
                              WebhookCounters& counters) {
  d.attempts += 1;
  d.last_status = r.status;
  d.last_error = r.error;
  if (r.delivered()) {
    d.delivered_at = now;
    d.next_attempt_at.reset();
    d.failed = false;
    ++counters.delivered;
    return d;
  }
  d.next_attempt_at = next_webhook_attempt(d.attempts, now, jitter(), r.retry_after_seconds);
  d.failed = !d.next_attempt_at.has_value();
  ++(d.failed ? counters.failed : counters.retried);
  return d;
}

// The endpoint's health after the attempt: a success clears failing_since; a 410 disables
// it at once; failures alone for 5 days disable it. True when it changed.
bool update_health(WebhookEndpoint& w, const AttemptResult& r, UnixMillis now) {
  if (r.delivered()) {
    if (!w.failing_since) return false;
    w.failing_since.reset();
    return true;
  }
  if (!w.failing_since) w.failing_since = now;
  if (r.gone()) {
    w.enabled = false;
    w.disabled_reason = "410";
  } else if (now - *w.failing_since >= kWebhookFailingDisablesAfterMs) {
    w.enabled = false;
    w.disabled_reason = "failing";
  }
  return true;
}

Status record_outcome(StoreTx& tx, const WebhookDelivery& d, const AttemptResult& r, UnixMillis now,
                      WebhookCounters& counters) {
  RETURN_IF_ERROR(tx.record_webhook_attempt(d));
  ASSIGN_OR_RETURN(auto endpoint, tx.find_webhook_endpoint(d.endpoint_id, now));
  if (!endpoint) return Ok{};  // deleted meanwhile
  const bool was_enabled = endpoint->enabled;
  if (!update_health(*endpoint, r, now)) return Ok{};
  if (was_enabled && !endpoint->enabled) {
    ++counters.disabled;
    spdlog::warn("webhook endpoint {} ({}) disabled: {}", endpoint->id, url_origin(endpoint->url),
                 *endpoint->disabled_reason == "410" ? "it answered 410 Gone"
                                                     : "its deliveries failed for 5 days");
  }
  return tx.update_webhook_endpoint(*endpoint);
}

}  // namespace

Result<std::vector<WebhookAttempt>> claim_webhook_attempts(Store& store, UnixMillis now,
                                                           int64_t limit) {
  return run_blocking(
      store, TxKind::kWrite, [&](StoreTx& tx) -> Result<std::vector<WebhookAttempt>> {
        ASSIGN_OR_RETURN(auto claimed,
                         tx.claim_webhook_deliveries(now, now + kWebhookClaimMs, limit));
        std::vector<WebhookAttempt> out;
        for (auto& d : claimed) {
          ASSIGN_OR_RETURN(auto event, tx.find_webhook_event(d.event_id));
          ASSIGN_OR_RETURN(auto endpoint, tx.find_webhook_endpoint(d.endpoint_id, now));
          if (!event || !endpoint) continue;
          out.push_back(WebhookAttempt{std::move(d), std::move(*event), std::move(*endpoint)});
        }
        return out;
      });
}

void attempt_webhook(Store& store, const Clock& clock, const OutgoingClient& client,
                     const OutgoingLimits& limits, const WebhookAttempt& attempt,
                     WebhookCounters& counters) {
  const AttemptResult r = send_attempt(client, limits, attempt, clock.now_ms());
  const UnixMillis now = clock.now_ms();
  const WebhookDelivery d = after_attempt(attempt.delivery, r, now, counters);
  const auto recorded = run_blocking(
      store, TxKind::kWrite, [&](StoreTx& tx) { return record_outcome(tx, d, r, now, counters); });
  if (!recorded.ok()) {
    // The claim lapses and the attempt is made again: at least once.
    spdlog::warn("webhook event {}: the attempt's outcome was not recorded: {}", d.event_id,
                 recorded.error().message);
  }
}

WebhookDispatcher::WebhookDispatcher(Store& store, const Clock& clock, OutgoingPolicy policy,
                                     WebhookDispatchOptions options)
    : store_(store), clock_(clock), client_(std::move(policy)), options_(options) {
  {
    MutexLock lock(mu_);
    idle_ = options_.workers;
  }
  for (size_t i = 0; i < options_.workers; ++i) threads_.emplace_back([this] { work(); });
  threads_.emplace_back([this] { loop(); });
}

WebhookDispatcher::~WebhookDispatcher() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void WebhookDispatcher::loop() {
  MutexLock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    claim_round();
    lock.lock();
    const auto next = std::chrono::steady_clock::now() + options_.poll;
    while (!stopping_) {
      if (lock.wait_until(wake_, next) == std::cv_status::timeout) break;
    }
  }
}

void WebhookDispatcher::read_outbox_stats() {
  auto stats =
      run_blocking(store_, TxKind::kRead, [](StoreTx& tx) { return tx.webhook_outbox_stats(); });
  if (!stats.ok()) return;
  counters_.pending = stats->pending;
  counters_.oldest_pending_at = stats->oldest_pending_at.value_or(0);
}

void WebhookDispatcher::claim_round() {
  constexpr int64_t kStatsEveryRounds = 5;
  if (rounds_++ % kStatsEveryRounds == 0) read_outbox_stats();
  size_t idle = 0;
  {
    MutexLock lock(mu_);
    idle = idle_ > queue_.size() ? idle_ - queue_.size() : 0;
  }
  if (idle == 0) return;
  auto claimed = claim_webhook_attempts(store_, clock_.now_ms(), static_cast<int64_t>(idle));
  if (!claimed.ok()) {
    spdlog::warn("webhook deliveries not claimed: {}", claimed.error().message);
    return;
  }
  if (claimed->empty()) return;
  {
    MutexLock lock(mu_);
    for (auto& a : claimed.value()) queue_.push_back(std::move(a));
  }
  wake_.notify_all();
}

void WebhookDispatcher::work() {
  MutexLock lock(mu_);
  for (;;) {
    while (!stopping_ && queue_.empty()) lock.wait(wake_);
    // Stopping: what is queued is left to its claim, which lapses; another run attempts it.
    if (stopping_) return;
    WebhookAttempt a = std::move(queue_.front());
    queue_.pop_front();
    --idle_;
    lock.unlock();
    attempt_webhook(store_, clock_, client_, options_.limits, a, counters_);
    lock.lock();
    ++idle_;
  }
}

}  // namespace licensed
