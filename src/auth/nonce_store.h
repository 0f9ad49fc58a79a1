// Replay protection (docs/protocol.md §3.4): a nonce is accepted once per key id. The store
// remembers each (key id, nonce) until the caller-chosen expiry, at least twice the
// timestamp window, after which the timestamp check alone refuses a replay.
//
// Called from many threads at once: one store serves every network thread (and the
// start-up load), so implementations are thread-safe, and two checks of one nonce
// racing each other accept it once.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/clock.h"
#include "core/completion.h"

namespace licensed {

enum class NonceVerdict {
  kFresh,   // first sighting: remembered, the request may proceed
  kReused,  // seen before and not expired: answer 401 1700 nonce_reused
  kFull,    // no room and nothing expired to evict: callers fail closed
  // The shared store (Redis) did not answer: callers fail closed too, since accepting
  // a nonce nobody checked would let a replay through.
  kUnavailable,
  // The store lost what it remembered (a Redis that restarted empty) and the request is
  // dated before it began remembering again, so a replay cannot be told: answer 401
  // 1701, as a restarted in-memory server does (docs/protocol.md §3.4); the client resends
  // with a corrected timestamp.
  kStale,
};

class NonceStore {
 public:
  virtual ~NonceStore() = default;
  // Atomically: if (key_id, nonce) was seen and has not expired -> kReused; else
  // remember it until `expires_at` -> kFresh. kFull when the store is at capacity and
  // nothing expired could be evicted. `dated_seconds` is the request's timestamp, for
  // kStale; 0 (nonces loaded at start-up, not a request's) is never stale. May wait on
  // Redis: network threads call check_and_insert_async.
  NonceVerdict check_and_insert(std::string_view key_id, std::string_view nonce, UnixMillis now,
                                UnixMillis expires_at, int64_t dated_seconds = 0) {
    return check_and_insert_impl(key_id, nonce, now, expires_at, dated_seconds);
  }
  // The same check for a network thread, which must not wait on I/O: `done` gets the
  // verdict, before this returns when the store has it in memory, else later from the
  // thread that asked Redis. The strings need not outlive the call.
  // `done` by value, as the Redis override keeps it past the call.
  // NOLINTBEGIN(performance-unnecessary-value-param)
  virtual void check_and_insert_async(std::string_view key_id, std::string_view nonce,
                                      UnixMillis now, UnixMillis expires_at, int64_t dated_seconds,
                                      Completion<NonceVerdict> done) {
    done(check_and_insert(key_id, nonce, now, expires_at, dated_seconds));
  }
  // NOLINTEND(performance-unnecessary-value-param)

 private:
  virtual NonceVerdict check_and_insert_impl(std::string_view key_id, std::string_view nonce,
                                             UnixMillis now, UnixMillis expires_at,
                                             int64_t dated_seconds) = 0;
};

}  // namespace licensed
