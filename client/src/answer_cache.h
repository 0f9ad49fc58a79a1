// The local cache of the last good status answer, so a plugin can start offline. It
// keeps the answer exactly as signed (the request's signature it is bound to, status,
// body, response signature): the client verifies it again on every read, so an edited
// file is ignored, and its age is the signed time `t`, so it cannot be made younger by
// editing either.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace licensed::client {

// The request an answer answered, as sent: what its signature covers besides the key id
// and the secret (docs/protocol.md §15: the cache keeps it and verifies it again when read).
struct SentRequest {
  std::string path;
  std::string timestamp;
  std::string nonce;
  std::string body;
};

struct SignedAnswer {
  // The 64 lowercase hex digits of the request's X-License-Signature: the answer is
  // valid only when signed over this (docs/protocol.md §13.1, v2-response).
  std::string request_signature;
  SentRequest request;
  int status = 0;
  std::string body;
  std::optional<std::string> signature;  // X-License-Response-Signature, when there was one
};

class AnswerCache {
 public:
  explicit AnswerCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // One file per (license key, machine id), named by a hash of both.
  std::filesystem::path file_for(std::string_view license_key, std::string_view machine_id) const;

  // Written to a temporary file in the same directory and renamed over the old one, so
  // a reader sees the old answer or the new one, never half of one. False on I/O errors.
  bool store(std::string_view license_key, std::string_view machine_id,
             const SignedAnswer& answer) const;
  // nullopt when there is no file or it is not a well-formed entry. Not verified here.
  std::optional<SignedAnswer> load(std::string_view license_key, std::string_view machine_id) const;
  void remove(std::string_view license_key, std::string_view machine_id) const;

  // The latest time this client has seen (signed answers' t, its own clock), kept
  // across restarts: a clock set back more than 24 h behind it invalidates cached
  // answers until it is right again (docs/protocol.md §15). nullopt before the first.
  std::optional<int64_t> latest_time() const;
  void remember_time(int64_t unix_seconds) const;

 private:
  // Makes the directory if missing and replaces `target` whole (platform/private_file.h).
  bool write(const std::filesystem::path& target, const std::string& text) const;

  std::filesystem::path dir_;
};

}  // namespace licensed::client
