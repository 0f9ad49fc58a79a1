// The one way the SDK starts a thread: detached, so that nothing ever waits for it (a
// host unloading a plugin or exiting must not wait for a name lookup that never
// returns), with the shared library that holds its code kept loaded.
//
// The trade-off, documented in license_client.h: once the SDK has started a thread, the
// library stays mapped until the process exits (dlclose leaves it, FreeLibrary too),
// because a detached thread may still be running its code. Everything such a thread
// touches is its own (held by shared_ptr), so it never reaches a freed client.
//
// At process exit the threads are ended with the process, but exit first runs the
// libraries' cleanups, and a thread inside OpenSSL while OpenSSL frees its locks crashes
// the host on its way out. So the SDK asks its crypto library not to clean up at exit
// (crypto::keep_state_until_process_end: OpenSSL's OPENSSL_INIT_NO_ATEXIT when it is the
// first to start OpenSSL; Windows CNG frees nothing at exit), and otherwise an exit
// handler of its own, run before OpenSSL's, tells its threads to stop (the transport
// aborts its exchange) and waits for them for at most kExitWait: a thread stuck in a
// name lookup delays the exit by that much at most, and is not inside OpenSSL.
#pragma once

#include <chrono>
#include <functional>
#include <stop_token>

namespace licensed::client {

inline constexpr std::chrono::milliseconds kExitWait{200};

// True once the process has begun to exit: work in flight gives up.
bool process_exiting();
// Requested when the process begins to exit, so that every wait of the SDK wakes.
std::stop_token process_exit_token();

// What the SDK does once per process before it uses its crypto library or starts a
// thread (see above): called first thing when a client is made.
void prepare_process();

// Runs `work` on a new detached thread. False when no thread could be started (then
// `work` has not run).
bool start_detached(std::function<void()> work);

// Pins the module (shared library or executable) this code is linked into, once.
void keep_this_module_loaded();

}  // namespace licensed::client
