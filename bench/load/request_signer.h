// The four X-License-* headers of one request (docs/protocol.md §3), made with the server's
// own signing code: canonical_string() and a pre-keyed HmacSha256, exactly what
// sign_request() computes without re-keying the HMAC for every request (the load
// generator shares the machine's CPUs with the server it measures).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "auth/request_signature.h"

namespace licensed::bench {

struct SignedHeaders {
  std::string key_id;
  std::string timestamp;  // Unix seconds, decimal
  std::string nonce;      // 128 fresh random bits, 32 lowercase hex digits
  std::string signature;  // "v1=" + 64 lowercase hex digits
};

// One per thread: the HMAC context is not thread-safe.
class RequestSigner {
 public:
  RequestSigner(std::string key_id, std::string_view secret);

  // Signs `method` `api_path` (from /api/ on) with a body whose SHA-256 is given, at
  // `unix_seconds`, with a fresh nonce. Returns false when OpenSSL fails (no random
  // bytes or no HMAC), which the caller reports and stops on.
  bool sign(std::string_view method, std::string_view api_path, std::string_view body_sha256_hex,
            int64_t unix_seconds, SignedHeaders& out);

 private:
  bool next_nonce(std::string& out);

  std::string key_id_;
  std::unique_ptr<HmacSha256> mac_;
  // CSPRNG bytes drawn a page at a time: RAND_bytes() per request cost as much as the
  // HMAC (OpenSSL checks for a fork with a getpid() system call on every call).
  std::array<uint8_t, 4096> random_{};
  size_t random_used_ = 4096;
  int64_t cached_second_ = -1;  // the timestamp text changes once a second
  std::string cached_timestamp_;
};

// The current Unix time in whole seconds, rounded down, as the server reads it.
int64_t unix_seconds_now();

}  // namespace licensed::bench
