#include "auth/request_signature.h"

namespace licensed {

bool try_sha256(std::string_view data, Sha256Digest& out) {
  return crypto::sha256(data, out);
}

Sha256Digest sha256(std::string_view data) {
  Sha256Digest out{};
  crypto::sha256(data, out);
  return out;
}

std::string sha256_hex(std::string_view data) {
  return to_hex(sha256(data));
}

std::string canonical_string(const CanonicalRequest& r) {
  std::string out;
  out.reserve(4 + r.method.size() + r.path.size() + r.key_id.size() + r.timestamp.size() +
              r.nonce.size() + r.body_sha256_hex.size() + 6);
  out.append("v1\n").append(r.method).append("\n").append(r.path).append("\n");
  out.append(r.key_id).append("\n").append(r.timestamp).append("\n").append(r.nonce);
  out.append("\n").append(r.body_sha256_hex);
  return out;
}

std::string sign_request(std::string_view secret, const CanonicalRequest& request) {
  Sha256Digest mac{};
  HmacSha256(secret).compute(canonical_string(request), mac);
  return "v1=" + to_hex(mac);
}

bool digests_equal(const Sha256Digest& a, const Sha256Digest& b) {
  return crypto::equal_in_constant_time(a.data(), b.data(), a.size());
}

}  // namespace licensed
