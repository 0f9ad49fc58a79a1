// A Sentry DSN, `{PROTOCOL}://{PUBLIC_KEY}[:{SECRET_KEY}]@{HOST}[:PORT][/{PATH}]/{PROJECT_ID}`,
// parsed once at start-up. Only plain http is accepted: this build has no TLS client,
// so an https DSN is refused with a hint (send to a Sentry Relay on plain http, which
// forwards upstream over https) rather than sending events in the clear by surprise.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace licensed {

struct SentryDsn {
  std::string public_key;  // the sentry_key: never logged
  std::string host;        // without brackets for an IPv6 literal
  uint16_t port = 80;
  std::string path;  // prefix before the project id, "" or like "/sentry"
  std::string project_id;

  // "/api/{PROJECT_ID}/envelope/" under the path prefix.
  std::string envelope_target() const;
  // The DSN again, without any secret key part: the envelope's `dsn` header.
  std::string to_string() const;
  // "http://HOST:PORT (project ID)": for logs, without the key.
  std::string describe() const;
};

// Errors are kInvalidArgument with a message that never repeats the key.
Result<SentryDsn> parse_sentry_dsn(std::string_view text);

}  // namespace licensed
