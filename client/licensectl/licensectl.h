#pragma once

namespace licensed::client {

// Parses argv, runs one command and returns the exit status of docs/protocol.md §16.
int run_licensectl(int argc, char** argv);

}  // namespace licensed::client
