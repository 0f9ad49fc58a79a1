// What an operation that may finish on another thread calls with its result: the rest
// of the work, as a function, called exactly once. An implementation that has the
// answer at hand (in memory) calls it before returning, so the caller goes on with no
// hop between threads; one that waits on I/O (Redis) calls it later, from the thread
// the answer came to, and the caller decides where to resume (http/resume.h).
#pragma once

#include <functional>

namespace licensed {

template <class T>
using Completion = std::function<void(T)>;

}  // namespace licensed
