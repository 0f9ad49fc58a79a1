// Small helpers over Boost.JSON for reading answers. Paths are dotted member names
// ("machine.lastSeenAt"); lookups that fail throw std::runtime_error, which GoogleTest
// reports as a failure of the test that asked.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>

namespace bb {

namespace json = boost::json;

// Parses one JSON document; throws std::runtime_error quoting the text when it is not.
json::value ParseJson(std::string_view text);
std::string Dump(const json::value& v);

// nullptr when a member on the path is missing or a non-object is traversed.
const json::value* Find(const json::value& v, std::string_view path);
// Find points into its argument: a temporary would leave the pointer dangling.
const json::value* Find(json::value&& v, std::string_view path) = delete;
const json::value& At(const json::value& v, std::string_view path);
bool Has(const json::value& v, std::string_view path);
bool IsNull(const json::value& v, std::string_view path);  // present and null
std::string Str(const json::value& v, std::string_view path);
std::int64_t Int(const json::value& v, std::string_view path);
bool Bool(const json::value& v, std::string_view path);
const json::array& Arr(const json::value& v, std::string_view path);

// Members of `v` (an object) except `drop`, serialized, for whole-body comparisons.
std::string DumpWithout(const json::value& v, std::initializer_list<std::string_view> drop);

// True when `text` has the shape of `pattern`, character by character: '9' stands for a
// decimal digit, 'x' for a lowercase hex digit, anything else for itself.
bool MatchesShape(std::string_view text, std::string_view pattern);
// True for RFC 3339 UTC with millisecond precision and a Z: 2026-11-21T09:30:00.000Z.
bool IsTimestamp(std::string_view text);
// True for a lowercase UUID v4 (version nibble 4, variant 8, 9, a or b).
bool IsLowercaseUuidV4(std::string_view text);

// A 1705's dashboardUrl: the `configured` URL with a one-time sign-in link as its
// fragment, "#signin=" and 43 characters of base64url (docs/dashboard.md). Fails the test
// otherwise.
void ExpectSignInLink(std::string_view dashboard_url, std::string_view configured);

}  // namespace bb
