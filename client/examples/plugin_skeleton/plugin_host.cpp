// A stand-in for a DAW, for the plugin skeleton: loads the plugin library, makes an
// instance, runs its audio on a thread of its own (like a host's audio callback), shows
// the editor's text as an editor's timer would, presses Activate when asked, then stops
// the audio, destroys the instance and unloads the library.
//
//   plugin_host PLUGIN_LIBRARY [--activate]
//
// The audio thread feeds blocks of 1.0 and sorts what comes back: dry (1.0, bypassed),
// effect (0.5), silent (0) or other. Before each step it waits for the audio thread to
// process more blocks, so the audio ran through every step. Exit status: 0 when every
// step completed, 1 when one did not within a minute, 2 on a usage or loading error.
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <iostream>
#include <string>
#include <thread>

#include "plugin_api.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace {

// The library and the plugin's entry points.
class PluginLibrary {
 public:
  explicit PluginLibrary(const std::string& path) {
#if defined(_WIN32)
    handle_ = LoadLibraryA(path.c_str());
    if (handle_ == nullptr)
      error_ = "LoadLibrary failed with error " + std::to_string(GetLastError());
#else
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) error_ = dlerror();
#endif
    if (handle_ == nullptr) return;
    create = symbol<decltype(create)>("plugin_create");
    process = symbol<decltype(process)>("plugin_process");
    editor_text = symbol<decltype(editor_text)>("plugin_editor_text");
    editor_busy = symbol<decltype(editor_busy)>("plugin_editor_busy");
    activate = symbol<decltype(activate)>("plugin_activate");
    destroy = symbol<decltype(destroy)>("plugin_destroy");
  }
  ~PluginLibrary() {
    if (handle_ == nullptr) return;
#if defined(_WIN32)
    FreeLibrary(static_cast<HMODULE>(handle_));
#else
    dlclose(handle_);
#endif
  }
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  bool loaded() const {
    return create != nullptr && process != nullptr && editor_text != nullptr &&
           editor_busy != nullptr && activate != nullptr && destroy != nullptr;
  }
  const std::string& error() const {
    return error_;
  }

  plugin* (*create)() = nullptr;
  void (*process)(plugin*, float*, int) = nullptr;
  size_t (*editor_text)(plugin*, char*, size_t) = nullptr;
  int (*editor_busy)(plugin*) = nullptr;
  void (*activate)(plugin*) = nullptr;
  void (*destroy)(plugin*) = nullptr;

 private:
  template <typename F>
  F symbol(const char* name) {
#if defined(_WIN32)
    auto* f = reinterpret_cast<F>(GetProcAddress(static_cast<HMODULE>(handle_), name));
#else
    auto* f = reinterpret_cast<F>(dlsym(handle_, name));
#endif
    if (f == nullptr) error_ += std::string(error_.empty() ? "" : ", ") + "no " + name;
    return f;
  }
  void* handle_ = nullptr;
  std::string error_;
};

// The host's audio thread: one block after another, paced like a real-time callback.
class AudioThread {
 public:
  AudioThread(const PluginLibrary& lib, plugin* p)
      : thread_([this, &lib, p] {
          std::array<float, 256> block{};
          while (!stop_.load()) {
            block.fill(1.0F);
            lib.process(p, block.data(), static_cast<int>(block.size()));
            sort(block);
            blocks_.fetch_add(1);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
          }
        }) {}
  ~AudioThread() { stop(); }
  AudioThread(const AudioThread&) = delete;
  AudioThread& operator=(const AudioThread&) = delete;

  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  long blocks() const { return blocks_.load(); }
  std::string summary() const {
    return "blocks=" + std::to_string(blocks_.load()) +
           " silent=" + std::to_string(silent_.load()) + " dry=" + std::to_string(dry_.load()) +
           " effect=" + std::to_string(effect_.load()) + " other=" + std::to_string(other_.load());
  }

 private:
  void sort(const std::array<float, 256>& block) {
    const auto all = [&block](float v) {
      for (const float s : block) {
        if (s != v) return false;
      }
      return true;
    };
    if (all(0.0F)) {
      silent_.fetch_add(1);
    } else if (all(1.0F)) {
      dry_.fetch_add(1);
    } else if (all(0.5F)) {
      effect_.fetch_add(1);
    } else {
      other_.fetch_add(1);
    }
  }
  std::atomic<bool> stop_{false};
  std::atomic<long> blocks_{0}, silent_{0}, dry_{0}, effect_{0}, other_{0};
  std::thread thread_;  // last: starts once the counters exist
};

// Polls `done` as an editor's timer would; false after a minute (a hung step).
bool wait_for(const std::function<bool()>& done, const char* what) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) {
      std::cout << "plugin_host: gave up waiting for " << what << "\n";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// Two more blocks: the second one began after this call, so it saw what came before.
bool audio_goes_on(const AudioThread& audio) {
  const long seen = audio.blocks();
  return wait_for([&audio, seen] { return audio.blocks() >= seen + 2; }, "the audio thread");
}

void show_editor(const PluginLibrary& lib, plugin* p, const char* when, const AudioThread& audio) {
  std::array<char, 4096> text{};
  lib.editor_text(p, text.data(), text.size());
  std::cout << "--- editor " << when << " (audio blocks so far: " << audio.blocks() << ")\n"
            << text.data() << std::flush;
}

int run(const PluginLibrary& lib, bool press_activate) {
  plugin* p = lib.create();
  if (p == nullptr) {
    std::cout << "plugin_host: plugin_create failed\n";
    return 2;
  }
  AudioThread audio(lib, p);
  show_editor(lib, p, "at load", audio);
  bool ok = audio_goes_on(audio) &&
            wait_for([&] { return lib.editor_busy(p) == 0; }, "the start-up check") &&
            audio_goes_on(audio);
  if (ok) show_editor(lib, p, "after the start-up check", audio);
  if (ok && press_activate) {
    std::cout << "--- pressing Activate\n";
    lib.activate(p);  // returns at once: the editor stays responsive
    ok = audio_goes_on(audio) &&
         wait_for([&] { return lib.editor_busy(p) == 0; }, "the activation") &&
         audio_goes_on(audio);
    if (ok) show_editor(lib, p, "after activation", audio);
  }
  audio.stop();  // a host stops processing before it destroys an instance
  std::cout << "--- audio: " << audio.summary() << "\n";
  lib.destroy(p);
  std::cout << "--- destroyed\n";
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || (argc == 3 && std::strcmp(argv[2], "--activate") != 0) || argc > 3) {
    std::cerr << "usage: plugin_host PLUGIN_LIBRARY [--activate]\n";
    return 2;
  }
  int rc = 0;
  {
    const PluginLibrary lib(argv[1]);
    if (!lib.loaded()) {
      std::cerr << "plugin_host: cannot load " << argv[1] << ": " << lib.error() << "\n";
      return 2;
    }
    std::cout << "--- loaded " << argv[1] << "\n";
    rc = run(lib, argc == 3);
  }
  std::cout << "--- unloaded\n";
  return rc;
}
