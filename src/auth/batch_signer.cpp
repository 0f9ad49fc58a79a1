#include "auth/batch_signer.h"

#include <algorithm>
#include <utility>

#include "auth/response_tree.h"

namespace licensed {

BatchSigner::BatchSigner(const ResponseSigner& signer, Options options)
    : signer_(signer), options_(options) {
  const MutexLock lock(mu_);
  held_ = !options_.start;
}

void BatchSigner::start() {
  std::vector<Answer> batch;
  uint64_t term = 0;
  {
    const MutexLock lock(mu_);
    if (!held_) return;
    held_ = false;
    if (queue_.empty() || leading_) return;
    leading_ = true;
    term = ++term_;
    leader_batches_ = 0;
    batch = take_batch();
  }
  lead(std::move(batch), term);
}

void BatchSigner::sign(ResponseAlgorithm algorithm, std::string signing_string, int64_t t,
                       Done done) {
  std::vector<Answer> one;
  one.push_back(Answer{algorithm, std::move(signing_string), t, std::move(done)});
  sign_all(std::move(one));
}

void BatchSigner::sign_all(std::vector<Answer> answers) {
  if (answers.empty()) return;
  uint64_t term = 0;
  std::vector<Answer> batch = enqueue_or_lead(std::move(answers), term);
  if (!batch.empty()) lead(std::move(batch), term);
}

std::vector<BatchSigner::Answer> BatchSigner::enqueue_or_lead(std::vector<Answer> answers,
                                                              uint64_t& term) {
  const MutexLock lock(mu_);
  const bool take_over =
      leading_ && leader_batches_ >= std::max<size_t>(options_.hand_over_after, 1);
  if (held_ || (leading_ && !take_over)) {
    // Someone signs now: the leader signs these next, with whatever else queues meanwhile.
    for (Answer& a : answers) queue_.push_back(std::move(a));
    return {};
  }
  // Nobody signs (or the leader has signed its share): this caller signs, here and now.
  leading_ = true;
  term = ++term_;
  leader_batches_ = 0;
  if (queue_.empty() && answers.size() <= options_.max_batch) return answers;
  for (Answer& a : answers) queue_.push_back(std::move(a));
  return take_batch();
}

std::vector<BatchSigner::Answer> BatchSigner::take_batch() {
  const size_t n = std::min(queue_.size(), options_.max_batch);
  std::vector<Answer> batch;
  batch.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    batch.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  return batch;
}

void BatchSigner::lead(std::vector<Answer> batch, uint64_t term) {
  for (;;) {
    sign_batch(batch);
    const MutexLock lock(mu_);
    // Taken over: the new leader has the queue (and empties it before it lets go).
    if (term_ != term) return;
    if (queue_.empty()) {
      leading_ = false;
      return;
    }
    ++leader_batches_;
    batch = take_batch();
  }
}

BatchSigner::Stats BatchSigner::stats() const {
  return {signatures_.load(std::memory_order_relaxed), answers_.load(std::memory_order_relaxed),
          largest_batch_.load(std::memory_order_relaxed)};
}

void BatchSigner::sign_batch(std::vector<Answer>& batch) {
  // One tree per algorithm: a batch mixing Ed25519 and ES256 answers is two signatures.
  const auto first_es256 = std::stable_partition(batch.begin(), batch.end(), [](const Answer& a) {
    return a.algorithm == ResponseAlgorithm::kEd25519;
  });
  std::vector<Answer> es256(std::make_move_iterator(first_es256),
                            std::make_move_iterator(batch.end()));
  batch.erase(first_es256, batch.end());
  if (!batch.empty()) sign_group(batch);
  if (!es256.empty()) sign_group(es256);
}

void BatchSigner::record(size_t answers) {
  signatures_.fetch_add(1, std::memory_order_relaxed);
  answers_.fetch_add(answers, std::memory_order_relaxed);
  uint64_t largest = largest_batch_.load(std::memory_order_relaxed);
  while (answers > largest &&
         !largest_batch_.compare_exchange_weak(largest, answers, std::memory_order_relaxed)) {
  }
}

void BatchSigner::sign_group(std::vector<Answer>& answers) {
  const ResponseAlgorithm algorithm = answers.front().algorithm;
  const ResponseKey* key = signer_.signing_key(algorithm);
  if (answers.size() == 1) {
    // Alone: the plain form, as an unbatched server signs (§13).
    Answer& answer = answers.front();
    const auto signature = signer_.sign_message(algorithm, answer.signing_string);
    if (signature) record(1);
    answer.done(signature ? std::optional(format_response_signature(key->kid(), answer.t,
                                                                    *signature, algorithm))
                          : std::nullopt);
    return;
  }
  std::vector<TreeHash> leaves;
  leaves.reserve(answers.size());
  for (const Answer& answer : answers) leaves.push_back(tree_leaf_hash(answer.signing_string));
  auto tree = build_tree(leaves);
  const auto signature =
      tree ? signer_.sign_message(algorithm, tree_signing_string(answers.size(), tree->root))
           : std::nullopt;
  if (!signature) {
    for (Answer& answer : answers) answer.done(std::nullopt);
    return;
  }
  record(answers.size());
  const auto size = static_cast<uint32_t>(answers.size());
  for (uint32_t i = 0; i < size; ++i) {
    TreePosition position{i, size, std::move(tree->paths[i])};
    answers[i].done(
        format_response_signature(key->kid(), answers[i].t, *signature, algorithm, position));
  }
}

}  // namespace licensed
