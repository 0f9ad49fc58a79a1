#include "admin/admin_tokens.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "auth/base64.h"
#include "auth/request_signature.h"

namespace licensed {
namespace {

constexpr size_t kTokenBytes = 32;

bool valid_token_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<IssuedAdminToken> create_admin_token(StoreTx& tx, std::string_view name, bool read_only,
                                            UnixMillis now) {
  if (!valid_token_name(name)) {
    return Error::invalid_argument("name", "a token name is 1-64 chars of [A-Za-z0-9._-]");
  }
  ASSIGN_OR_RETURN(const auto existing, tx.list_admin_tokens());
  for (const AdminToken& t : existing) {
    if (t.name == name) {
      return Error::conflict("name", "a token named " + std::string(name) + " already exists");
    }
  }
  uint8_t random[kTokenBytes];
  if (RAND_bytes(random, sizeof random) != 1) return Error::internal("no random bytes for a token");
  IssuedAdminToken issued;
  issued.token = std::string(kAdminTokenPrefix) + base64url_encode(random, sizeof random);
  OPENSSL_cleanse(random, sizeof random);
  issued.name = std::string(name);
  issued.read_only = read_only;
  AdminToken stored;
  stored.name = issued.name;
  stored.token_sha256_hex = sha256_hex(issued.token);
  stored.read_only = read_only;
  stored.created_at = now;
  RETURN_IF_ERROR(tx.insert_admin_token(stored));
  return issued;
}

Status revoke_admin_token(StoreTx& tx, std::string_view name) {
  ASSIGN_OR_RETURN(const bool deleted, tx.delete_admin_token(name));
  if (!deleted) return Error::not_found("name", "no admin token named " + std::string(name));
  return Ok{};
}

Result<std::vector<AdminToken>> list_admin_tokens(StoreTx& tx) {
  return tx.list_admin_tokens();
}

Result<std::optional<AdminToken>> find_admin_token_by_value(StoreTx& tx,
                                                            std::string_view presented) {
  if (presented.substr(0, kAdminTokenPrefix.size()) != kAdminTokenPrefix ||
      presented.size() > 128) {
    return std::optional<AdminToken>();
  }
  const std::string hash = sha256_hex(presented);
  ASSIGN_OR_RETURN(auto found, tx.find_admin_token(hash));
  // The lookup is by an index on the hash; the comparison that decides is constant-time.
  if (!found || found->token_sha256_hex.size() != hash.size() ||
      CRYPTO_memcmp(found->token_sha256_hex.data(), hash.data(), hash.size()) != 0) {
    return std::optional<AdminToken>();
  }
  return found;
}

}  // namespace licensed
