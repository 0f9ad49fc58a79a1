// Keyset pages, as the admin API's lists give them (docs/protocol.md §18): a `limit` and an
// opaque `cursor` (the previous page's last key, base64url) in, {"items": [...],
// "nextCursor": "..." | null} out. The customer dashboard pages a license's history the
// same way, with its own, smaller limits.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace licensed {

struct PageLimits {
  int64_t default_limit;
  int64_t max_limit;
};

struct PageRequest {
  int64_t limit = 0;
  std::optional<std::string> after;  // the decoded cursor: the last item of the previous page
};

// The page a client asked for with these query values (nullopt: not given). A limit
// outside 1..max_limit, or a cursor this server cannot have given, is kInvalidArgument
// naming the field (1702 on the admin API and the dashboard).
Result<PageRequest> parse_page(std::optional<std::string_view> limit,
                               std::optional<std::string_view> cursor, const PageLimits& limits);

// A cursor of a list keyed by id: the last id, in decimal; 0 when there is no cursor.
Result<int64_t> after_id(const PageRequest& page);

std::string encode_cursor(std::string_view last);

// `rows` was read with limit + 1: one more than fits says there is a next page, whose
// cursor is the key of the last row shown.
template <class Row, class ToJson, class KeyOf>
boost::json::object page_json(std::vector<Row> rows, int64_t limit, ToJson to_json, KeyOf key_of) {
  boost::json::value next = nullptr;
  if (static_cast<int64_t>(rows.size()) > limit) {
    rows.resize(static_cast<size_t>(limit));
    next = encode_cursor(key_of(rows.back()));
  }
  boost::json::array items;
  for (const Row& row : rows) items.push_back(to_json(row));
  return boost::json::object{{"items", std::move(items)}, {"nextCursor", std::move(next)}};
}

}  // namespace licensed
