// Batched answer signatures (docs/protocol.md §13.3): answers waiting for a signature are
// signed together, one signature over the Merkle tree of their signing strings, each
// answer carrying its index and audit path. One signature costs more CPU than the rest of
// an answer, so under load this turns one signature per answer into one per batch.
//
// There is no signer thread (a thread of its own cost every answer one more hand-off,
// docs/architecture.md "Where an answer is signed"). The signer is a role the callers
// take in turn, a leader: a caller that finds nobody signing signs its answer at once, on
// its own thread, alone and in the plain form; answers that arrive while a signature is
// under way are queued, and the leader signs them next, as one batch (at most
// `max_batch`), and so on until the queue is empty. Nothing ever waits to fill a batch.
// So that no one caller's thread signs for everybody under a steady load, a caller that
// arrives once the leader has signed `hand_over_after` batches takes the role (and the
// queue) over. A batch is split by algorithm (an Ed25519 tree and an ES256 tree, §13.4),
// each signed by the ResponseSigner's key of that algorithm.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "auth/response_signer.h"
#include "core/mutex.h"
#include "core/thread_annotations.h"

namespace licensed {

class BatchSigner {
 public:
  // Called once with the X-License-Response-Signature value, or nullopt when signing
  // failed (no key of that algorithm, or the library failed), on the thread that signed it:
  // the caller's own when it found nobody signing, else the leader's.
  using Done = std::function<void(std::optional<std::string>)>;

  // One answer to sign: its section 13 signing string, signed at `t`, in `algorithm`.
  struct Answer {
    ResponseAlgorithm algorithm = ResponseAlgorithm::kEd25519;
    std::string signing_string;
    int64_t t = 0;
    Done done;
  };

  struct Options {
    size_t max_batch = 4096;  // the contract's bound on n (§13.3)
    // False: held, nothing is signed until start() (tests queue a batch first).
    bool start = true;
    // Batches a leader signs before a newcomer takes the role over (at least 1).
    size_t hand_over_after = 1;
  };

  // `signer` must outlive this object.
  BatchSigner(const ResponseSigner& signer, Options options);
  explicit BatchSigner(const ResponseSigner& signer) : BatchSigner(signer, Options{}) {}
  BatchSigner(const BatchSigner&) = delete;
  BatchSigner& operator=(const BatchSigner&) = delete;

  // Ends the hold: what was queued is signed now, on this thread.
  void start();
  // As start(): there is no thread to stop; what a held signer queued is signed here, and
  // later answers are signed as ever. Kept for the server's orderly shutdown.
  void stop() { start(); }

  // Signs the answer whose section 13 signing string is `signing_string`, signed at `t`,
  // in `algorithm`: before returning when nobody else signs, else queued for the leader.
  void sign(ResponseAlgorithm algorithm, std::string signing_string, int64_t t, Done done);
  // Answers made together on one thread (all that reached it while it ran other work):
  // signed as one batch at once when nobody else signs, else queued for the leader.
  void sign_all(std::vector<Answer> answers);

  // What it has done so far: for the arithmetic of docs/benchmarks.md and the metrics.
  struct Stats {
    uint64_t signatures = 0;     // signatures made (one per batch and algorithm)
    uint64_t answers = 0;        // answers signed
    uint64_t largest_batch = 0;  // the most answers one signature covered
  };
  Stats stats() const;

 private:
  // Queues `answers`, and makes the caller the leader (the batch it signs first) when
  // nobody signs or the leader has signed its share; an empty batch when it queued only.
  std::vector<Answer> enqueue_or_lead(std::vector<Answer> answers, uint64_t& term);
  // The leader's loop: signs `batch`, then what queued meanwhile, until the queue is
  // empty or another caller took the role over.
  void lead(std::vector<Answer> batch, uint64_t term);
  std::vector<Answer> take_batch() REQUIRES(mu_);
  // Signs a batch: one tree per algorithm, the plain form for an answer alone.
  void sign_batch(std::vector<Answer>& batch);
  // Signs `answers` (one algorithm) as one signature and hands each its header.
  void sign_group(std::vector<Answer>& answers);
  void record(size_t answers);

  const ResponseSigner& signer_;
  const Options options_;
  Mutex mu_;
  std::deque<Answer> queue_ GUARDED_BY(mu_);
  bool held_ GUARDED_BY(mu_) = false;
  bool leading_ GUARDED_BY(mu_) = false;  // a caller has the role
  uint64_t term_ GUARDED_BY(mu_) = 0;     // which caller: taken over when it changes
  size_t leader_batches_ GUARDED_BY(mu_) = 0;
  std::atomic<uint64_t> signatures_{0};
  std::atomic<uint64_t> answers_{0};
  std::atomic<uint64_t> largest_batch_{0};
};

}  // namespace licensed
