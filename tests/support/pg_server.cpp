#include "support/pg_server.h"

#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace bb {
namespace {

// scripts/postgres.sh of this checkout, found from this file's own path (relative to the
// build directory, where CTest runs the tests, when the compiler was given one).
std::string ScriptPath() {
  const std::filesystem::path source = std::filesystem::absolute(std::filesystem::path(__FILE__))
                                           .parent_path()
                                           .parent_path()
                                           .parent_path();
  return (source / "scripts" / "postgres.sh").string();
}

}  // namespace

PgServer::PgServer() {
  url_ = Script("start", true);
  while (!url_.empty() && (url_.back() == '\n' || url_.back() == ' ')) url_.pop_back();
}

PgServer::~PgServer() {
  Script("stop", false);
}

void PgServer::Restart() {
  Script("restart", true);
}

std::string PgServer::Script(const std::string& command, bool check) {
  const std::string line = ScriptPath() + " " + command + " " + dir_.path().string() + " 2>&1";
  std::string out;
  FILE* p = ::popen(line.c_str(), "r");
  if (p == nullptr) {
    if (check) throw std::runtime_error("cannot run " + line);
    return out;
  }
  char buf[512];
  while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  const int status = ::pclose(p);
  if (check && status != 0) throw std::runtime_error(line + " failed: " + out);
  return out;
}

}  // namespace bb
