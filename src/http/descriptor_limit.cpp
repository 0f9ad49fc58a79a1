#include "http/descriptor_limit.h"

#include <sys/resource.h>

#include <algorithm>

namespace licensed {

std::optional<uint64_t> raise_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return std::nullopt;
  // Linux never allows an unlimited RLIMIT_NOFILE (fs.nr_open bounds it), but other
  // kernels may say so: nothing to raise, nothing to clamp.
  if (limit.rlim_max == RLIM_INFINITY) return std::nullopt;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  if (limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<uint64_t>(limit.rlim_cur);
}

size_t descriptors_kept_aside(size_t network_threads, size_t store_pool_size) {
  // What a start with the defaults holds on SQLite (about 30) with room to spare, plus
  // the admin listener's cap and its listening socket.
  constexpr size_t kBase = 128 + 65;
  // The reactor's three descriptors, its two Redis workers' connections, and a store
  // thread's.
  constexpr size_t kPerThread = 8;
  constexpr size_t kDefaultStorePool = 8;
  return kBase + kPerThread * network_threads + std::max(store_pool_size, kDefaultStorePool);
}

size_t connections_within(uint64_t descriptors, size_t kept_aside, size_t wanted) {
  const uint64_t kept = std::min<uint64_t>(kept_aside, descriptors / 2);
  const uint64_t room = std::max<uint64_t>(descriptors - kept, 1);
  return static_cast<size_t>(std::min<uint64_t>(room, wanted));
}

}  // namespace licensed
