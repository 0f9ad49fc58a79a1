// Batched answer signatures (docs/protocol.md §13.3): answers waiting for a signature are
// signed together, one signature over the Merkle tree of their signing strings, each
// answer carrying its index and audit path. One signature costs more CPU than the rest of
// an answer, so under load this turns one signature per answer into one per batch.
//
// Nothing ever waits to fill a batch: the signer thread takes whatever is queued when it
// is free (at most `max_batch`) as one batch, so an idle server signs a lone answer at
// once, alone, in the plain form; answers queue only while it signs the batch before
// them. (Options::sign_alone_inline signs a lone answer on its caller's thread instead.) A batch is
// split by algorithm (an Ed25519 tree and an ES256 tree, §13.4), each signed by the
// ResponseSigner's key of that algorithm.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "auth/response_signer.h"
#include "core/mutex.h"
#include "core/thread_annotations.h"

namespace licensed {

class BatchSigner {
 public:
  // Called once with the X-License-Response-Signature value, or nullopt when signing
  // failed (no key of that algorithm, or OpenSSL failed): on the signer's thread, or on
  // the caller's once the signer has stopped.
  using Done = std::function<void(std::optional<std::string>)>;

  struct Options {
    size_t max_batch = 4096;  // the contract's bound on n (§13.3)
    // False: nothing is signed until start() (tests queue a batch first).
    bool start = true;
    // True: an answer that finds nothing queued and no signature under way is signed at
    // once on its caller's thread (no hand-off). Off in the server: answers of the one
    // store writer thread would then always find the signer idle and be signed one by one
    // on that thread (measured: heartbeat never batched, docs/benchmarks.md); handed to
    // the signer thread they batch, and the writer goes on to its next job.
    bool sign_alone_inline = false;
  };

  // `signer` must outlive this object.
  BatchSigner(const ResponseSigner& signer, Options options);
  explicit BatchSigner(const ResponseSigner& signer) : BatchSigner(signer, Options{}) {}
  ~BatchSigner();
  BatchSigner(const BatchSigner&) = delete;
  BatchSigner& operator=(const BatchSigner&) = delete;

  void start();
  // Signs what is queued, then stops the thread; later answers are signed alone on their
  // caller's thread. Idempotent.
  void stop();

  // Queues the answer whose section 13 signing string is `signing_string`, signed at `t`,
  // for a signature in `algorithm`.
  void sign(ResponseAlgorithm algorithm, std::string signing_string, int64_t t, Done done);

  // What it has done so far: for the arithmetic of docs/benchmarks.md and the metrics.
  struct Stats {
    uint64_t signatures = 0;     // signatures made (one per batch and algorithm)
    uint64_t answers = 0;        // answers signed
    uint64_t largest_batch = 0;  // the most answers one signature covered
  };
  Stats stats() const;

 private:
  struct Job {
    ResponseAlgorithm algorithm = ResponseAlgorithm::kEd25519;
    std::string signing_string;
    int64_t t = 0;
    Done done;
  };

  void run();
  // Takes up to max_batch jobs off the queue (counting them as being signed, and the
  // thread's previous batch, when `signed_before`, as done); empty once stopping with
  // nothing queued.
  std::vector<Job> next_batch(bool signed_before);
  // Signs `jobs` (one algorithm) as one signature and hands each its header.
  void sign_group(std::vector<Job>& jobs);
  void record(size_t answers);

  const ResponseSigner& signer_;
  const Options options_;
  Mutex mu_;
  std::condition_variable wake_;
  std::deque<Job> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  bool running_ GUARDED_BY(mu_) = false;
  // Signatures being made now (the thread's batch, an answer signed on its caller's
  // thread): a caller signs inline only when there are none and nothing is queued.
  int signing_ GUARDED_BY(mu_) = 0;
  std::atomic<uint64_t> signatures_{0};
  std::atomic<uint64_t> answers_{0};
  std::atomic<uint64_t> largest_batch_{0};
  std::thread thread_;
};

}  // namespace licensed
