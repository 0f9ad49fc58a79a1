#pragma once

namespace licensed::client {

// Parses argv, runs one command and returns the exit status of spec section 11.
int run_licensectl(int argc, char** argv);

}  // namespace licensed::client
