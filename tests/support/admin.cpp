#include "support/admin.h"

#include <stdexcept>

namespace bb {
namespace {

std::string Joined(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

// The one JSON document on stdout; tolerates log lines before it.
json::value ParseOutput(const std::string& out, const std::string& what) {
  try {
    return ParseJson(out);
  } catch (const std::exception&) {
  }
  const auto start = out.find_first_of("{[");
  if (start != std::string::npos) {
    try {
      return ParseJson(out.substr(start));
    } catch (const std::exception&) {
    }
  }
  throw std::runtime_error(what + ": stdout is not one JSON document:\n" + out);
}

}  // namespace

std::string LicensedBinary() {
  return LICENSED_BINARY;
}

void InitStore(const std::string& store) {
  const CommandResult r = RunCommand({LicensedBinary(), "init", "--store", store});
  if (r.exit_code != 0) throw std::runtime_error("licensed init failed: " + r.Describe());
}

CommandResult Admin::Run(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {LicensedBinary(), "admin", "--store", store_};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv);
}

std::string Admin::RunOk(const std::vector<std::string>& args) const {
  const CommandResult r = Run(args);
  if (r.exit_code != 0) {
    throw std::runtime_error("licensed admin " + Joined(args) + " failed: " + r.Describe());
  }
  return r.out;
}

void Admin::CreateProduct(const std::string& slug, const std::string& name) const {
  RunOk({"product", "create", "--slug", slug, "--name", name});
}

std::string Admin::CreateLicense(const std::string& product, int max,
                                 const std::optional<std::string>& expires_at,
                                 const std::optional<std::string>& machine_ttl) const {
  std::vector<std::string> args = {"license", "create", "--product",
                                   product,   "--max",  std::to_string(max)};
  if (expires_at) {
    args.push_back("--expires-at");
    args.push_back(*expires_at);
  }
  if (machine_ttl) {
    args.push_back("--machine-ttl");
    args.push_back(*machine_ttl);
  }
  args.push_back("--json");
  const json::value v = ParseOutput(RunOk(args), "license create");
  return Str(v, "licenseKey");
}

json::value Admin::Show(const std::string& key) const {
  return ParseOutput(RunOk({"license", "show", key, "--json"}), "license show");
}

json::value Admin::Audit(const std::string& key) const {
  json::value v = ParseOutput(RunOk({"audit", key, "--json"}), "audit");
  if (!v.is_array()) throw std::runtime_error("audit --json is not an array: " + Dump(v));
  return v;
}

void Admin::SetStatus(const std::string& key, const std::string& status) const {
  RunOk({"license", "set-status", key, status});
}

void Admin::SetMax(const std::string& key, int max) const {
  RunOk({"license", "set-max", key, std::to_string(max)});
}

void Admin::Delete(const std::string& key) const {
  RunOk({"license", "delete", key});
}

}  // namespace bb
