// Fuzzes the lease-file reader (docs/protocol.md §27: read_lease_file and check_lease_file in
// src/auth/lease_file.h): every borrowed seat's file a plugin runs on offline goes through
// it, with no network.
//
// The input is the file's text. The pinned key is the fixed Ed25519 key the seed corpus
// (fuzz/corpus/lease_file/, written by fuzz/make_activation_corpus.py) is signed with, the
// activation_file target's key, so mutations reach the payload reader behind the
// signature. Invariants, besides crashes, leaks and UB: a file is returned only with no
// problem; the same text with another pinned key is never accepted; the payload returned is
// no longer than the text; an accepted file checked against its own machine, product and
// license at its issue time is valid unless it expired at once.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "auth/lease_file.h"
#include "auth/response_key.h"
#include "fuzz_checks.h"

namespace {

// Test key only: it signs the seed corpus, nothing else.
constexpr std::string_view kFuzzKeyPem =
    "-----BEGIN PRIVATE KEY-----\n"
    "MC4CAQAwBQYDK2VwBCIEIHoOLl0IcmIUkf4fzOU6LztV8GyjXVlHDdRXwzMn8c4Z\n"
    "-----END PRIVATE KEY-----\n";

const std::vector<licensed::PinnedResponseKey>& pinned() {
  static const auto* keys = new std::vector<licensed::PinnedResponseKey>{
      licensed::ResponseKey::from_pem(kFuzzKeyPem, "the fuzz key").value().pinned()};
  return *keys;
}

const std::vector<licensed::PinnedResponseKey>& other_key() {
  static const auto* keys = new std::vector<licensed::PinnedResponseKey>{
      licensed::ResponseKey::generate(licensed::ResponseAlgorithm::kEd25519).value().pinned()};
  return *keys;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using licensed::ActivationFileProblem;
  using licensed::fuzz::require;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto read = licensed::read_lease_file(text, pinned());
  require(!licensed::read_lease_file(text, other_key()).file.has_value(),
          "a lease file verified under a key that signed nothing");
  if (!read.file) {
    require(read.problem != ActivationFileProblem::kNone, "no file, yet no problem");
    return 0;
  }
  const licensed::LeaseFile& file = *read.file;
  require(read.problem == ActivationFileProblem::kNone, "a file returned with a problem");
  require(file.payload.size() <= size, "a payload longer than the text it came from");
  const licensed::ActivationFileExpectation own{file.machine_id, file.product_slug,
                                                file.license_key, file.issued_at, std::nullopt};
  const auto verdict = licensed::check_lease_file(file, own);
  require(verdict == ActivationFileProblem::kNone || verdict == ActivationFileProblem::kExpired,
          "a lease file refused against its own machine, product and license at its issue time");
  require(verdict == ActivationFileProblem::kNone || file.expires_at <= file.issued_at,
          "a lease file with time left refused at its issue time");
  return 0;
}
