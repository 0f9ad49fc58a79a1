#include "auth/store_signatures.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <memory>

#include "auth/base64.h"
#include "core/hex.h"

namespace licensed {
namespace {

std::optional<int64_t> parse_unix_seconds(std::string_view text) {
  if (text.empty() || text.size() > 12) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<Sha256Digest> parse_hex_digest(std::string_view text) {
  Sha256Digest out{};
  if (text.size() != out.size() * 2) return std::nullopt;
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = hex_digit_value(text[2 * i]);
    const int lo = hex_digit_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return out;
}

bool within_tolerance(int64_t timestamp, UnixMillis now) {
  const int64_t now_s = unix_seconds(now);
  const int64_t diff = now_s >= timestamp ? now_s - timestamp : timestamp - now_s;
  return diff <= kStoreSignatureToleranceSeconds;
}

// Whether any of `candidates` is the HMAC of `message` under any of `secrets`: every pair
// is compared, in constant time each.
bool any_hmac_matches(std::string_view message, const std::vector<std::string>& secrets,
                      const std::vector<Sha256Digest>& candidates) {
  bool matched = false;
  for (const auto& secret : secrets) {
    if (secret.empty()) continue;
    const HmacSha256 hmac(secret);
    Sha256Digest expected{};
    if (!hmac.compute(message, expected)) return false;
    for (const auto& c : candidates) {
      matched |= crypto::equal_in_constant_time(expected.data(), c.data(), expected.size());
    }
  }
  return matched;
}

using Md5Digest = std::array<uint8_t, 16>;

// MD5 through OpenSSL's EVP interface (never written here): false when the library fails.
bool md5(std::string_view data, Md5Digest& out) {
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                                    &EVP_MD_CTX_free);
  unsigned int size = 0;
  return ctx && EVP_DigestInit_ex(ctx.get(), EVP_md5(), nullptr) == 1 &&
         EVP_DigestUpdate(ctx.get(), data.data(), data.size()) == 1 &&
         EVP_DigestFinal_ex(ctx.get(), out.data(), &size) == 1 && size == out.size();
}

template <size_t N>
std::optional<std::array<uint8_t, N>> parse_hex_bytes(std::string_view text) {
  std::array<uint8_t, N> out{};
  if (text.size() != N * 2) return std::nullopt;
  for (size_t i = 0; i < N; ++i) {
    const int hi = hex_digit_value(text[2 * i]);
    const int lo = hex_digit_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return out;
}

// The values of `params` sorted by name (bytewise), concatenated: what the generator's
// hash covers before the private key.
std::string sorted_values(const std::vector<std::pair<std::string, std::string>>& params) {
  std::vector<const std::pair<std::string, std::string>*> sorted;
  sorted.reserve(params.size());
  for (const auto& p : params) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  std::string values;
  for (const auto* p : sorted) values += p->second;
  return values;
}

std::optional<Sha256Digest> hmac_of(std::string_view secret, std::string_view message) {
  if (secret.empty()) return std::nullopt;
  const HmacSha256 hmac(secret);
  Sha256Digest digest{};
  if (!hmac.compute(message, digest)) return std::nullopt;
  return digest;
}

std::optional<std::string> hex_hmac_of(std::string_view secret, std::string_view message) {
  const auto digest = hmac_of(secret, message);
  if (!digest) return std::nullopt;
  return to_hex(digest->data(), digest->size());
}

}  // namespace

std::optional<StripeSignatureHeader> parse_stripe_signature(std::string_view header) {
  if (header.empty() || header.size() > kMaxStoreSignatureHeaderBytes) return std::nullopt;
  StripeSignatureHeader out;
  bool has_t = false;
  size_t elements = 0;
  while (true) {
    const size_t comma = header.find(',');
    const std::string_view element = header.substr(0, comma);
    if (++elements > kMaxStripeSignatureElements) return std::nullopt;
    const size_t eq = element.find('=');
    if (eq == std::string_view::npos || eq == 0) return std::nullopt;
    const std::string_view scheme = element.substr(0, eq);
    const std::string_view value = element.substr(eq + 1);
    if (scheme == "t") {
      if (has_t) return std::nullopt;
      const auto t = parse_unix_seconds(value);
      if (!t) return std::nullopt;
      out.timestamp = *t;
      out.timestamp_text = std::string(value);
      has_t = true;
    } else if (scheme == "v1") {
      const auto digest = parse_hex_digest(value);
      if (!digest) return std::nullopt;
      out.v1.push_back(*digest);
    }
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  if (!has_t || out.v1.empty()) return std::nullopt;
  return out;
}

bool verify_stripe_signature(std::string_view header, std::string_view body,
                             const std::vector<std::string>& secrets, UnixMillis now) {
  const auto parsed = parse_stripe_signature(header);
  if (!parsed || !within_tolerance(parsed->timestamp, now)) return false;
  std::string message = parsed->timestamp_text;
  message += '.';
  message.append(body);
  return any_hmac_matches(message, secrets, parsed->v1);
}

std::optional<PaddleSignatureHeader> parse_paddle_signature(std::string_view header) {
  if (header.empty() || header.size() > kMaxStoreSignatureHeaderBytes) return std::nullopt;
  PaddleSignatureHeader out;
  bool has_ts = false;
  size_t elements = 0;
  while (true) {
    const size_t semicolon = header.find(';');
    const std::string_view element = header.substr(0, semicolon);
    if (++elements > kMaxStripeSignatureElements) return std::nullopt;
    const size_t eq = element.find('=');
    if (eq == std::string_view::npos || eq == 0) return std::nullopt;
    const std::string_view name = element.substr(0, eq);
    const std::string_view value = element.substr(eq + 1);
    if (name == "ts") {
      if (has_ts) return std::nullopt;
      const auto ts = parse_unix_seconds(value);
      if (!ts) return std::nullopt;
      out.timestamp = *ts;
      out.timestamp_text = std::string(value);
      has_ts = true;
    } else if (name == "h1") {
      const auto digest = parse_hex_digest(value);
      if (!digest) return std::nullopt;
      out.h1.push_back(*digest);
    }
    if (semicolon == std::string_view::npos) break;
    header.remove_prefix(semicolon + 1);
  }
  if (!has_ts || out.h1.empty()) return std::nullopt;
  return out;
}

bool verify_paddle_signature(std::string_view header, std::string_view body,
                             const std::vector<std::string>& secrets, UnixMillis now) {
  const auto parsed = parse_paddle_signature(header);
  if (!parsed || !within_tolerance(parsed->timestamp, now)) return false;
  std::string message = parsed->timestamp_text;
  message += ':';
  message.append(body);
  return any_hmac_matches(message, secrets, parsed->h1);
}

bool verify_fastspring_signature(std::string_view header, std::string_view body,
                                 const std::vector<std::string>& secrets) {
  if (header.size() > kMaxStoreSignatureHeaderBytes) return false;
  const auto bytes = base64_decode(header);
  Sha256Digest digest{};
  if (!bytes || bytes->size() != digest.size()) return false;
  std::copy(bytes->begin(), bytes->end(), digest.begin());
  return any_hmac_matches(body, secrets, {digest});
}

bool verify_lemonsqueezy_signature(std::string_view header, std::string_view body,
                                   const std::vector<std::string>& secrets) {
  const auto digest = parse_hex_digest(header);
  return digest && any_hmac_matches(body, secrets, {*digest});
}

bool verify_fastspring_generator_hash(
    const std::vector<std::pair<std::string, std::string>>& params, std::string_view hash_hex,
    const std::vector<std::string>& secrets) {
  const auto given = parse_hex_bytes<16>(hash_hex);
  if (!given) return false;
  const std::string values = sorted_values(params);
  bool matched = false;
  for (const auto& secret : secrets) {
    if (secret.empty()) continue;
    Md5Digest expected{};
    if (!md5(values + secret, expected)) return false;
    matched |= crypto::equal_in_constant_time(expected.data(), given->data(), expected.size());
  }
  return matched;
}

std::optional<std::string> stripe_signature_header(std::string_view body, std::string_view secret,
                                                   int64_t unix_seconds) {
  const std::string t = std::to_string(unix_seconds);
  const auto v1 = hex_hmac_of(secret, t + "." + std::string(body));
  if (!v1) return std::nullopt;
  return "t=" + t + ",v1=" + *v1;
}

std::optional<std::string> paddle_signature_header(std::string_view body, std::string_view secret,
                                                   int64_t unix_seconds) {
  const std::string ts = std::to_string(unix_seconds);
  const auto h1 = hex_hmac_of(secret, ts + ":" + std::string(body));
  if (!h1) return std::nullopt;
  return "ts=" + ts + ";h1=" + *h1;
}

std::optional<std::string> fastspring_signature(std::string_view body, std::string_view secret) {
  const auto digest = hmac_of(secret, body);
  if (!digest) return std::nullopt;
  return base64_encode(digest->data(), digest->size());
}

std::optional<std::string> lemonsqueezy_signature(std::string_view body, std::string_view secret) {
  return hex_hmac_of(secret, body);
}

std::optional<std::string> fastspring_generator_hash(
    const std::vector<std::pair<std::string, std::string>>& params, std::string_view secret) {
  if (secret.empty()) return std::nullopt;
  Md5Digest digest{};
  if (!md5(sorted_values(params) + std::string(secret), digest)) return std::nullopt;
  return to_hex(digest.data(), digest.size());
}

bool texts_equal_in_constant_time(std::string_view a, std::string_view b) {
  Sha256Digest da{};
  Sha256Digest db{};
  if (!crypto::sha256(a, da) || !crypto::sha256(b, db)) return false;
  return crypto::equal_in_constant_time(da.data(), db.data(), da.size());
}

}  // namespace licensed
