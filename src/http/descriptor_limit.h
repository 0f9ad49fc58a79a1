// How many descriptors the process may hold, and how many connections that leaves room
// for. Every connection is a descriptor; once they run out, accept() fails (EMFILE)
// long before --max-connections is reached, and so does everything else that opens one
// (the store, Redis, the admin listener). systemd's default soft limit is 1024 and the
// default cap 10000, so at start the soft limit is raised to the hard one (the kernel
// lets any process do that) and the cap is kept below what the descriptors allow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace licensed {

// Raises the soft RLIMIT_NOFILE to the hard limit; returns the soft limit then in force
// (the old one when raising failed), or nullopt when it is unlimited or unreadable.
std::optional<uint64_t> raise_descriptor_limit();

// Descriptors kept for everything but client connections: standard streams, logs, the
// SQLite files or PostgreSQL connections (`store_pool_size`, 0 meaning the default 8),
// the serve lock, Redis connections and each network thread's reactor (epoll, eventfd,
// timerfd), the admin listener and its 64 connections, Sentry, name lookups. Counted
// generously: running short of these fails a store call or a Redis command, which is
// worse than refusing one more client.
size_t descriptors_kept_aside(size_t network_threads, size_t store_pool_size);

// `wanted` connections, or fewer so that `kept_aside` of `descriptors` remain for the
// rest. Under a limit too small for both, half of it still goes to connections: a
// server that refuses every client is no safer than one that runs short elsewhere.
size_t connections_within(uint64_t descriptors, size_t kept_aside, size_t wanted);

}  // namespace licensed
