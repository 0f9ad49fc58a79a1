#include "backoff.h"

#include <algorithm>

namespace licensed::client {

std::chrono::milliseconds backoff_delay(const BackoffPolicy& policy, int retry, double unit) {
  const int shift = std::clamp(retry, 0, 20);
  const int64_t ceiling =
      std::min<int64_t>(policy.cap.count(), policy.base.count() * (int64_t{1} << shift));
  const double u = std::clamp(unit, 0.0, 1.0);
  return std::chrono::milliseconds(ceiling / 2 + static_cast<int64_t>(u * (ceiling - ceiling / 2)));
}

}  // namespace licensed::client
