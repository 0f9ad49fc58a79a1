#include "core/private_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace licensed {

std::optional<std::string> write_new_private_file(const std::string& path, std::string_view data) {
  // O_EXCL: an existing file is never overwritten (it may be the key plugins pinned).
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int err = errno;
    if (err == EEXIST) return path + ": the file exists; not overwriting it";
    return path + ": cannot create the file: " + std::strerror(err);
  }
  size_t written = 0;
  int err = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = errno;
      break;
    }
    written += static_cast<size_t>(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(path.c_str());
    return path + ": cannot write the file: " + std::strerror(err);
  }
  return std::nullopt;
}

void make_created_files_private() {
  ::umask(077);
}

std::vector<ExposedFile> files_open_to_others(const std::vector<std::string>& paths) {
  std::vector<ExposedFile> out;
  for (const auto& path : paths) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;
    const unsigned mode = st.st_mode & 07777;
    if ((mode & 077) != 0) out.push_back({path, mode});
  }
  return out;
}

}  // namespace licensed
