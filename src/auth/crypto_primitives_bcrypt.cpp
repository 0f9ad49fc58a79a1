// crypto_primitives.h over Windows CNG (bcrypt.dll, part of every Windows since Vista):
// the SDK's on Windows, which ships with no library beside it. CNG has no Ed25519, so
// Ed25519 verification is unavailable here and a client pins the server's ES256 key.
//
// Algorithm handles are opened once per process and never closed: CNG allows one handle
// to be used by many threads at once, and closing it at exit could pull it from under an
// SDK thread still verifying. Hash objects and keys are per call.
#include <windows.h>
// windows.h first: bcrypt.h needs its types.
#include <bcrypt.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <string_view>

#include "auth/base64.h"
#include "auth/crypto_primitives.h"

namespace licensed {

namespace {

constexpr size_t kP256PointSize = 65;
constexpr size_t kP256CoordinateSize = 32;

BCRYPT_ALG_HANDLE open_provider(LPCWSTR algorithm, ULONG flags) {
  BCRYPT_ALG_HANDLE handle = nullptr;
  if (!BCRYPT_SUCCESS(BCryptOpenAlgorithmProvider(&handle, algorithm, nullptr, flags))) {
    return nullptr;
  }
  return handle;
}

BCRYPT_ALG_HANDLE sha256_provider() {
  static const BCRYPT_ALG_HANDLE handle = open_provider(BCRYPT_SHA256_ALGORITHM, 0);
  return handle;
}

BCRYPT_ALG_HANDLE hmac_sha256_provider() {
  static const BCRYPT_ALG_HANDLE handle =
      open_provider(BCRYPT_SHA256_ALGORITHM, BCRYPT_ALG_HANDLE_HMAC_FLAG);
  return handle;
}

BCRYPT_ALG_HANDLE ecdsa_p256_provider() {
  static const BCRYPT_ALG_HANDLE handle = open_provider(BCRYPT_ECDSA_P256_ALGORITHM, 0);
  return handle;
}

struct HashDestroy {
  void operator()(void* h) const { BCryptDestroyHash(h); }
};
struct KeyDestroy {
  void operator()(void* k) const { BCryptDestroyKey(k); }
};

// The digest of `data` by `provider` (SHA-256, or HMAC-SHA256 keyed with `key`), with a
// hash object of its own that CNG allocates (so no object-length query per call).
bool digest_with(BCRYPT_ALG_HANDLE provider, std::string_view key, std::string_view data,
                 Sha256Digest& out) {
  if (provider == nullptr || key.size() > ULONG_MAX || data.size() > ULONG_MAX) return false;
  // CNG wants a non-null pointer for an empty HMAC key.
  static const UCHAR kEmpty = 0;
  auto* secret = key.empty() ? const_cast<PUCHAR>(&kEmpty)
                             : reinterpret_cast<PUCHAR>(const_cast<char*>(key.data()));
  BCRYPT_HASH_HANDLE hash = nullptr;
  if (!BCRYPT_SUCCESS(BCryptCreateHash(provider, &hash, nullptr, 0, secret,
                                       static_cast<ULONG>(key.size()), 0))) {
    return false;
  }
  const std::unique_ptr<void, HashDestroy> owned(hash);
  return BCRYPT_SUCCESS(BCryptHashData(hash,
                                       reinterpret_cast<PUCHAR>(const_cast<char*>(data.data())),
                                       static_cast<ULONG>(data.size()), 0)) &&
         BCRYPT_SUCCESS(BCryptFinishHash(hash, out.data(), static_cast<ULONG>(out.size()), 0));
}

// The point as CNG imports a public key: BCRYPT_ECCKEY_BLOB's header, then X and Y.
std::unique_ptr<void, KeyDestroy> p256_public_key(const std::vector<uint8_t>& point) {
  if (point.size() != kP256PointSize || point[0] != 0x04 || ecdsa_p256_provider() == nullptr) {
    return nullptr;
  }
  BCRYPT_ECCKEY_BLOB header{};
  header.dwMagic = BCRYPT_ECDSA_PUBLIC_P256_MAGIC;
  header.cbKey = static_cast<ULONG>(kP256CoordinateSize);
  std::array<UCHAR, sizeof(BCRYPT_ECCKEY_BLOB) + 2 * kP256CoordinateSize> blob{};
  std::memcpy(blob.data(), &header, sizeof header);
  std::memcpy(blob.data() + sizeof header, point.data() + 1, 2 * kP256CoordinateSize);
  BCRYPT_KEY_HANDLE key = nullptr;
  if (!BCRYPT_SUCCESS(BCryptImportKeyPair(ecdsa_p256_provider(), nullptr, BCRYPT_ECCPUBLIC_BLOB,
                                          &key, blob.data(), static_cast<ULONG>(blob.size()), 0))) {
    return nullptr;
  }
  return std::unique_ptr<void, KeyDestroy>(key);
}

// The DER a SubjectPublicKeyInfo of each kind starts with; the raw key follows. DER has
// one encoding per value, so an Ed25519 key's SPKI is exactly this prefix and 32 bytes,
// and an uncompressed P-256 point's this prefix and 65 bytes.
constexpr uint8_t kEd25519Spki[] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
                                    0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};
constexpr uint8_t kP256Spki[] = {0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48,
                                 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48,
                                 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00};

template <size_t N>
std::optional<std::vector<uint8_t>> after_prefix(const std::vector<uint8_t>& der,
                                                 const uint8_t (&prefix)[N], size_t key_size) {
  if (der.size() != N + key_size || std::memcmp(der.data(), prefix, N) != 0) return std::nullopt;
  return std::vector<uint8_t>(der.begin() + N, der.end());
}

// The base64 between "-----BEGIN PUBLIC KEY-----" and its END line, line breaks and
// spaces removed; nullopt without both lines.
std::optional<std::string> pem_body(std::string_view pem) {
  constexpr std::string_view kBegin = "-----BEGIN PUBLIC KEY-----";
  constexpr std::string_view kEnd = "-----END PUBLIC KEY-----";
  const size_t begin = pem.find(kBegin);
  const size_t end = pem.find(kEnd);
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) {
    return std::nullopt;
  }
  std::string body;
  for (const char c : pem.substr(begin + kBegin.size(), end - begin - kBegin.size())) {
    if (c != '\r' && c != '\n' && c != ' ' && c != '\t') body.push_back(c);
  }
  return body;
}

}  // namespace

struct HmacSha256::State {
  std::string key;  // CNG keys a hash object per call: nothing else to keep
};

HmacSha256::HmacSha256(std::string_view key)
    : state_(std::make_unique<State>(State{std::string(key)})) {}

HmacSha256::~HmacSha256() = default;

std::unique_ptr<HmacSha256> HmacSha256::clone() const {
  return std::make_unique<HmacSha256>(state_->key);
}

bool HmacSha256::compute(std::string_view message, Sha256Digest& out) const {
  return digest_with(hmac_sha256_provider(), state_->key, message, out);
}

namespace crypto {

bool sha256(std::string_view data, Sha256Digest& out) {
  return digest_with(sha256_provider(), {}, data, out);
}

bool random_bytes(uint8_t* out, size_t size) {
  while (size > 0) {
    const auto n = static_cast<ULONG>(std::min<size_t>(size, ULONG_MAX));
    if (!BCRYPT_SUCCESS(BCryptGenRandom(nullptr, out, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG))) {
      return false;
    }
    out += n;
    size -= n;
  }
  return true;
}

bool equal_in_constant_time(const uint8_t* a, const uint8_t* b, size_t size) {
  // Every byte is read whatever the earlier ones held; volatile keeps the compiler from
  // stopping at the first difference.
  volatile uint8_t differences = 0;
  for (size_t i = 0; i < size; ++i) differences = differences | (a[i] ^ b[i]);
  return differences == 0;
}

bool ed25519_available() {
  return false;
}

bool verify_ed25519(const std::array<uint8_t, 32>&, const std::array<uint8_t, 64>&,
                    std::string_view) {
  return false;
}

bool verify_es256(const std::vector<uint8_t>& public_key, const std::array<uint8_t, 64>& signature,
                  std::string_view message) {
  Sha256Digest digest{};
  const auto key = p256_public_key(public_key);
  if (!key || !sha256(message, digest)) return false;
  // CNG takes ECDSA signatures as r || s already, and verifies a digest.
  return BCryptVerifySignature(key.get(), nullptr, digest.data(), static_cast<ULONG>(digest.size()),
                               const_cast<PUCHAR>(signature.data()),
                               static_cast<ULONG>(signature.size()), 0) == 0;
}

bool is_p256_public_key(const std::vector<uint8_t>& point) {
  return p256_public_key(point) != nullptr;  // CNG refuses a point off the curve
}

std::optional<RawPublicKey> public_key_from_pem(std::string_view pem) {
  const auto body = pem_body(pem);
  const auto der = body ? base64_decode(*body) : std::nullopt;
  if (!der) return std::nullopt;
  if (auto raw = after_prefix(*der, kEd25519Spki, 32)) {
    return RawPublicKey{PublicKeyType::kEd25519, std::move(*raw)};
  }
  if (auto raw = after_prefix(*der, kP256Spki, kP256PointSize)) {
    return RawPublicKey{PublicKeyType::kP256, std::move(*raw)};
  }
  return std::nullopt;
}

void keep_state_until_process_end() {}

}  // namespace crypto
}  // namespace licensed
