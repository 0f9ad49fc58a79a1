#include "load/request_signer.h"

#include <openssl/rand.h>

#include <chrono>

namespace licensed::bench {

RequestSigner::RequestSigner(std::string key_id, std::string_view secret)
    : key_id_(std::move(key_id)), mac_(std::make_unique<HmacSha256>(secret)) {}

bool RequestSigner::sign(std::string_view method, std::string_view api_path,
                         std::string_view body_sha256_hex, int64_t unix_seconds,
                         SignedHeaders& out) {
  if (unix_seconds != cached_second_) {
    cached_second_ = unix_seconds;
    cached_timestamp_ = std::to_string(unix_seconds);
  }
  out.key_id = key_id_;
  out.timestamp = cached_timestamp_;
  if (!next_nonce(out.nonce)) return false;
  const std::string canonical =
      canonical_string({method, api_path, out.key_id, out.timestamp, out.nonce, body_sha256_hex});
  Sha256Digest mac{};
  if (!mac_->compute(canonical, mac)) return false;
  out.signature = "v1=" + to_hex(mac);
  return true;
}

bool RequestSigner::next_nonce(std::string& out) {
  constexpr size_t kNonceBytes = 16;
  if (random_used_ + kNonceBytes > random_.size()) {
    if (RAND_bytes(random_.data(), static_cast<int>(random_.size())) != 1) return false;
    random_used_ = 0;
  }
  out = to_hex(random_.data() + random_used_, kNonceBytes);
  random_used_ += kNonceBytes;
  return true;
}

int64_t unix_seconds_now() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::floor<std::chrono::seconds>(now).count();
}

}  // namespace licensed::bench
