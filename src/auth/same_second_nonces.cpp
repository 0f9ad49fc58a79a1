#include "auth/same_second_nonces.h"

namespace licensed {

void SameSecondNonces::record(int64_t second, std::string_view key_id, std::string_view nonce,
                              UnixMillis expires_at) {
  MutexLock lock(mu_);
  if (second < second_) return;
  if (second > second_) {
    entries_.clear();  // keeps the capacity: the next second is about as busy
    second_ = second;
  }
  entries_.push_back({std::string(key_id), std::string(nonce), expires_at});
}

std::vector<SameSecondNonces::Entry> SameSecondNonces::take(int64_t second) {
  MutexLock lock(mu_);
  std::vector<Entry> out;
  if (second == second_) out.swap(entries_);
  return out;
}

}  // namespace licensed
