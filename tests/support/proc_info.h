// What /proc tells about a process under test: the CPU time it has used and the
// descriptors it holds, for tests that show a server does not spin or runs out of
// descriptors.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace bb {

// User plus system CPU time the process has used, in seconds (-1 when unreadable).
double CpuSeconds(pid_t pid);
// Descriptors the process holds open now (0 when unreadable).
std::size_t OpenDescriptors(pid_t pid);

}  // namespace bb
