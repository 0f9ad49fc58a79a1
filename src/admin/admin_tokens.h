// Bearer tokens of the admin HTTP API (docs/protocol.md §18): 32 CSPRNG bytes shown
// once as `lic_adm_` + base64url, kept only as their SHA-256, read-only or read-write.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "store/store_tx.h"

namespace licensed {

inline constexpr std::string_view kAdminTokenPrefix = "lic_adm_";

struct IssuedAdminToken {
  std::string token;  // shown once, never stored
  std::string name;
  bool read_only = false;
};

// Names are 1-64 chars of [A-Za-z0-9._-]; a name already taken is refused (kConflict).
Result<IssuedAdminToken> create_admin_token(StoreTx& tx, std::string_view name, bool read_only,
                                            UnixMillis now);
// Refused with kNotFound when no token has that name.
Status revoke_admin_token(StoreTx& tx, std::string_view name);
Result<std::vector<AdminToken>> list_admin_tokens(StoreTx& tx);

// The stored token `presented` is, or nullopt when it is unknown (or not shaped like a
// token at all). The hash is compared in constant time after the indexed lookup.
Result<std::optional<AdminToken>> find_admin_token_by_value(StoreTx& tx,
                                                            std::string_view presented);

}  // namespace licensed
