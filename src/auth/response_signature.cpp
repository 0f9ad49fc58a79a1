#include "auth/response_signature.h"

#include <algorithm>

#include "auth/base64.h"
#include "auth/crypto_primitives.h"
#include "auth/request_signature.h"
#include "auth/response_tree.h"
#include "core/text.h"

namespace licensed {

namespace {

constexpr size_t kMaxKidSize = 64;
constexpr uint64_t kMaxTreeSize = 4096;

bool is_kid(std::string_view kid) {
  if (kid.empty() || kid.size() > kMaxKidSize) return false;
  for (const char c : kid) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// Decimal without sign or leading zeros ("0" itself is fine), within int64.
std::optional<int64_t> parse_decimal(std::string_view text) {
  if (text.empty() || text[0] == '-' || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  return parse_whole_number<int64_t>(text);
}

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// The header's parameters in order, as (name, value) pairs; nullopt when one is not
// "name=value" (an empty one included).
std::optional<std::vector<std::pair<std::string_view, std::string_view>>> split_parameters(
    std::string_view value) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (;;) {
    const size_t comma = value.find(',');
    const std::string_view item = trim_spaces(value.substr(0, comma));
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) return std::nullopt;
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    if (comma == std::string_view::npos) return out;
    value.remove_prefix(comma + 1);
  }
}

std::optional<TreePosition> parse_tree(std::string_view tree, std::string_view path) {
  const size_t slash = tree.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto index = parse_decimal(tree.substr(0, slash));
  const auto size = parse_decimal(tree.substr(slash + 1));
  if (!index || !size || *size < 1 || *size > static_cast<int64_t>(kMaxTreeSize) ||
      *index >= *size) {
    return std::nullopt;
  }
  const auto bytes = base64_decode(path);
  if (!bytes || bytes->size() % 32 != 0) return std::nullopt;
  TreePosition out;
  out.index = static_cast<uint32_t>(*index);
  out.size = static_cast<uint32_t>(*size);
  out.path.resize(bytes->size() / 32);
  for (size_t i = 0; i < out.path.size(); ++i) {
    std::copy(bytes->begin() + static_cast<ptrdiff_t>(i * 32),
              bytes->begin() + static_cast<ptrdiff_t>((i + 1) * 32), out.path[i].begin());
  }
  return out;
}

PinnedResponseKey pin_raw(ResponseAlgorithm algorithm, std::vector<uint8_t> public_key) {
  std::string kid = response_key_id(algorithm, public_key);
  return {std::move(kid), algorithm, std::move(public_key)};
}

}  // namespace

bool verify_message_signature(const PinnedResponseKey& key,
                              const std::array<uint8_t, 64>& signature, std::string_view message) {
  if (key.algorithm == ResponseAlgorithm::kEs256) {
    return crypto::verify_es256(key.public_key, signature, message);
  }
  Ed25519PublicKey raw{};
  if (key.public_key.size() != raw.size()) return false;
  std::copy(key.public_key.begin(), key.public_key.end(), raw.begin());
  return crypto::verify_ed25519(raw, signature, message);
}

std::string response_signing_string(std::optional<std::string_view> request_signature,
                                    unsigned status, int64_t t, std::string_view body) {
  std::string out;
  out.reserve(12 + 64 + 1 + 3 + 1 + 20 + 1 + 64);
  out.append("v2-response\n").append(request_signature ? *request_signature : "-").append("\n");
  out.append(std::to_string(status)).append("\n").append(std::to_string(t)).append("\n");
  out.append(sha256_hex(body));
  return out;
}

std::string_view algorithm_token(ResponseAlgorithm algorithm) {
  return algorithm == ResponseAlgorithm::kEs256 ? "es256" : "ed25519";
}

std::string_view algorithm_name(ResponseAlgorithm algorithm) {
  return algorithm == ResponseAlgorithm::kEs256 ? "ES256" : "Ed25519";
}

std::string response_key_id(ResponseAlgorithm algorithm, const std::vector<uint8_t>& public_key) {
  const Sha256Digest digest =
      sha256(std::string_view(reinterpret_cast<const char*>(public_key.data()), public_key.size()));
  return std::string(algorithm_token(algorithm)) + "-" + to_hex(digest.data(), 8);
}

std::string response_key_id(const Ed25519PublicKey& public_key) {
  return response_key_id(ResponseAlgorithm::kEd25519,
                         std::vector<uint8_t>(public_key.begin(), public_key.end()));
}

std::string format_response_signature(std::string_view kid, int64_t t,
                                      const RawResponseSignature& signature,
                                      ResponseAlgorithm algorithm) {
  std::string out;
  out.append("kid=").append(kid).append(", t=").append(std::to_string(t)).append(", ");
  out.append(algorithm_token(algorithm)).append("=");
  out.append(base64_encode(signature.data(), signature.size()));
  return out;
}

std::string format_response_signature(std::string_view kid, int64_t t,
                                      const RawResponseSignature& signature,
                                      ResponseAlgorithm algorithm, const TreePosition& tree) {
  std::string out = format_response_signature(kid, t, signature, algorithm);
  out.append(", tree=").append(std::to_string(tree.index)).append("/");
  out.append(std::to_string(tree.size)).append(", path=");
  std::vector<uint8_t> path;
  path.reserve(tree.path.size() * 32);
  for (const auto& hash : tree.path) path.insert(path.end(), hash.begin(), hash.end());
  out.append(base64_encode(path.data(), path.size()));
  return out;
}

std::optional<ParsedResponseSignature> parse_response_signature(std::string_view value) {
  const auto params = split_parameters(value);
  if (!params || (params->size() != 3 && params->size() != 5)) return std::nullopt;
  const auto& p = *params;
  if (p[0].first != "kid" || !is_kid(p[0].second) || p[1].first != "t") return std::nullopt;
  ParsedResponseSignature out;
  out.kid = std::string(p[0].second);
  const auto t = parse_decimal(p[1].second);
  if (!t) return std::nullopt;
  out.t = *t;
  if (p[2].first == "ed25519") {
    out.algorithm = ResponseAlgorithm::kEd25519;
  } else if (p[2].first == "es256") {
    out.algorithm = ResponseAlgorithm::kEs256;
  } else {
    return std::nullopt;
  }
  const auto signature = base64_decode(p[2].second);
  if (!signature || signature->size() != out.signature.size()) return std::nullopt;
  std::copy(signature->begin(), signature->end(), out.signature.begin());
  if (p.size() == 5) {
    if (p[3].first != "tree" || p[4].first != "path") return std::nullopt;
    out.tree = parse_tree(p[3].second, p[4].second);
    if (!out.tree) return std::nullopt;
  }
  return out;
}

PinnedResponseKey pin_ed25519(const Ed25519PublicKey& public_key) {
  return pin_raw(ResponseAlgorithm::kEd25519,
                 std::vector<uint8_t>(public_key.begin(), public_key.end()));
}

std::optional<int64_t> verify_response_signature(const std::vector<PinnedResponseKey>& pinned,
                                                 std::string_view header_value,
                                                 std::optional<std::string_view> request_signature,
                                                 unsigned status, std::string_view body) {
  const auto parsed = parse_response_signature(header_value);
  if (!parsed) return std::nullopt;
  const PinnedResponseKey* key = nullptr;
  for (const auto& k : pinned) {
    if (k.kid == parsed->kid && k.algorithm == parsed->algorithm) {
      key = &k;
      break;
    }
  }
  if (key == nullptr) return std::nullopt;
  std::string message = response_signing_string(request_signature, status, parsed->t, body);
  if (parsed->tree) {
    const TreePosition& tree = *parsed->tree;
    const auto root =
        tree_root_from_path(tree_leaf_hash(message), tree.index, tree.size, tree.path);
    if (!root) return std::nullopt;
    message = tree_signing_string(tree.size, *root);
  }
  if (!verify_message_signature(*key, parsed->signature, message)) return std::nullopt;
  return parsed->t;
}

std::optional<Ed25519PublicKey> parse_response_public_key(std::string_view text) {
  Ed25519PublicKey out{};
  std::optional<std::vector<uint8_t>> bytes;
  if (text.find("-----BEGIN") != std::string_view::npos) {
    auto key = crypto::public_key_from_pem(text);
    if (key && key->type == crypto::PublicKeyType::kEd25519) bytes = std::move(key->bytes);
  } else {
    bytes = base64_decode(text);
  }
  if (!bytes || bytes->size() != out.size()) return std::nullopt;
  std::copy(bytes->begin(), bytes->end(), out.begin());
  return out;
}

std::optional<PinnedResponseKey> parse_pinned_response_key(std::string_view text) {
  if (text.find("-----BEGIN") != std::string_view::npos) {
    auto key = crypto::public_key_from_pem(text);
    if (!key) return std::nullopt;
    const bool p256 = key->type == crypto::PublicKeyType::kP256;
    return pin_raw(p256 ? ResponseAlgorithm::kEs256 : ResponseAlgorithm::kEd25519,
                   std::move(key->bytes));
  }
  auto bytes = base64_decode(text);
  if (!bytes) return std::nullopt;
  if (bytes->size() == 32) return pin_raw(ResponseAlgorithm::kEd25519, std::move(*bytes));
  if (!crypto::is_p256_public_key(*bytes)) return std::nullopt;
  return pin_raw(ResponseAlgorithm::kEs256, std::move(*bytes));
}

}  // namespace licensed
