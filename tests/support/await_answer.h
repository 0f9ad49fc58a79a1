// For tests of the interfaces a network thread calls without waiting (the *_async calls
// of the nonce store, rate limiter and session store): calls one, waits for its answer,
// and says where the answer came from. In memory it comes before the call returns, on
// the caller's thread; from Redis, on one of the client's workers.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

namespace bb {

template <class T>
struct Answer {
  std::optional<T> value;      // nullopt: no answer within the wait
  bool before_return = false;  // given while the call was still running
  bool on_caller = false;      // given on the thread that made the call
};

// Calls `start(done)` and waits for `done`'s value. The wait is a guard against a hang,
// not a measurement.
template <class T, class Start>
Answer<T> AwaitAnswer(Start start, std::chrono::seconds guard = std::chrono::seconds(30)) {
  struct Given {
    T value;
    bool before_return;
    std::thread::id thread;
  };
  // Shared with the completion, which may still come after a wait that gave up.
  struct Waiting {
    std::promise<Given> given;
    std::atomic<bool> returned{false};
  };
  auto waiting = std::make_shared<Waiting>();
  auto future = waiting->given.get_future();
  start(std::function<void(T)>([waiting](T value) {
    waiting->given.set_value(
        {std::move(value), !waiting->returned.load(), std::this_thread::get_id()});
  }));
  waiting->returned = true;
  Answer<T> answer;
  if (future.wait_for(guard) != std::future_status::ready) return answer;
  Given g = future.get();
  answer.value = std::move(g.value);
  answer.before_return = g.before_return;
  answer.on_caller = g.thread == std::this_thread::get_id();
  return answer;
}

// Where the answer came from, as the *_async contract says: from memory before the call
// returned, on the caller's thread (no hop); from Redis on one of the client's workers.
template <class T>
void ExpectAnsweredFrom(const Answer<T>& answer, bool in_memory) {
  EXPECT_TRUE(answer.value.has_value()) << "no answer";
  if (in_memory) {
    EXPECT_TRUE(answer.before_return && answer.on_caller) << "an answer from memory made a hop";
  } else {
    EXPECT_FALSE(answer.on_caller) << "a Redis call ran on the caller's thread";
  }
}

}  // namespace bb
