#include "auth/batch_signer.h"

#include <algorithm>
#include <utility>

#include "auth/response_tree.h"

namespace licensed {

BatchSigner::BatchSigner(const ResponseSigner& signer, Options options)
    : signer_(signer), options_(options) {
  if (options_.start) start();
}

BatchSigner::~BatchSigner() {
  stop();
}

void BatchSigner::start() {
  const MutexLock lock(mu_);
  if (running_ || stopping_) return;
  running_ = true;
  thread_ = std::thread([this] { run(); });
}

void BatchSigner::stop() {
  {
    const MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  // Never started: what was queued is signed here, so no answer is left unanswered.
  std::vector<Job> left;
  {
    const MutexLock lock(mu_);
    left.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
    queue_.clear();
  }
  for (Job& job : left) {
    std::vector<Job> one;
    one.push_back(std::move(job));
    sign_group(one);
  }
}

void BatchSigner::sign(ResponseAlgorithm algorithm, std::string signing_string, int64_t t,
                       Done done) {
  Job job{algorithm, std::move(signing_string), t, std::move(done)};
  enum class Route { kQueued, kInline, kAlone } route = Route::kAlone;
  bool was_empty = false;
  {
    const MutexLock lock(mu_);
    if (stopping_) {
      route = Route::kAlone;
    } else if (options_.sign_alone_inline && running_ && queue_.empty() && signing_ == 0) {
      // Nothing waits and nobody signs: sign here, now, without waking the signer thread
      // (one thread hand-off fewer for every answer of an idle server).
      ++signing_;
      route = Route::kInline;
    } else {
      was_empty = queue_.empty();
      queue_.push_back(std::move(job));
      route = Route::kQueued;
    }
  }
  if (route == Route::kQueued) {
    // Only an empty queue can have a sleeping signer: under load, no wake-up per answer.
    if (was_empty) wake_.notify_one();
    return;
  }
  std::vector<Job> alone;
  // Moved from only on the queued path, which has returned above.
  alone.push_back(std::move(job));  // NOLINT(bugprone-use-after-move)
  sign_group(alone);
  if (route == Route::kInline) {
    const MutexLock lock(mu_);
    --signing_;
  }
}

BatchSigner::Stats BatchSigner::stats() const {
  return {signatures_.load(std::memory_order_relaxed), answers_.load(std::memory_order_relaxed),
          largest_batch_.load(std::memory_order_relaxed)};
}

std::vector<BatchSigner::Job> BatchSigner::next_batch(bool signed_before) {
  MutexLock lock(mu_);
  if (signed_before) --signing_;  // the thread's batch before this one is done
  while (queue_.empty() && !stopping_) lock.wait(wake_);
  if (!queue_.empty()) ++signing_;
  const size_t n = std::min(queue_.size(), options_.max_batch);
  std::vector<Job> batch;
  batch.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    batch.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  return batch;
}

void BatchSigner::run() {
  bool signed_before = false;
  for (;;) {
    std::vector<Job> batch = next_batch(signed_before);
    if (batch.empty()) return;  // stopping, and everything queued is signed
    signed_before = true;
    // One tree per algorithm: a batch mixing Ed25519 and ES256 answers is two signatures.
    std::vector<Job> es256;
    const auto first_es256 = std::stable_partition(batch.begin(), batch.end(), [](const Job& j) {
      return j.algorithm == ResponseAlgorithm::kEd25519;
    });
    es256.assign(std::make_move_iterator(first_es256), std::make_move_iterator(batch.end()));
    batch.erase(first_es256, batch.end());
    if (!batch.empty()) sign_group(batch);
    if (!es256.empty()) sign_group(es256);
  }
}

void BatchSigner::record(size_t answers) {
  signatures_.fetch_add(1, std::memory_order_relaxed);
  answers_.fetch_add(answers, std::memory_order_relaxed);
  uint64_t largest = largest_batch_.load(std::memory_order_relaxed);
  while (answers > largest &&
         !largest_batch_.compare_exchange_weak(largest, answers, std::memory_order_relaxed)) {
  }
}

void BatchSigner::sign_group(std::vector<Job>& jobs) {
  const ResponseAlgorithm algorithm = jobs.front().algorithm;
  const ResponseKey* key = signer_.signing_key(algorithm);
  if (jobs.size() == 1) {
    // Alone: the plain form, as an unbatched server signs (§13).
    Job& job = jobs.front();
    const auto signature = signer_.sign_message(algorithm, job.signing_string);
    if (signature) record(1);
    job.done(signature ? std::optional(
                             format_response_signature(key->kid(), job.t, *signature, algorithm))
                       : std::nullopt);
    return;
  }
  std::vector<TreeHash> leaves;
  leaves.reserve(jobs.size());
  for (const Job& job : jobs) leaves.push_back(tree_leaf_hash(job.signing_string));
  auto tree = build_tree(leaves);
  const auto signature =
      tree ? signer_.sign_message(algorithm, tree_signing_string(jobs.size(), tree->root))
           : std::nullopt;
  if (!signature) {
    for (Job& job : jobs) job.done(std::nullopt);
    return;
  }
  record(jobs.size());
  const auto size = static_cast<uint32_t>(jobs.size());
  for (uint32_t i = 0; i < size; ++i) {
    TreePosition position{i, size, std::move(tree->paths[i])};
    jobs[i].done(format_response_signature(key->kid(), jobs[i].t, *signature, algorithm, position));
  }
}

}  // namespace licensed
