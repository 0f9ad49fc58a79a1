#include "auth/stored_response_key.h"

#include <openssl/crypto.h>

namespace licensed {

Result<std::optional<ResponseKey>> find_stored_response_key(StoreTx& tx) {
  ASSIGN_OR_RETURN(std::optional<std::string> pem, tx.find_response_key());
  if (!pem) return std::optional<ResponseKey>();
  auto key = ResponseKey::from_pem(*pem, "the response key kept in the store");
  OPENSSL_cleanse(pem->data(), pem->size());
  if (!key.ok()) return std::move(key.error());
  return std::optional<ResponseKey>(std::move(key.value()));
}

Result<ResponseKey> stored_response_key(StoreTx& tx, UnixMillis now) {
  ASSIGN_OR_RETURN(std::optional<ResponseKey> found, find_stored_response_key(tx));
  if (found) return std::move(*found);
  ASSIGN_OR_RETURN(ResponseKey made, ResponseKey::generate());
  ASSIGN_OR_RETURN(std::string pem, made.to_pem());
  auto stored = tx.insert_response_key(pem, now);
  OPENSSL_cleanse(pem.data(), pem.size());
  if (!stored.ok()) return std::move(stored.error());
  return made;
}

}  // namespace licensed
