// Sentry's wire format for one error event (develop.sentry.dev, "Envelopes" and "Event
// Payloads"): plain functions, so the exact bytes are unit-tested without a network.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "observability/error_reporter.h"
#include "observability/sentry_dsn.h"

namespace licensed {

// What the event says about the sender.
struct SentryClientInfo {
  std::string name = "licensed";
  std::string version;      // e.g. "0.1.0"
  std::string server_name;  // the host name
};

// 32 lowercase hex digits of a random UUID v4, as `event_id` requires.
std::string new_sentry_event_id();

// The event payload: event_id, timestamp, platform "native", level "error", logger,
// server_name, release ("licensed@VERSION"), message, transaction (the route), tags
// (request_id, endpoint, route, error_code) and extra (the masked license key).
boost::json::object sentry_event(const ErrorReport& report, std::string_view event_id,
                                 const SentryClientInfo& client);

// The envelope body: the envelope header line (event_id, dsn, sent_at, sdk), the item
// header line (type "event", length in bytes) and the event JSON, each ending in '\n'.
std::string sentry_envelope(const SentryDsn& dsn, std::string_view event_id, UnixMillis sent_at,
                            const SentryClientInfo& client, std::string_view event_json);

// The X-Sentry-Auth header value: "Sentry sentry_version=7, sentry_key=..., sentry_client=
// NAME/VERSION".
std::string sentry_auth_header(const SentryDsn& dsn, const SentryClientInfo& client);

}  // namespace licensed
