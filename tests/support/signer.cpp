#include "support/signer.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <chrono>
#include <ctime>
#include <stdexcept>

namespace bb {
namespace {

std::string Hex(const unsigned char* data, std::size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    out.push_back(kDigits[data[i] >> 4]);
    out.push_back(kDigits[data[i] & 0x0f]);
  }
  return out;
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("EVP_Digest failed");
  }
  return Hex(md, len);
}

std::string HmacSha256Hex(std::string_view key, std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), md, &len) == nullptr) {
    throw std::runtime_error("HMAC failed");
  }
  return Hex(md, len);
}

std::string CanonicalString(std::string_view method, std::string_view path, std::string_view key_id,
                            std::string_view timestamp, std::string_view nonce,
                            std::string_view body_sha256_hex) {
  std::string out = "v1\n";
  for (auto part : {method, path, key_id, timestamp, nonce}) {
    out.append(part);
    out.push_back('\n');
  }
  out.append(body_sha256_hex);
  return out;
}

std::string SignCanonical(std::string_view secret, std::string_view canonical) {
  return "v1=" + HmacSha256Hex(secret, canonical);
}

std::string RandomHex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
    throw std::runtime_error("RAND_bytes failed");
  }
  return Hex(reinterpret_cast<const unsigned char*>(raw.data()), raw.size());
}

std::string RandomUuidV4() {
  std::string h = RandomHex(16);
  h[12] = '4';
  h[16] = "89ab"[h[16] % 4];
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) +
         "-" + h.substr(20, 12);
}

// The precise clock, as the server's checks read it: time() reads the kernel's coarse
// clock, which may still show the previous second for a tick after it ended.
std::int64_t UnixNow() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

HttpRequest SignedRequest(const SigningKey& key, std::string target, std::string body,
                          const SignOptions& options) {
  const std::string timestamp = std::to_string(options.timestamp.value_or(UnixNow()));
  const std::string nonce = options.nonce.value_or(RandomNonce());
  const std::string path = options.signed_path.value_or(target.substr(0, target.find('?')));
  const std::string canonical = CanonicalString(options.method, path, key.id, timestamp, nonce,
                                                Sha256Hex(options.signed_body.value_or(body)));

  HttpRequest req;
  req.method = options.method;
  req.target = std::move(target);
  req.body = std::move(body);
  if (options.content_type) req.Set("Content-Type", *options.content_type);
  req.Set("X-License-Key-Id", key.id);
  req.Set("X-License-Timestamp", timestamp);
  req.Set("X-License-Nonce", nonce);
  req.Set("X-License-Signature", SignCanonical(options.secret.value_or(key.secret), canonical));
  return req;
}

}  // namespace bb
