#include "auth/accept_signature.h"

#include <algorithm>

#include "core/text.h"

namespace licensed {

namespace {

std::optional<ResponseAlgorithm> algorithm_of_token(std::string_view token) {
  for (const ResponseAlgorithm a : {ResponseAlgorithm::kEd25519, ResponseAlgorithm::kEs256}) {
    if (iequals(trim_blanks(token), algorithm_token(a))) return a;
  }
  return std::nullopt;
}

bool has(const std::vector<ResponseAlgorithm>& available, ResponseAlgorithm a) {
  return std::find(available.begin(), available.end(), a) != available.end();
}

ResponseAlgorithm fallback(const std::vector<ResponseAlgorithm>& available) {
  if (available.empty() || has(available, ResponseAlgorithm::kEd25519)) {
    return ResponseAlgorithm::kEd25519;
  }
  return available.front();
}

}  // namespace

ResponseAlgorithm choose_response_algorithm(std::optional<std::string_view> accept_header,
                                            const std::vector<ResponseAlgorithm>& available) {
  std::string_view rest = accept_header.value_or("");
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const auto wanted = algorithm_of_token(rest.substr(0, comma));
    if (wanted && has(available, *wanted)) return *wanted;
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return fallback(available);
}

}  // namespace licensed
