// What may be written to logs and error reports about values that must not be: license
// keys are masked, credentials in URLs are blanked. Signing secrets and the Sentry key
// are never passed here at all: they are simply never logged.
#pragma once

#include <string>
#include <string_view>

namespace licensed {

// A license key as logs show it: the first and last 4 characters of a key of at least
// 16 characters, as in "1b4e...c9a2". For a UUID v4 key that hides 28 of 36 characters
// (about 90 random bits): useless to a reader of the log, yet enough to tell keys
// apart and to confirm which key an operator is looking at. Anything shorter, or with
// characters other than letters, digits and '-', is masked whole as "***", since it is
// not a well-formed key and its parts could be anything.
std::string mask_license_key(std::string_view key);

// A URL with the password of its userinfo and any `password=` query value replaced by
// "***" ("postgresql://app:***@db/licensed"), for store URLs in start-up lines.
std::string redact_url_credentials(std::string_view url);

}  // namespace licensed
