#include "platform/private_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>

#if defined(_WIN32)
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace licensed::client {

namespace {

// Not a secret: it only keeps two writers' temporary files apart (creation is exclusive).
std::string temporary_suffix() {
  std::random_device random;
  std::ostringstream out;
  out << std::hex << random() << random();
  return out.str();
}

#if defined(_WIN32)
bool write_new_file(const std::filesystem::path& path, const std::string& text) {
  // CREATE_NEW: never a file someone planted. The wide-character API: any user name.
  HANDLE file = CreateFileW(path.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                            FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE) return false;
  size_t done = 0;
  bool ok = true;
  while (ok && done < text.size()) {
    DWORD written = 0;
    const DWORD chunk = static_cast<DWORD>(std::min<size_t>(text.size() - done, 1u << 20));
    ok = WriteFile(file, text.data() + done, chunk, &written, nullptr) && written > 0;
    done += written;
  }
  ok = ok && FlushFileBuffers(file);
  return CloseHandle(file) && ok;
}

bool rename_over(const std::filesystem::path& from, const std::filesystem::path& to) {
  return MoveFileExW(from.c_str(), to.c_str(),
                     MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) != 0;
}

void sync_dir(const std::filesystem::path&) {}  // MOVEFILE_WRITE_THROUGH did it
#else
bool write_new_file(const std::filesystem::path& path, const std::string& text,
                    mode_t mode = 0600) {
  const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode);
  if (fd < 0) return false;
  size_t done = 0;
  bool ok = true;
  while (ok && done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  return ::close(fd) == 0 && ok;
}

bool rename_over(const std::filesystem::path& from, const std::filesystem::path& to) {
  return ::rename(from.c_str(), to.c_str()) == 0;
}

// Best effort: makes the rename itself durable.
void sync_dir(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}
#endif

}  // namespace

namespace {

bool make_dir(const std::filesystem::path& dir, [[maybe_unused]] unsigned mode) {
  std::error_code ec;
#if defined(_WIN32)
  std::filesystem::create_directories(dir, ec);
#else
  if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), ec);
  if (::mkdir(dir.c_str(), static_cast<mode_t>(mode)) != 0 && errno != EEXIST) return false;
#endif
  return std::filesystem::is_directory(dir, ec);
}

bool replace_file(const std::filesystem::path& target, const std::string& text,
                  [[maybe_unused]] unsigned mode) {
  std::filesystem::path temp = target;
  temp += ".tmp-" + temporary_suffix();
  std::error_code ec;
#if defined(_WIN32)
  const bool written = write_new_file(temp, text);
#else
  const bool written = write_new_file(temp, text, static_cast<mode_t>(mode));
#endif
  if (!written || !rename_over(temp, target)) {
    std::filesystem::remove(temp, ec);
    return false;
  }
  sync_dir(target.parent_path());
  return true;
}

}  // namespace

bool make_private_dir(const std::filesystem::path& dir) {
  return make_dir(dir, 0700);
}

bool replace_private_file(const std::filesystem::path& target, const std::string& text) {
  return replace_file(target, text, 0600);
}

bool make_shared_dir(const std::filesystem::path& dir) {
  return make_dir(dir, 0755);
}

bool replace_shared_file(const std::filesystem::path& target, const std::string& text) {
  return replace_file(target, text, 0644);
}

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

}  // namespace licensed::client
