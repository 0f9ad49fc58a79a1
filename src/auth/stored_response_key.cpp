#include "auth/stored_response_key.h"

#include <openssl/crypto.h>

namespace licensed {

namespace {

Result<std::vector<ResponseKey>> parse_all(const std::vector<std::string>& pems) {
  std::vector<ResponseKey> keys;
  for (const std::string& pem : pems) {
    ASSIGN_OR_RETURN(ResponseKey key,
                     ResponseKey::from_pem(pem, "the response key kept in the store"));
    keys.push_back(std::move(key));
  }
  return keys;
}

// Every stored key, oldest first; the texts do not linger in freed memory.
Result<std::vector<ResponseKey>> stored_keys(StoreTx& tx) {
  ASSIGN_OR_RETURN(std::vector<std::string> pems, tx.find_response_keys());
  auto keys = parse_all(pems);
  for (std::string& pem : pems) OPENSSL_cleanse(pem.data(), pem.size());
  return keys;
}

}  // namespace

Result<std::optional<ResponseKey>> find_stored_response_key(StoreTx& tx,
                                                            ResponseAlgorithm algorithm) {
  ASSIGN_OR_RETURN(std::vector<ResponseKey> keys, stored_keys(tx));
  for (ResponseKey& key : keys) {
    if (key.algorithm() == algorithm) return std::optional<ResponseKey>(std::move(key));
  }
  return std::optional<ResponseKey>();
}

Result<ResponseKey> stored_response_key(StoreTx& tx, ResponseAlgorithm algorithm, UnixMillis now) {
  ASSIGN_OR_RETURN(std::optional<ResponseKey> found, find_stored_response_key(tx, algorithm));
  if (found) return std::move(*found);
  ASSIGN_OR_RETURN(ResponseKey made, ResponseKey::generate(algorithm));
  ASSIGN_OR_RETURN(std::string pem, made.to_pem());
  auto stored = tx.insert_response_key(pem, now);
  OPENSSL_cleanse(pem.data(), pem.size());
  if (!stored.ok()) return std::move(stored.error());
  return made;
}

}  // namespace licensed
