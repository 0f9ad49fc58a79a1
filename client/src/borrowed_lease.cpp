// Borrowed seats in the SDK (docs/protocol.md §27, §21 "Offline files."): installing the
// LICENSE LEASE file a borrowing checkout answers with beside the activation files (the
// vendor's machine-wide directory, platform/user_dirs.h machine_file_dirs, docs/protocol.md
// §21.8 and §22), and answering the start-up check from it with no network (source lease)
// until its expiresAt. The file's format and checks are licensed_signing's
// (auth/lease_file.h): the signature by a pinned key over "v1-lease-file\n" + payload, this
// machine, license and product, the clock between issuedAt - 24 h and expiresAt, not set
// back more than 24 h behind the latest time seen.
//
// Like offline_activation.cpp, nothing here touches the network or waits on anything but
// a small file: the start-up check reads the lease file as it reads the activation file.
#include <boost/json.hpp>

#include "auth/armour.h"
#include "auth/lease_file.h"
#include "auth/request_signature.h"
#include "core/text.h"
#include "core/timestamp.h"
#include "installed_files.h"
#include "license_client.h"
#include "platform/private_file.h"

namespace licensed::client {

namespace {

// A warning from this long before the borrowed seat ends: the user has a day to reconnect.
constexpr int64_t kLeaseWarningSeconds = 24 * 60 * 60;

// One lease file per license key, named like its activation file (offline_activation.cpp)
// with its own prefix: a borrowed seat and an offline activation of one license can sit
// side by side.
std::string lease_file_name(std::string_view license_key) {
  std::string lower(license_key);
  for (char& c : lower) c = to_lower_ascii(c);
  return "lease-" + sha256_hex(lower).substr(0, 32) + ".lic";
}

// The activation file's reasons, said of a lease file.
std::string lease_file_problem_message(ActivationFileProblem problem) {
  switch (problem) {
    case ActivationFileProblem::kNone:
      return "the lease file is valid";
    case ActivationFileProblem::kMalformed:
      return "this is not a readable lease file";
    case ActivationFileProblem::kUnknownKey:
      return "the lease file is signed by a key this software does not trust";
    case ActivationFileProblem::kBadSignature:
      return "the lease file's signature does not verify: it was changed or forged";
    case ActivationFileProblem::kOtherMachine:
      return "the lease file is for another computer";
    case ActivationFileProblem::kOtherProduct:
      return "the lease file is for another product";
    case ActivationFileProblem::kOtherLicense:
      return "the lease file is for another license key";
    case ActivationFileProblem::kNotYetValid:
      return "the lease file is not valid yet: check this computer's date and time";
    case ActivationFileProblem::kExpired:
      return "the borrowed seat has ended: connect to the license server to take a seat";
    case ActivationFileProblem::kClockSetBack:
      return "this computer's clock is more than 24 hours behind a time already seen: set "
             "the date and time right";
  }
  return "this is not a readable lease file";
}

Answer answer_from(const LeaseFile& file, int64_t trusted_now) {
  Answer a;
  a.outcome = Outcome::kOk;
  a.source = Source::kLease;
  a.valid = true;
  a.body = file.payload;
  a.license_key = file.license_key;
  for (const FileEntitlement& e : file.entitlements) {
    a.entitlements.push_back({e.code, e.expires_at, e.active, e.value});
  }
  a.signed_at = file.issued_at;
  a.valid_until = file.expires_at;
  if (trusted_now >= file.expires_at - kLeaseWarningSeconds) {
    a.warning = "this computer's borrowed seat ends at " +
                format_timestamp(file.expires_at * 1000) +
                ": connect to the license server before then";
  }
  return a;
}

// The leaseFile member of a borrowing checkout's 200, "" when there is none.
std::string lease_file_member(const std::string& body) {
  boost::json::error_code ec;
  const boost::json::value v = boost::json::parse(body, ec);
  const boost::json::value* file =
      !ec && v.is_object() ? v.as_object().if_contains("leaseFile") : nullptr;
  return file != nullptr && file->is_string() ? std::string(file->as_string()) : "";
}

}  // namespace

std::filesystem::path Client::lease_file_path() const {
  return installed_file_path(lease_file_name(config_.license_key));
}

std::optional<std::pair<std::string, std::filesystem::path>> Client::installed_lease_file() const {
  return installed_file(lease_file_name(config_.license_key));
}

Answer Client::install_lease_file(std::string_view text) {
  if (pinned_.empty()) {
    return local_failure(Outcome::kUsage, "NO_PUBLIC_KEY",
                         "a lease file can be checked only with a pinned public key (public_key)");
  }
  const int64_t now = config_.clock->now_seconds();
  const LeaseFileRead read = verify_lease_file(
      text, pinned_,
      {config_.machine_id, config_.product, config_.license_key, now, cache_.latest_time()});
  if (read.problem != ActivationFileProblem::kNone || !read.file) {
    Answer a = local_failure(Outcome::kNotUsable, "LEASE_FILE_REFUSED",
                             lease_file_problem_message(read.problem));
    a.server_message = activation_file_problem_name(read.problem);
    return a;
  }
  // The text as received: what the start-up check reads back is exactly what was verified.
  if (!install_verified_file(lease_file_name(config_.license_key), text, now)) {
    return cannot_install("the lease file");
  }
  Answer a = answer_from(*read.file, std::max(now, cache_.latest_time().value_or(now)));
  a.file_text = std::string(text);
  return a;
}

Answer Client::install_lease_file_from(const std::filesystem::path& path) {
  const auto text = read_small_file(path);
  if (!text) {
    return local_failure(Outcome::kUsage, "CANNOT_READ",
                         "the lease file " + path.string() + " cannot be read");
  }
  return install_lease_file(*text);
}

std::optional<Answer> Client::lease_answer() const {
  if (pinned_.empty()) return std::nullopt;
  const auto installed = installed_lease_file();
  if (!installed) return std::nullopt;
  const int64_t now = config_.clock->now_seconds();
  const LeaseFileRead read = verify_lease_file(
      installed->first, pinned_,
      {config_.machine_id, config_.product, config_.license_key, now, cache_.latest_time()});
  if (read.problem != ActivationFileProblem::kNone || !read.file) return std::nullopt;
  cache_.remember_time(now);
  return answer_from(*read.file, trusted_now());
}

bool Client::remove_lease_file_of(const std::optional<std::string>& session_id) {
  if (pinned_.empty()) return false;
  const auto installed = installed_lease_file();
  if (!installed) return false;
  // Whatever the clock says: an expired file of this session goes too.
  const LeaseFileRead read = read_lease_file(installed->first, pinned_);
  if (!read.file || read.file->machine_id != config_.machine_id) return false;
  if (session_id) {
    const std::string& session = session_id->empty() ? config_.machine_id : *session_id;
    if (read.file->session_id != session) return false;
  }
  std::error_code ec;
  if (!std::filesystem::remove(installed->second, ec) || ec) return false;
  forget_startup_answer();
  return true;
}

void Client::install_borrowed_lease(Answer& a) {
  const std::string file = lease_file_member(a.body);
  if (file.empty()) {
    a.warning = "the license server's answer carries no lease file";
    return;
  }
  a.file_text = file;
  const Answer installed = install_lease_file(file);
  if (!installed.ok()) {
    a.warning = "the lease file was not installed: " + installed.message;
  }
}

}  // namespace licensed::client
