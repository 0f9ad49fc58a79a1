#include "webhooks/retry_schedule.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace licensed {
namespace {

constexpr std::array<int64_t, kWebhookMaxAttempts - 1> kDelaysSeconds = {
    5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600};

}  // namespace

std::optional<UnixMillis> next_webhook_attempt(int64_t attempts, UnixMillis now, double jitter,
                                               std::optional<int64_t> retry_after_seconds) {
  if (attempts < 1 || attempts >= kWebhookMaxAttempts) return std::nullopt;
  const int64_t base_ms = kDelaysSeconds[static_cast<size_t>(attempts - 1)] * 1000;
  const double share = std::clamp(jitter, 0.0, 0.999999) * 0.1;
  int64_t delay_ms = base_ms + static_cast<int64_t>(static_cast<double>(base_ms) * share);
  if (retry_after_seconds) delay_ms = std::max(delay_ms, *retry_after_seconds * 1000);
  return now + delay_ms;
}

std::optional<int64_t> parse_retry_after(std::string_view value) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  int64_t seconds = 0;
  const auto [ptr, err] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (err != std::errc() || ptr != value.data() + value.size() || seconds < 0) return std::nullopt;
  return std::min<int64_t>(seconds, 86'400);
}

}  // namespace licensed
