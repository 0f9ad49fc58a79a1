// Delivers the webhook outbox (docs/protocol.md §25) apart from the request threads: a loop thread
// claims due deliveries (at most as many as it has idle workers) every poll interval, and
// workers make each attempt through the outgoing client (its SSRF checks, no redirects, a
// 15 s budget, 64 KiB of answer) and record its outcome. A slow or dead receiver holds a
// worker, never a request. Each attempt is claimed by one instance (Store contract:
// claim_webhook_deliveries); one that dies mid-attempt leaves the claim to lapse, and the
// attempt is made again: delivery is at least once.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/mutex.h"
#include "outgoing/outgoing_client.h"
#include "store/store.h"

namespace licensed {

// Outcomes of attempts since start, for /metrics.
struct WebhookCounters {
  std::atomic<int64_t> delivered{0};
  std::atomic<int64_t> retried{0};   // failed, another attempt scheduled
  std::atomic<int64_t> failed{0};    // failed, the schedule ran out
  std::atomic<int64_t> disabled{0};  // endpoints disabled (410, or 5 days of failures)
  // The outbox as last read (every few polls): deliveries pending, and the time of the
  // oldest pending one's event (0: none).
  std::atomic<int64_t> pending{0};
  std::atomic<int64_t> oldest_pending_at{0};
};

// An endpoint whose deliveries have all failed this long is disabled (docs/protocol.md §25).
inline constexpr int64_t kWebhookFailingDisablesAfterMs = 5LL * 86'400'000;
// A claim outlives the attempt's 15 s budget and the recording of its outcome.
inline constexpr int64_t kWebhookClaimMs = 60'000;

struct WebhookDispatchOptions {
  std::chrono::milliseconds poll{1000};  // first attempt within 5 s of any commit
  size_t workers = 4;
  OutgoingLimits limits{std::chrono::milliseconds(5000), std::chrono::milliseconds(15000),
                        64 * 1024};
};

// One claimed attempt, ready to send.
struct WebhookAttempt {
  WebhookDelivery delivery;
  WebhookEventRecord event;
  WebhookEndpoint endpoint;
};

// The pieces, for tests that drive them on an injected clock without threads.
Result<std::vector<WebhookAttempt>> claim_webhook_attempts(Store& store, UnixMillis now,
                                                           int64_t limit);
// Sends one attempt, records its outcome and the endpoint's health at `clock`'s time.
void attempt_webhook(Store& store, const Clock& clock, const OutgoingClient& client,
                     const OutgoingLimits& limits, const WebhookAttempt& attempt,
                     WebhookCounters& counters);

class WebhookDispatcher {
 public:
  // Starts the loop and the workers.
  WebhookDispatcher(Store& store, const Clock& clock, OutgoingPolicy policy,
                    WebhookDispatchOptions options = {});
  // Stops them; attempts under way finish first (each within its budget).
  ~WebhookDispatcher();
  WebhookDispatcher(const WebhookDispatcher&) = delete;
  WebhookDispatcher& operator=(const WebhookDispatcher&) = delete;

  const WebhookCounters& counters() const { return counters_; }

 private:
  void loop();
  void work();
  void claim_round();
  void read_outbox_stats();

  Store& store_;
  const Clock& clock_;
  const OutgoingClient client_;
  const WebhookDispatchOptions options_;
  WebhookCounters counters_;
  Mutex mu_;
  std::condition_variable wake_;
  bool stopping_ GUARDED_BY(mu_) = false;
  size_t idle_ GUARDED_BY(mu_) = 0;
  int64_t rounds_ = 0;  // the loop thread's alone
  std::deque<WebhookAttempt> queue_ GUARDED_BY(mu_);
  std::vector<std::thread> threads_;  // last: started once the members above exist
};

}  // namespace licensed
