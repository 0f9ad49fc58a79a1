// The command line's one translation of an internal status: the exit code of `licensed
// admin ...` and `licensed serve` (docs/protocol.md §18) and the words on stderr. The
// operator may see everything, the store's own words included (a client never does).
#pragma once

#include <string>

#include "core/status.h"

namespace licensed {

inline constexpr int kExitOk = 0;
// An operation refused, bad input included (a value that does not parse, an unknown
// status), and a store, Redis or listener that cannot be used.
inline constexpr int kExitRefused = 1;
// A command line (or configuration) that does not say what to do.
inline constexpr int kExitUsage = 2;

// What the command was doing when it failed: reading its configuration (`licensed
// serve`'s flags, environment, file and the files they name), or running (an admin
// operation; serve starting its store, Redis and listeners).
enum class CliStage { kConfiguration, kRunning };

int exit_code_of(StatusCode code, CliStage stage);
// The line after "licensed admin: " (or "licensed: "): the message, under the name of
// what failed when the message is a store's or a bug's detail.
std::string cli_error_text(const Error& error);

}  // namespace licensed
