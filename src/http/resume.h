// Where a parked request resumes: on its connection's network thread. A check that had
// to ask Redis is answered on a Redis worker (redis/redis_workers.h); what the request
// does next (the next check, reading its headers, answering) goes back to the thread its
// connection lives on, as Envoy's rate-limit filter resumes a request on its own worker.
// A check answered from memory is answered on that thread already: it goes on at once,
// with no hop.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <utility>

#include "core/completion.h"

namespace licensed {

// A connection's network thread, as an executor. Empty outside a server (unit tests,
// exchange_bytes): a request then goes on wherever its checks are answered.
using ConnectionExecutor = boost::asio::any_io_executor;

// `next`, resumed on `home`: called at once when called on `home`'s thread (or when
// `home` is empty), else posted there.
template <class T, class Next>
Completion<T> resume_on(const ConnectionExecutor& home, Next next) {
  return [home, next = std::move(next)](T value) mutable {
    if (!home) return next(std::move(value));
    boost::asio::dispatch(home, [next = std::move(next), value = std::move(value)]() mutable {
      next(std::move(value));
    });
  };
}

}  // namespace licensed
