// The admin CLI (`licensed admin --store S ...`), run as a separate process, the way an
// operator runs it, possibly while the server runs on the same SQLite file.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "support/json_util.h"
#include "support/process.h"

namespace bb {

// Path of the server binary under test (the LICENSED_BINARY macro).
std::string LicensedBinary();

// `licensed init --store <store>`: creates the empty store (throws when it fails).
void InitStore(const std::string& store);

class Admin {
 public:
  explicit Admin(std::string store) : store_(std::move(store)) {}

  // `licensed admin --store <store> args...`; never throws on a non-zero exit.
  CommandResult Run(const std::vector<std::string>& args) const;

  // The helpers below throw std::runtime_error (with the output) when the exit status
  // is not 0 or the output is not what the contract says.
  void CreateProduct(const std::string& slug, const std::string& name) const;
  // Returns the new license's key. `machine_ttl` is --machine-ttl's DURATION ("10m").
  std::string CreateLicense(const std::string& product, int max,
                            const std::optional<std::string>& expires_at = std::nullopt,
                            const std::optional<std::string>& machine_ttl = std::nullopt) const;
  json::value Show(const std::string& key) const;   // `license show KEY --json`
  json::value Audit(const std::string& key) const;  // `audit KEY --json`
  void SetStatus(const std::string& key, const std::string& status) const;
  void SetMax(const std::string& key, int max) const;
  void Delete(const std::string& key) const;
  // Any command that must succeed: its standard output (throws as the helpers above).
  std::string RunOk(const std::vector<std::string>& args) const;

 private:
  std::string store_;
};

}  // namespace bb
