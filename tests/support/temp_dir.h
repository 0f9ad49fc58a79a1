// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
#pragma once

#include <filesystem>
#include <string>

namespace bb {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `content` to path()/name and returns the full path.
  std::filesystem::path WriteFile(const std::string& name, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

}  // namespace bb
