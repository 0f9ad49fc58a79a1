// Child processes for the black-box tests: the server under test (ServerProcess) and
// one-shot commands such as the admin CLI (RunCommand). Children never inherit the
// test runner's LICENSED_* environment variables, only the ones a test gives them.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace bb {

using EnvVars = std::vector<std::pair<std::string, std::string>>;

// Our environment without LICENSED_* variables, plus `extra` (which wins).
std::vector<std::string> ChildEnvironment(const EnvVars& extra);

struct CommandResult {
  int exit_code = -1;  // the exit status, or 128 + signal number when killed
  std::string out;
  std::string err;
  std::string Describe() const;  // for failure messages
};

// Runs argv (argv[0] is a path) with stdin from /dev/null, capturing stdout and stderr.
// A command still running after `timeout` is killed (exit_code 128 + SIGKILL).
CommandResult RunCommand(const std::vector<std::string>& argv, const EnvVars& env = {},
                         std::chrono::seconds timeout = std::chrono::seconds(30));

// The port of a ready line: "listening on <digits and dots>:<port>" anywhere in `line`.
std::optional<std::uint16_t> ParseReadyPort(std::string_view line);

// A long-running child whose stdout and stderr are read by a thread into one log.
class ServerProcess {
 public:
  // Starts argv at once; throws when fork/exec fails.
  ServerProcess(const std::vector<std::string>& argv, const EnvVars& env);
  // SIGTERM, then SIGKILL if it does not exit in time; always reaps the child.
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Waits until the log has a line matching `listening on [0-9.]+:(\d+)`; throws with
  // the log when the child exits first or the deadline passes.
  void WaitReady(std::chrono::seconds deadline = std::chrono::seconds(30));

  std::uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }
  // Unix seconds (rounded down) read just before the fork.
  std::int64_t spawn_time() const { return spawn_time_; }
  // Everything the child wrote so far on stdout and stderr.
  std::string log() const;
  // Waits (up to a generous deadline, for slow machines) until the log has `text`: a line
  // the server logs before it answers can still be in the pipe when the answer arrives.
  bool LogEventually(std::string_view text,
                     std::chrono::seconds deadline = std::chrono::seconds(30)) const;
  // The ready line, once WaitReady succeeded.
  std::string ready_line() const;

  // The wait status when the child has exited without us signalling it.
  std::optional<int> ExitedOnItsOwn();
  // SIGTERM, wait up to `grace`, then SIGKILL; returns the wait status (WIFEXITED ...).
  // Idempotent: later calls return the same status. Afterwards log() is complete.
  int Terminate(std::chrono::seconds grace = std::chrono::seconds(15));

 private:
  void ReadLoop();
  void JoinReader();

  pid_t pid_ = -1;
  int fd_ = -1;
  std::int64_t spawn_time_ = 0;
  std::thread reader_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string log_;
  std::string ready_line_;
  bool eof_ = false;
  std::uint16_t port_ = 0;
  std::optional<int> status_;
  bool signalled_ = false;
};

}  // namespace bb
