#include "load/answer_check.h"

#include <boost/json/parse.hpp>

namespace licensed::bench {

AnswerCheck check_answer_signature(const std::vector<PinnedResponseKey>& pinned,
                                   std::optional<std::string_view> header,
                                   std::string_view request_signature, unsigned status,
                                   std::string_view body) {
  constexpr std::string_view kVersion = "v1=";
  if (!header || request_signature.substr(0, kVersion.size()) != kVersion) {
    return AnswerCheck::kFailed;
  }
  // Every request of a run is validly signed, so every answer is bound to its signature
  // (docs/protocol.md §13.5), refusals included.
  const std::string_view bound = request_signature.substr(kVersion.size());
  if (!verify_response_signature(pinned, *header, bound, status, body)) {
    return AnswerCheck::kFailed;
  }
  const auto parsed = parse_response_signature(*header);
  return parsed && parsed->tree ? AnswerCheck::kTree : AnswerCheck::kPlain;
}

Result<std::vector<PinnedResponseKey>> pinned_keys_of(std::string_view public_keys_body) {
  boost::system::error_code ec;
  const auto parsed = boost::json::parse(public_keys_body, ec);
  const boost::json::object* root = !ec && parsed.is_object() ? &parsed.get_object() : nullptr;
  const boost::json::value* keys = root != nullptr ? root->if_contains("keys") : nullptr;
  if (keys == nullptr || !keys->is_array()) {
    return Error::invalid_argument("publicKeys", "the public keys answer is not {\"keys\": [...]}");
  }
  std::vector<PinnedResponseKey> out;
  for (const auto& entry : keys->get_array()) {
    const boost::json::object* key = entry.if_object();
    const boost::json::value* text = key != nullptr ? key->if_contains("publicKey") : nullptr;
    const boost::json::value* kid = key != nullptr ? key->if_contains("kid") : nullptr;
    if (text == nullptr || !text->is_string() || kid == nullptr || !kid->is_string()) {
      return Error::invalid_argument("publicKeys", "a published key without a kid or publicKey");
    }
    auto pinned = parse_pinned_response_key(std::string_view(text->get_string()));
    if (!pinned) {
      return Error::invalid_argument(
          "publicKeys", "a published key that does not parse: " + std::string(kid->get_string()));
    }
    pinned->kid = std::string(kid->get_string());
    out.push_back(std::move(*pinned));
  }
  if (out.empty())
    return Error::invalid_argument("publicKeys", "the server publishes no response key");
  return out;
}

}  // namespace licensed::bench
