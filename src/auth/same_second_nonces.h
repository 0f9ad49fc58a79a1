// Nonces consumed by requests dated in the server's current second, for a graceful stop
// to keep in the store. With the in-memory nonce store, a restart refuses requests dated
// in or before the second it began in (the restart rule, counted from the next second:
// see main.cpp) and finds the nonces of requests dated ahead of the clock in the store.
// That covers every request the previous process accepted while the clock moves
// forward; these kept nonces also cover a clock stepped back between a graceful stop and
// the next start. Loaded at the next start like the others. Bounded by one second of
// requests. Thread-safe: every network thread records into one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/mutex.h"

namespace licensed {

class SameSecondNonces {
 public:
  struct Entry {
    std::string key_id;
    std::string nonce;
    UnixMillis expires_at = 0;
  };

  // A nonce consumed by a request dated `second`, the server's current second. Those of
  // an earlier second are dropped: the restart rule covers them.
  void record(int64_t second, std::string_view key_id, std::string_view nonce,
              UnixMillis expires_at) EXCLUDES(mu_);
  // The nonces recorded for `second` (the current one at the stop); none for any other.
  std::vector<Entry> take(int64_t second) EXCLUDES(mu_);

 private:
  Mutex mu_;
  int64_t second_ GUARDED_BY(mu_) = 0;
  std::vector<Entry> entries_ GUARDED_BY(mu_);
};

}  // namespace licensed
