#include "support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

extern char** environ;

namespace bb {
namespace {

// The child side of fork: only async-signal-safe calls from here to execve.
[[noreturn]] void ExecChild(char* const* argv, char* const* envp, int in_fd, int out_fd, int err_fd,
                            pid_t parent) {
  // Die with the test runner, so a crashed run leaves no servers behind.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  ::sigaction(SIGPIPE, &dfl, nullptr);
  ::sigaction(SIGTERM, &dfl, nullptr);
  ::sigaction(SIGINT, &dfl, nullptr);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (::dup2(in_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) ::_exit(127);
  ::execve(argv[0], argv, envp);
  static const char kMsg[] = "blackbox: execve failed\n";
  (void)!::write(2, kMsg, sizeof kMsg - 1);
  ::_exit(127);
}

struct CArgs {
  std::vector<std::string> storage;
  std::vector<char*> ptrs;
  explicit CArgs(std::vector<std::string> items) : storage(std::move(items)) {
    for (auto& s : storage) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
  }
  char* const* get() { return ptrs.data(); }
};

int OpenDevNull() {
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(std::string("open /dev/null: ") + std::strerror(errno));
  return fd;
}

void MakePipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  }
}

pid_t Spawn(const std::vector<std::string>& argv, const EnvVars& env, int out_fd, int err_fd) {
  if (argv.empty()) throw std::invalid_argument("empty argv");
  CArgs args(argv);
  CArgs envp(ChildEnvironment(env));
  const int in_fd = OpenDevNull();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) ExecChild(args.get(), envp.get(), in_fd, out_fd, err_fd, parent);
  const int saved = errno;
  ::close(in_fd);
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(saved));
  return pid;
}

int DecodeExit(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "wait status " + std::to_string(status);
}

}  // namespace

std::vector<std::string> ChildEnvironment(const EnvVars& extra) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    if (entry.rfind("LICENSED_", 0) == 0) continue;
    const auto eq = entry.find('=');
    const std::string name = entry.substr(0, eq);
    bool overridden = false;
    for (const auto& [k, v] : extra) overridden = overridden || k == name;
    if (!overridden) out.push_back(entry);
  }
  for (const auto& [k, v] : extra) out.push_back(k + "=" + v);
  return out;
}

std::string CommandResult::Describe() const {
  return "exit " + std::to_string(exit_code) + "\n--- stdout ---\n" + out + "\n--- stderr ---\n" +
         err;
}

CommandResult RunCommand(const std::vector<std::string>& argv, const EnvVars& env,
                         std::chrono::seconds timeout) {
  int out_pipe[2];
  int err_pipe[2];
  MakePipe(out_pipe);
  try {
    MakePipe(err_pipe);
  } catch (...) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    throw;
  }
  pid_t pid;
  try {
    pid = Spawn(argv, env, out_pipe[1], err_pipe[1]);
  } catch (...) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    throw;
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);

  CommandResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_count = 2;
  bool timed_out = false;
  char buf[8192];
  while (open_count > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    const int n = ::poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, static_cast<size_t>(got));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  if (timed_out) ::kill(pid, SIGKILL);
  for (auto& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = DecodeExit(status);
  if (timed_out) result.err += "\n[blackbox: killed after timeout]";
  return result;
}

std::optional<std::uint16_t> ParseReadyPort(std::string_view line) {
  static constexpr std::string_view kMarker = "listening on ";
  for (std::size_t at = line.find(kMarker); at != std::string_view::npos;
       at = line.find(kMarker, at + 1)) {
    std::size_t i = at + kMarker.size();
    const std::size_t host_start = i;
    while (i < line.size() && ((line[i] >= '0' && line[i] <= '9') || line[i] == '.')) ++i;
    if (i == host_start || i >= line.size() || line[i] != ':') continue;
    const std::size_t port_start = ++i;
    unsigned long port = 0;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9' && port <= 65535) {
      port = port * 10 + static_cast<unsigned long>(line[i] - '0');
      ++i;
    }
    if (i == port_start || port > 65535) continue;
    return static_cast<std::uint16_t>(port);
  }
  return std::nullopt;
}

ServerProcess::ServerProcess(const std::vector<std::string>& argv, const EnvVars& env) {
  int fds[2];
  MakePipe(fds);
  spawn_time_ = static_cast<std::int64_t>(std::time(nullptr));
  try {
    pid_ = Spawn(argv, env, fds[1], fds[1]);
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  ::close(fds[1]);
  fd_ = fds[0];
  reader_ = std::thread([this] { ReadLoop(); });
}

ServerProcess::~ServerProcess() {
  Terminate(std::chrono::seconds(10));
  JoinReader();
}

void ServerProcess::ReadLoop() {
  char buf[4096];
  std::string pending;  // the current, unfinished line
  for (;;) {
    const ssize_t got = ::read(fd_, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    std::lock_guard lock(mu_);
    log_.append(buf, static_cast<size_t>(got));
    if (port_ != 0) continue;
    pending.append(buf, static_cast<size_t>(got));
    std::size_t nl;
    while (port_ == 0 && (nl = pending.find('\n')) != std::string::npos) {
      const std::string line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      if (const auto port = ParseReadyPort(line); port && *port != 0) {
        port_ = *port;
        ready_line_ = line;
      }
    }
    if (port_ != 0) cv_.notify_all();
  }
  std::lock_guard lock(mu_);
  if (port_ == 0) {  // a ready line without a trailing newline
    if (const auto port = ParseReadyPort(pending); port && *port != 0) {
      port_ = *port;
      ready_line_ = pending;
    }
  }
  eof_ = true;
  cv_.notify_all();
}

void ServerProcess::JoinReader() {
  if (reader_.joinable()) reader_.join();
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

void ServerProcess::WaitReady(std::chrono::seconds deadline) {
  std::unique_lock lock(mu_);
  const bool ok = cv_.wait_for(lock, deadline, [this] { return port_ != 0 || eof_; });
  if (port_ != 0) return;
  const std::string log = log_;
  lock.unlock();
  std::string why = ok ? "the server closed its output (exited?) before the ready line"
                       : "no ready line within " + std::to_string(deadline.count()) + " s";
  if (auto st = ExitedOnItsOwn()) why += "; it " + DescribeStatus(*st);
  throw std::runtime_error("licensed serve did not become ready: " + why + "\n--- log ---\n" + log);
}

std::string ServerProcess::log() const {
  std::lock_guard lock(mu_);
  return log_;
}

bool ServerProcess::LogEventually(std::string_view text, std::chrono::seconds deadline) const {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (log().find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

std::string ServerProcess::ready_line() const {
  std::lock_guard lock(mu_);
  return ready_line_;
}

std::optional<int> ServerProcess::ExitedOnItsOwn() {
  if (signalled_) return std::nullopt;
  if (status_) return status_;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    status_ = status;
    return status_;
  }
  return std::nullopt;
}

int ServerProcess::Terminate(std::chrono::seconds grace) {
  if (status_) {
    JoinReader();
    return *status_;
  }
  if (pid_ <= 0) return -1;
  if (ExitedOnItsOwn()) {
    JoinReader();
    return *status_;
  }
  signalled_ = true;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
    if (r < 0 && errno != EINTR) {
      status = -1;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  status_ = status;
  JoinReader();  // the child is gone, so its output ends
  return status;
}

}  // namespace bb
