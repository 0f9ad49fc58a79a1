// application/x-www-form-urlencoded bodies, as the FastSpring remote license generator
// and Gumroad's pings post them (docs/protocol.md §22.3, §22.6): `name=value` pairs joined by '&',
// '+' for a space and %XX for any byte. Strict, because the generator's hash covers the decoded
// values: a malformed escape is refused rather than guessed at.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace licensed {

// More parameters than this are refused: no provider posts more than a few dozen.
inline constexpr size_t kMaxFormParameters = 256;

using FormParameters = std::vector<std::pair<std::string, std::string>>;

// The decoded parameters in the order sent (a name may repeat; callers decide), or
// nullopt for a malformed body: a '%' not followed by two hex digits, an empty name, or
// more than kMaxFormParameters. An empty body has no parameters. A pair without '=' is a
// name with an empty value, as browsers send it.
std::optional<FormParameters> parse_form_body(std::string_view body);

// The value of the only parameter named `name`, or nullopt when there is none or several.
std::optional<std::string> form_value(const FormParameters& params, std::string_view name);

// %-encodes everything but unreserved characters (RFC 3986 §2.3), for a query value.
std::string percent_encode(std::string_view value);

// An id from a delivery as one path segment of a provider API look-up: %-encoded, and
// nullopt for what no provider's id is but could move the path (empty, "." or "..",
// which an HTTP client resolves as dot segments) or is absurdly long (over 256 bytes).
std::optional<std::string> path_segment(std::string_view id);

}  // namespace licensed
