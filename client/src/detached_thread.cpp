#include "detached_thread.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>

#include "auth/crypto_primitives.h"

namespace licensed::client {

namespace {

std::atomic<bool> exiting{false};
std::atomic<int> running{0};

// Never destroyed: threads may read it during and after exit.
std::stop_source& exit_source() {
  static auto* source = new std::stop_source;
  return *source;
}

void stop_threads_at_exit() {
  exiting = true;
  exit_source().request_stop();
  const auto until = std::chrono::steady_clock::now() + kExitWait;
  while (running > 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

void prepare_process() {
  static std::once_flag once;
  std::call_once(once, [] {
    crypto::keep_state_until_process_end();
    std::atexit(stop_threads_at_exit);
  });
}

bool process_exiting() {
  return exiting;
}

std::stop_token process_exit_token() {
  return exit_source().get_token();
}

void keep_this_module_loaded() {
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(_WIN32)
    HMODULE self = nullptr;
    GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                       reinterpret_cast<LPCWSTR>(&keep_this_module_loaded), &self);
#else
    // RTLD_NOLOAD: only a new reference to what is loaded already; RTLD_NODELETE: never
    // unmapped, whatever dlclose is called later. The handle is kept on purpose.
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&keep_this_module_loaded), &info) != 0 &&
        info.dli_fname != nullptr) {
      (void)dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
    }
#endif
  });
}

bool start_detached(std::function<void()> work) {
  prepare_process();
  keep_this_module_loaded();
  try {
    ++running;
    std::thread([work = std::move(work)] {
      work();
      --running;
    }).detach();
    return true;
  } catch (const std::system_error&) {
    --running;
    return false;  // out of threads: the caller answers without this work
  }
}

}  // namespace licensed::client
