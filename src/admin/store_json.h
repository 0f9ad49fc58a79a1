// Reading the JSON of store deliveries and of a store's options, shared by the payload
// readers of every provider but Stripe (admin/<provider>_event.*). Each refusal is
// kInvalidArgument naming the member ("data.items[].quantity"), so a delivery the
// provider never sends is answered as a failed check and nothing is guessed.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admin/store_fulfilment.h"
#include "core/clock.h"
#include "core/result.h"
#include "store/storefront.h"

namespace licensed {

Error store_payload_error(std::string_view member, std::string message);

Result<boost::json::value> parse_store_json(std::string_view body, std::string_view member);
Result<const boost::json::object*> object_member(const boost::json::object& o, std::string_view key,
                                                 std::string_view member);
// An object or null (nullptr) or absent (nullptr).
Result<const boost::json::object*> optional_object_member(const boost::json::object& o,
                                                          std::string_view key,
                                                          std::string_view member);
Result<std::string> string_member(const boost::json::object& o, std::string_view key,
                                  std::string_view member);
// Whether the string member `key` is `expected` (kInvalidArgument naming `path` when it is
// missing or not a string). Also spares callers a string moved out of a Result just to
// compare it, which GCC 12 at -O2 (the tsan preset) reads as maybe-uninitialized.
Result<bool> string_member_is(const boost::json::object& o, std::string_view key,
                              std::string_view path, std::string_view expected);
Result<std::optional<std::string>> optional_string_member(const boost::json::object& o,
                                                          std::string_view key,
                                                          std::string_view member);
// A non-empty string, or an integer written in decimal (Lemon Squeezy's and Gumroad's ids
// are numbers in some objects and strings in others).
Result<std::string> id_member(const boost::json::object& o, std::string_view key,
                              std::string_view member);
Result<bool> bool_member(const boost::json::object& o, std::string_view key,
                         std::string_view member);
// A JSON integer, or a double with no fraction (some providers write amounts as 100.0).
Result<int64_t> integer_member(const boost::json::object& o, std::string_view key,
                               std::string_view member);
// A JSON number of either kind, as a double: amounts only, compared with each other.
Result<double> number_member(const boost::json::object& o, std::string_view key,
                             std::string_view member);
// A quantity from 1 to kMaxUnitsPerLine: an integer, or a decimal string of one.
Result<int64_t> quantity_member(const boost::json::object& o, std::string_view key,
                                std::string_view member);
// An RFC 3339 timestamp in UTC (Paddle's and Lemon Squeezy's, any number of fraction
// digits), or null / absent.
Result<std::optional<UnixMillis>> optional_time_member(const boost::json::object& o,
                                                       std::string_view key,
                                                       std::string_view member);

// The store's options (a JSON object; anything else reads as no option at all).
boost::json::object store_options(const Storefront& store);
// options.<key> when it is a non-empty string.
std::optional<std::string> store_option(const Storefront& store, std::string_view key);
// options.apiBase without a trailing '/', or `documented` (the provider's own address).
std::string store_api_base(const Storefront& store, std::string_view documented);

}  // namespace licensed
