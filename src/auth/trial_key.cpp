#include "auth/trial_key.h"

#include <openssl/rand.h>

#include "core/hex.h"

namespace licensed {

std::string TrialKey::digest(std::string_view label, std::string_view text) const {
  std::string message(label);
  message += '\n';
  message.append(text.data(), text.size());
  Sha256Digest out{};
  if (!mac_.compute(message, out)) return {};
  return to_hex(out.data(), out.size());
}

std::string TrialKey::machine(std::string_view machine_id) const {
  return digest("machine", machine_id);
}

std::string TrialKey::email(std::string_view email) const {
  return digest("email", email);
}

Result<std::unique_ptr<TrialKey>> stored_trial_key(StoreTx& tx, UnixMillis now) {
  uint8_t bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return Error::internal("no random bytes for a key");
  ASSIGN_OR_RETURN(const std::string secret,
                   tx.ensure_server_secret("trial", to_hex(bytes, sizeof bytes), now));
  return std::make_unique<TrialKey>(secret);
}

}  // namespace licensed
