// A Store runs jobs inside transactions on its own threads, never on a network thread.
// Writes are serialised (one writer: the cap is exact), reads run beside them.
//
// Called from many threads at once: every network thread submits jobs (and so may a
// store thread's `done`), so submit() and queue_depth() are thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "core/request_error.h"
#include "core/status.h"
#include "store/migration.h"
#include "store/store_tx.h"

namespace licensed {

enum class TxKind { kRead, kWrite };

struct StoreJob {
  // Runs inside the transaction. Returning false rolls back what it did. It may run more
  // than once, its work undone in between (the PostgreSQL store runs a job again when it
  // would have waited for a row lock inside a batch): each run sets its outcome afresh.
  std::function<bool(StoreTx&)> run;
  // Called exactly once on a store thread: with nullopt when `run` ran and its work was
  // committed (or deliberately rolled back), with the error (kUnavailable or kInternal)
  // when the transaction could not start or commit, or the job was refused because the
  // queue is full. Must not block.
  std::function<void(const std::optional<Error>& failure)> done;
};

// Error::subject of the 1708 a job gets when the queue is full (`--max-queue`), so that
// an overload is counted apart from a store that fails.
inline constexpr std::string_view kStoreQueueFull = "max_queue";

// Why a store job ended without its work done, for /metrics
// (`licensed_store_errors_total{kind=...}`): a fault that passes (locked, disk full, lost
// connection: 1708), one that needs an operator (corrupt file, bad SQL: 1709), or a job
// refused because the queue was full (1708 at once).
enum class StoreFailureKind { kUnavailable, kInternal, kQueueFull, kCount };
inline constexpr std::array<std::string_view, 3> kStoreFailureKindNames = {
    "unavailable", "internal", "queue_full"};

// What a store's connection pool can tell cheaply and from any thread, for /metrics.
struct StorePoolFigures {
  size_t size = 0;    // connections at most (`--store-pool-size`)
  size_t open = 0;    // connections open now
  size_t in_use = 0;  // of those, running a transaction now
};

class Store {
 public:
  virtual ~Store() = default;
  virtual void submit(TxKind kind, StoreJob job) = 0;
  // Queued and running jobs, for metrics and overload decisions.
  virtual size_t queue_depth() const = 0;
  // Why the store must not be trusted with writes any more (its SQLite file was removed
  // or replaced under it), or nullopt. Writes then answer 1708 and /readyz 503.
  virtual std::optional<std::string> unusable() const { return std::nullopt; }
  // The pool's figures, or nullopt for a store without a pool of connections (SQLite:
  // one writer thread and a fixed number of reader threads, nothing to watch).
  virtual std::optional<StorePoolFigures> pool_figures() const { return std::nullopt; }

  // Jobs that ended in a store failure since the store opened, by kind. Counted by
  // submit_call, where a job's outcome and the store's failure meet, so every store and
  // every caller is covered by the one count.
  uint64_t failures(StoreFailureKind kind) const {
    return failures_[static_cast<size_t>(kind)].load(std::memory_order_relaxed);
  }
  // A job's failure, counted when it is the store's: kUnavailable (kQueueFull when the
  // queue refused it) or kInternal; any other code is the work's own refusal.
  void count_failure(const Error& e) {
    StoreFailureKind kind;
    if (e.code == StatusCode::kInternal) {
      kind = StoreFailureKind::kInternal;
    } else if (e.code != StatusCode::kUnavailable) {
      return;
    } else {
      kind = e.subject == kStoreQueueFull ? StoreFailureKind::kQueueFull
                                          : StoreFailureKind::kUnavailable;
    }
    failures_[static_cast<size_t>(kind)].fetch_add(1, std::memory_order_relaxed);
  }

 private:
  std::array<std::atomic<uint64_t>, static_cast<size_t>(StoreFailureKind::kCount)> failures_{};
};

// The internal failure a job's outcome holds, or null: its Error, or a RequestError's
// (an answer chosen for the client is no failure).
inline const Error* store_failure_of(const Error& e) {
  return &e;
}
inline const Error* store_failure_of(const RequestError& e) {
  return e.failure();
}

struct StoreLimits {
  // Jobs queued or running at most; more answer 1708 at once (`--max-queue`).
  size_t max_queued_jobs = 10000;
  // PostgreSQL connections (`--store-pool-size`); 0: the URL's pool_size, or 8.
  size_t pool_size = 0;
};

// Opens the store a `--store` URL names: `sqlite:PATH` (and `sqlite::memory:`), or
// `postgresql://...` (see src/store/postgres/pg_url.h). A failure's message is for the
// operator: it names the file or server and why it cannot be used, never a password.
// `opening` says whether a store that does not exist is made, and whether pending
// migrations are applied; refusals name the store and `licensed init`.
Result<std::unique_ptr<Store>> open_store(const std::string& url, const StoreLimits& limits = {},
                                          const StoreOpening& opening = {});

// Where the store's schema stands, read without creating or changing anything: a SQLite
// file that does not exist, or a PostgreSQL database without the schema, has `exists`
// false.
Result<SchemaState> read_schema_state(const std::string& url);

// The URL as an operator may see it: a password masked.
std::string store_display_name(const std::string& url);

// The PATH of a `sqlite:PATH` URL (possibly empty); nullopt for any other store.
std::optional<std::string> sqlite_path_of(const std::string& url);

// Runs `work` in one transaction of `kind` on a store thread and hands its outcome to
// `done`, exactly once, on a store thread: what `work` returned, or the store's own
// failure (kUnavailable, kInternal) when the transaction could not start or commit or the
// queue was full. The one place where the work's outcome and the store's failure meet,
// so callers have one completion instead of two callbacks sharing a hand-made struct.
// `commits(outcome)` says whether the work is kept: by default only a success; the
// License API keeps its business refusals (and the nonce they consumed). `E` is the
// work's error type: Error, or one that holds an Error (RequestError).
// (T and E are named by the caller, never deduced from the lambdas passed.)
template <class T, class E = Error>
void submit_call(
    Store& store, TxKind kind, std::type_identity_t<std::function<Result<T, E>(StoreTx&)>> work,
    std::type_identity_t<std::function<void(Result<T, E>)>> done,
    std::type_identity_t<std::function<bool(const Result<T, E>&)>> commits =
        [](const Result<T, E>& r) { return r.ok(); }) {
  auto outcome = std::make_shared<std::optional<Result<T, E>>>();
  store.submit(
      kind,
      StoreJob{[outcome, work = std::move(work), commits = std::move(commits)](StoreTx& tx) {
                 // A job may run again (see StoreJob): each run starts afresh.
                 outcome->emplace(work(tx));
                 return commits(**outcome);
               },
               [&store, outcome, done = std::move(done)](const std::optional<Error>& failure) {
                 if (failure) {
                   store.count_failure(*failure);
                   return done(Result<T, E>(*failure));
                 }
                 if (!outcome->has_value()) {
                   store.count_failure(Error::internal("a job ended unrun"));
                   return done(Result<T, E>(Error::internal("a job ended unrun")));
                 }
                 if (const auto& result = **outcome; !result.ok()) {
                   if (const Error* e = store_failure_of(result.error())) {
                     store.count_failure(*e);
                   }
                 }
                 done(std::move(**outcome));
               }});
}

// Runs one job and waits for it: for the admin CLI and start-up, never the request path.
template <class Fn>
auto run_blocking(Store& store, TxKind kind, Fn&& fn) -> decltype(fn(std::declval<StoreTx&>())) {
  using R = decltype(fn(std::declval<StoreTx&>()));
  using T = typename R::value_type;
  using E = typename R::error_type;
  std::promise<R> promise;
  submit_call<T, E>(
      store, kind, [&fn](StoreTx& tx) { return fn(tx); },
      [&promise](R outcome) { promise.set_value(std::move(outcome)); });
  return promise.get_future().get();
}

}  // namespace licensed
