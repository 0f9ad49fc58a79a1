// The server's trial key (docs/protocol.md §20): trials are kept by HMAC-SHA256 of the
// machine id (and of the lowercased email) under this key, so the store holds neither
// raw. The key is made once, on first use, and kept in the store (server_secrets), so
// every instance of a deployment, and an export, agree on it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "auth/request_signature.h"
#include "core/operations.h"
#include "core/result.h"
#include "store/store_tx.h"

namespace licensed {

class TrialKey final : public TrialIdentity {
 public:
  explicit TrialKey(std::string_view secret) : mac_(secret) {}

  // Lowercase hex of HMAC-SHA256(key, "machine\n" + id): the trial record's machine.
  std::string machine(std::string_view machine_id) const override;
  // The same for "email\n" + the lowercased address.
  std::string email(std::string_view email) const override;

 private:
  std::string digest(std::string_view label, std::string_view text) const;

  HmacSha256 mac_;
};

// The stored trial key, made (32 random bytes) and stored when there is none yet; in a
// write transaction.
Result<std::unique_ptr<TrialKey>> stored_trial_key(StoreTx& tx, UnixMillis now);

}  // namespace licensed
