// Offline activation in the SDK (docs/protocol.md §21.8):
// writing request and deactivation files, installing an activation file in the vendor's
// machine-wide directory (platform/user_dirs.h, machine_file_dirs) and answering the
// start-up check from it with no network (source offline). The file formats and their
// verification are licensed_signing's (auth/offline_file.h), shared with licensectl.
//
// Nothing here touches the network or waits on anything but a small file; the start-up
// check reads the file as it reads the answer cache.
#include <boost/json.hpp>

#include "auth/armour.h"
#include "auth/offline_file.h"
#include "auth/request_signature.h"
#include "core/text.h"
#include "core/timestamp.h"
#include "installed_files.h"
#include "license_client.h"
#include "platform/private_file.h"

namespace licensed::client {

namespace {

// A warning from this long before the file's end (docs/protocol.md §21.8).
constexpr int64_t kRenewWarningSeconds = 14 * 24 * 60 * 60;

// A request file (no `activation_id`) or a deactivation file of this machine, signed at
// `timestamp` with a fresh nonce; a failure when there is no nonce or (a deactivation) the
// id is not one the server issues.
Answer signed_offline_file(const ClientConfig& config, int64_t timestamp,
                           std::optional<std::string> activation_id) {
  const std::string nonce = random_128_bit_hex();
  if (nonce.empty()) {
    return local_failure(Outcome::kUnavailable, "RANDOM",
                         "the system's random number generator failed (no nonce to sign with)");
  }
  const bool deactivation = activation_id.has_value();
  const OfflineRequestInput input{config.key_id,           config.secret, config.license_key,
                                  config.machine_id,       timestamp,     nonce,
                                  std::move(activation_id)};
  Answer a;
  a.outcome = Outcome::kOk;
  a.license_key = config.license_key;
  a.file_text = deactivation ? write_deactivation_file(input) : write_request_file(input);
  if (a.file_text.empty()) {
    return local_failure(Outcome::kNotUsable, "ACTIVATION_FILE_REFUSED",
                         "the activation file's id is not one the license server issues");
  }
  return a;
}

// One file per license key, named by a hash of it (lowercase): several products and
// licenses of one vendor share the directory.
std::string activation_file_name(std::string_view license_key) {
  std::string lower(license_key);
  for (char& c : lower) c = to_lower_ascii(c);
  return "activation-" + sha256_hex(lower).substr(0, 32) + ".lic";
}

std::vector<EntitlementInfo> entitlements_of(const ActivationFile& file) {
  std::vector<EntitlementInfo> out;
  for (const FileEntitlement& e : file.entitlements) {
    out.push_back({e.code, e.expires_at, e.active, e.value});
  }
  return out;
}

Answer answer_from(const ActivationFile& file, int64_t trusted_now) {
  Answer a;
  a.outcome = Outcome::kOk;
  a.source = Source::kOffline;
  a.valid = true;
  a.body = file.payload;
  a.license_status = file.status;
  a.license_key = file.license_key;
  a.max = file.max;
  a.entitlements = entitlements_of(file);
  a.expires_at = file.license_expires_at;
  a.signed_at = file.issued_at;
  a.valid_until = file.expires_at;
  if (trusted_now >= file.expires_at - kRenewWarningSeconds) {
    a.warning = "this computer's offline activation ends on " +
                format_timestamp(file.expires_at * 1000).substr(0, 10) +
                ": make a new activation request before then";
  }
  return a;
}

}  // namespace

std::vector<std::filesystem::path> Client::offline_dirs() const {
  if (config_.offline_dir) return {*config_.offline_dir};
  return machine_file_dirs(config_.vendor.empty() ? "licensed-client" : config_.vendor);
}

std::filesystem::path Client::activation_file_path() const {
  return installed_file_path(activation_file_name(config_.license_key));
}

std::optional<std::pair<std::string, std::filesystem::path>> Client::installed_activation_file()
    const {
  return installed_file(activation_file_name(config_.license_key));
}

Answer Client::write_offline_request() {
  if (config_.license_key.empty()) {
    return local_failure(Outcome::kUsage, "USAGE", "an activation request needs the license key");
  }
  return signed_offline_file(config_, config_.clock->now_seconds() + clock_offset_seconds(),
                             std::nullopt);
}

Answer Client::install_activation_file(std::string_view text) {
  if (pinned_.empty()) {
    return local_failure(Outcome::kUsage, "NO_PUBLIC_KEY",
                         "an activation file can be checked only with a pinned public key "
                         "(public_key)");
  }
  const int64_t now = config_.clock->now_seconds();
  const ActivationFileRead read = verify_activation_file(
      text, pinned_,
      {config_.machine_id, config_.product, config_.license_key, now, cache_.latest_time()});
  if (read.problem != ActivationFileProblem::kNone || !read.file) {
    Answer a = local_failure(Outcome::kNotUsable, "ACTIVATION_FILE_REFUSED",
                             activation_file_problem_message(read.problem));
    a.server_message = activation_file_problem_name(read.problem);
    return a;
  }
  // Install the text as received: what is read back is exactly what was verified.
  if (!install_verified_file(activation_file_name(config_.license_key), text, now)) {
    return cannot_install("the activation file");
  }
  Answer a = answer_from(*read.file, std::max(now, cache_.latest_time().value_or(now)));
  a.file_text = std::string(text);
  return a;
}

Answer Client::install_activation_file_from(const std::filesystem::path& path) {
  const auto text = read_small_file(path);
  if (!text) {
    return local_failure(Outcome::kUsage, "CANNOT_READ",
                         "the activation file " + path.string() + " cannot be read");
  }
  return install_activation_file(*text);
}

std::optional<Answer> Client::offline_answer() const {
  if (pinned_.empty()) return std::nullopt;
  const auto installed = installed_activation_file();
  if (!installed) return std::nullopt;
  const int64_t now = config_.clock->now_seconds();
  const ActivationFileRead read = verify_activation_file(
      installed->first, pinned_,
      {config_.machine_id, config_.product, config_.license_key, now, cache_.latest_time()});
  if (read.problem != ActivationFileProblem::kNone || !read.file) return std::nullopt;
  if (read.file->status != "ACTIVE") return std::nullopt;
  cache_.remember_time(now);
  return answer_from(*read.file, trusted_now());
}

Answer Client::submit_offline_file(std::string_view armoured, std::stop_token stop) {
  const auto request = read_offline_request(armoured);
  if (!request) {
    return local_failure(Outcome::kUsage, "NOT_AN_OFFLINE_REQUEST",
                         "this is neither an activation request file nor a deactivation file");
  }
  const bool deactivation = request->kind == OfflineFileKind::kDeactivation;
  boost::json::object body;
  body["request"] = std::string(armoured);
  Answer a = call(deactivation ? "offline-deactivate" : "offline-activate",
                  boost::json::serialize(body), config_.timeout, nullptr, std::move(stop));
  if (a.ok() && !deactivation) {
    boost::json::error_code ec;
    const boost::json::value v = boost::json::parse(a.body, ec);
    const boost::json::value* file =
        !ec && v.is_object() ? v.as_object().if_contains("activationFile") : nullptr;
    if (file == nullptr || !file->is_string()) {
      a.outcome = Outcome::kUnavailable;
      a.error = "BAD_ANSWER";
      a.message = "the license server's answer carries no activation file";
      return a;
    }
    a.file_text = std::string(file->as_string());
  }
  explain(a);
  return a;
}

Answer Client::write_offline_deactivation() {
  if (pinned_.empty()) {
    return local_failure(
        Outcome::kUsage, "NO_PUBLIC_KEY",
        "an activation file can be read only with a pinned public key (public_key)");
  }
  const auto installed = installed_activation_file();
  if (!installed) {
    return local_failure(Outcome::kNotUsable, "NO_ACTIVATION_FILE",
                         "no activation file of this license is installed on this computer");
  }
  // Its id, from a file this machine's: the clock does not matter for giving it back.
  const ActivationFileRead read = read_activation_file(installed->first, pinned_);
  if (!read.file || read.file->machine_id != config_.machine_id) {
    return local_failure(Outcome::kNotUsable, "ACTIVATION_FILE_REFUSED",
                         activation_file_problem_message(
                             read.file ? ActivationFileProblem::kOtherMachine : read.problem));
  }
  Answer a = signed_offline_file(config_, config_.clock->now_seconds() + clock_offset_seconds(),
                                 read.file->id);
  if (!a.ok()) return a;
  // First the local file goes, then the deactivation file exists (docs/protocol.md §21.8).
  std::error_code ec;
  if (!std::filesystem::remove(installed->second, ec) || ec) {
    return local_failure(Outcome::kUnavailable, "CANNOT_DELETE",
                         "the activation file " + installed->second.string() +
                             " could not be deleted, so no deactivation file was written");
  }
  forget_startup_answer();
  return a;
}

}  // namespace licensed::client
