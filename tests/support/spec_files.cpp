#include "support/spec_files.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace bb {

std::filesystem::path RepoRoot() {
  // This file is <repo>/tests/support/spec_files.cpp.
  const std::filesystem::path self = std::filesystem::absolute(__FILE__);
  return self.parent_path().parent_path().parent_path();
}

std::filesystem::path SpecDir() {
  return std::filesystem::weakly_canonical(RepoRoot() / ".." / "shared" / "spec");
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace bb
