#include "store/store_fault.h"

#include <spdlog/spdlog.h>

namespace licensed {

Error store_fault(LogThrottle& throttle, bool transient, std::string detail) {
  if (const auto left_out = throttle.admit(SystemClock().now_ms())) {
    const auto level = transient ? spdlog::level::warn : spdlog::level::err;
    spdlog::log(level, "store {}{}", detail, left_out_note(*left_out));
  }
  return transient ? Error::unavailable(std::move(detail)) : Error::internal(std::move(detail));
}

}  // namespace licensed
