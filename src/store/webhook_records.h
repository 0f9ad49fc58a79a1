// Webhook endpoints and the outbox of events as the database keeps them (docs/protocol.md §25).
// An event is written by the transaction of the change it reports with one delivery row
// per endpoint that takes it; the dispatcher (src/webhooks/) claims due rows, attempts
// them outside any transaction and records each attempt's outcome on the row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"

namespace licensed {

// A signing secret ("whsec_" + base64 of 32 random bytes). During a rotation the old one
// signs beside the new one until `retires_at`; nullopt: it signs until the next rotation.
// Kept as given (they key the HMAC, so they cannot be hashed), like a store's secrets.
struct WebhookSecret {
  std::string secret;
  UnixMillis created_at = 0;
  std::optional<UnixMillis> retires_at;
};

struct WebhookEndpoint {
  int64_t id = 0;  // assigned by the database
  std::string url;
  std::string description;
  // The types it takes; {"*"}: every type.
  std::vector<std::string> events = {"*"};
  bool enabled = true;
  // Since when every delivery to it has failed (none succeeded since); after 5 days of
  // that it is disabled. nullopt while it delivers.
  std::optional<UnixMillis> failing_since;
  // Why it was disabled by the dispatcher ("410", "failing"); nullopt otherwise.
  std::optional<std::string> disabled_reason;
  UnixMillis created_at = 0;
  // Newest first; only those not retired at the time they are read.
  std::vector<WebhookSecret> secrets;
};

struct WebhookEventRecord {
  int64_t id = 0;
  std::string type;
  UnixMillis at = 0;
  std::string body;  // the exact bytes every attempt signs
};

// One event's delivery to one endpoint.
struct WebhookDelivery {
  int64_t event_id = 0;
  int64_t endpoint_id = 0;
  std::string type;         // the event's, for listings
  UnixMillis event_at = 0;  // the event's timestamp
  int64_t attempts = 0;
  // When the next attempt is due (or, while claimed, when the claim lapses); nullopt once
  // delivered or failed.
  std::optional<UnixMillis> next_attempt_at;
  std::optional<int64_t> last_status;     // the last answer's HTTP status
  std::optional<std::string> last_error;  // or why there was none
  std::optional<UnixMillis> delivered_at;
  bool failed = false;  // the retry schedule ran out
};

// What /metrics shows of the outbox.
struct WebhookOutboxStats {
  int64_t pending = 0;  // deliveries not yet delivered nor failed
  std::optional<UnixMillis> oldest_pending_at;
};

// The `events` column: "*" for every type, else ",type,type," so that one type matches
// with a substring test of ",type," in SQL on both stores.
std::string webhook_events_to_store(const std::vector<std::string>& events);
std::vector<std::string> webhook_events_from_store(const std::string& column);

}  // namespace licensed
