// The cryptography the code a client runs needs (request signing, answer verification,
// nonces), as a few functions with two implementations chosen when building
// (cmake/LicensedSigning.cmake, LICENSED_CRYPTO_BACKEND):
//   crypto_primitives_openssl.cpp  OpenSSL 3: the server, and the SDK on Linux and macOS;
//   crypto_primitives_bcrypt.cpp   Windows CNG (bcrypt.dll): the SDK for Windows, which
//                                  ships with no library beside it.
// Everything above this (request_signature, response_signature, response_tree, the SDK)
// is the same source on both. Nothing here touches a private key: the server signs with
// OpenSSL alone (auth/response_key.*). crypto_primitives_test.cpp runs the same known
// answers against whichever implementation is built.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace licensed {

using Sha256Digest = std::array<uint8_t, 32>;

// HMAC-SHA256 keyed once; each call reuses the keyed state where the library allows it
// (with OpenSSL about four times cheaper than keying per call). compute() may be called
// from several threads at once: with OpenSSL each of the first few dozen threads keeps a
// working context of its own, reset per message, and later threads copy the keyed one
// per call; with CNG each call keys a hash object of its own.
class HmacSha256 {
 public:
  explicit HmacSha256(std::string_view key);
  ~HmacSha256();
  HmacSha256(const HmacSha256&) = delete;
  HmacSha256& operator=(const HmacSha256&) = delete;

  std::unique_ptr<HmacSha256> clone() const;
  // False only when the library fails, which callers treat as an internal error.
  bool compute(std::string_view message, Sha256Digest& out) const;

 private:
  HmacSha256() = default;
  struct State;
  std::unique_ptr<State> state_;
};

namespace crypto {

// SHA-256 of `data`; false only when the library fails.
bool sha256(std::string_view data, Sha256Digest& out);

// `size` bytes from the system's cryptographically secure generator; false when it
// failed (the bytes are then not to be used).
bool random_bytes(uint8_t* out, size_t size);

// a == b over `size` bytes, in a time that does not depend on where they differ.
bool equal_in_constant_time(const uint8_t* a, const uint8_t* b, size_t size);

// Whether this implementation verifies Ed25519: OpenSSL does, Windows CNG does not (so a
// client there pins the server's ES256 key instead, docs/protocol.md §13.2).
bool ed25519_available();

// True when `signature` is the Ed25519 signature (RFC 8032) of `message` by the raw
// 32-byte `public_key`; always false where ed25519_available() is false.
bool verify_ed25519(const std::array<uint8_t, 32>& public_key,
                    const std::array<uint8_t, 64>& signature, std::string_view message);

// True when `signature` (r || s, 32 bytes each, big-endian) is an ECDSA P-256 signature
// over SHA-256 of `message` by `public_key`, the 65-byte uncompressed point 04 || X || Y.
// Anything else as a key (another size, a compressed point, a point off the curve) is
// false.
bool verify_es256(const std::vector<uint8_t>& public_key, const std::array<uint8_t, 64>& signature,
                  std::string_view message);

// True when `point` is a P-256 public key as ES256 pins it: 65 bytes, 04 || X || Y, on
// the curve as far as the library checks (OpenSSL does; Wine's CNG takes any X and Y,
// and then verifies nothing with them).
bool is_p256_public_key(const std::vector<uint8_t>& point);

// The public keys a client may pin, as their raw bytes: Ed25519's 32, or P-256's
// 65-byte uncompressed point.
enum class PublicKeyType { kEd25519, kP256 };
struct RawPublicKey {
  PublicKeyType type = PublicKeyType::kEd25519;
  std::vector<uint8_t> bytes;
};
// A PEM "PUBLIC KEY" (SubjectPublicKeyInfo) of an Ed25519 or a P-256 key; nullopt for
// anything else (another kind of key or PEM, a damaged text).
std::optional<RawPublicKey> public_key_from_pem(std::string_view pem);

// Called once per process before threads that may be inside the library exist: asks the
// library to keep its state until the process ends instead of freeing it in an exit
// handler while such a thread still uses it (client/src/detached_thread.h). OpenSSL's
// OPENSSL_INIT_NO_ATEXIT; nothing for CNG, which frees nothing at exit.
void keep_state_until_process_end();

}  // namespace crypto
}  // namespace licensed
