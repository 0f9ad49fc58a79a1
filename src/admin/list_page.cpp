#include "admin/list_page.h"

#include "auth/base64.h"
#include "core/text.h"

namespace licensed {
namespace {

Error foreign_cursor() {
  return Error::invalid_argument("cursor", "cursor is not one this server gave out");
}

}  // namespace

Result<PageRequest> parse_page(std::optional<std::string_view> limit,
                               std::optional<std::string_view> cursor, const PageLimits& limits) {
  PageRequest page{limits.default_limit, std::nullopt};
  if (limit) {
    const auto n = parse_whole_number<int64_t>(*limit);
    if (!n || *n < 1 || *n > limits.max_limit) {
      return Error::invalid_argument(
          "limit", "limit is a whole number from 1 to " + std::to_string(limits.max_limit));
    }
    page.limit = *n;
  }
  if (cursor) {
    const auto bytes = base64url_decode(*cursor);
    if (!bytes || bytes->empty() || bytes->size() > 256) return foreign_cursor();
    page.after = std::string(bytes->begin(), bytes->end());
  }
  return page;
}

Result<int64_t> after_id(const PageRequest& page) {
  if (!page.after) return int64_t{0};
  const auto id = parse_whole_number<int64_t>(*page.after);
  if (!id || *id < 1) return foreign_cursor();
  return *id;
}

std::string encode_cursor(std::string_view last) {
  return base64url_encode(reinterpret_cast<const uint8_t*>(last.data()), last.size());
}

}  // namespace licensed
