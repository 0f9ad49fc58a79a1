// Where log lines go: standard output (serve's default), standard error (admin commands,
// whose standard output is their answer, so that `--json | jq` reads only JSON), or a
// file (`--log-file`) that SIGHUP reopens after logrotate moved it away.
#pragma once

#include <string>

#include "core/result.h"

namespace licensed {

// The default logger writes to standard error from now on.
void log_to_stderr();

// The default logger appends to `path` (made 0600 under the process's umask) from now
// on; an error naming the file when it cannot be opened, and logging is left as it was.
Status log_to_file(const std::string& path);

// Closes and opens the log file again by its path, so that lines go to a new file once
// logrotate moved the old one; nothing when logging to a standard stream. An error when
// the file cannot be opened again (lines then keep going to the old one).
Status reopen_log_file();

}  // namespace licensed
