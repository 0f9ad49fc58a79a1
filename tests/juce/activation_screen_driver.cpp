// Drives the real licensed_juce::ActivationScreen the way a user does, for the tests in
// tests/juce/activation_screen_test.cpp: the screen in a window of its own (under Xvfb),
// keys sent through the window's ComponentPeer (the path X11 key events take), buttons
// pressed with triggerClick, the file chooser and the browser being whatever `zenity` and
// `xdg-open` the test puts first on PATH. It reports what the screen then shows, one
// "name: value" line each; the test asserts on those and on the server's records.
//   juce_gain_screen_driver SCENARIO        (activate-deactivate, limit, trial,
//                                            write-request, import-text, import-file,
//                                            cancel, a11y-layout)
// The license settings come from licensectl's LICENSE_* variables, as the example's;
// SCREEN_PASTE is what the user pastes, SCREEN_TYPE what they type, SCREEN_FILE the file
// they pick in the chooser. Exit 0 when every wait was met, 1 otherwise (with "FAIL:").
// Built by scripts/build-juce-example.sh with the example (JUCE_GAIN_SCREEN_DRIVER).
#include <JuceHeader.h>
#include <dlfcn.h>

#include <chrono>
#include <future>
#include <iostream>
#include <thread>

namespace {

using licensed_juce::ActivationScreen;
using licensed_juce::Details;
using licensed_juce::License;
using licensed_juce::State;

juce::String env(const char* name) {
  return juce::SystemStats::getEnvironmentVariable(name, {});
}

// Runs `fn` on the message thread and waits for its result.
template <typename F>
auto onUi(F fn) -> decltype(fn()) {
  std::packaged_task<decltype(fn())()> task(std::move(fn));
  auto result = task.get_future();
  juce::MessageManager::callAsync([&task] { task(); });
  return result.get();
}

juce::Component* byTitle(juce::Component& root, const juce::String& title) {
  for (juce::Component* child : root.getChildren()) {
    if (child->getTitle() == title) return child;
    if (juce::Component* found = byTitle(*child, title)) return found;
  }
  return nullptr;
}

// The controls that take the keyboard focus when enabled (getWantsKeyboardFocus() is
// false while disabled), not the parts inside one such as a text editor's viewport.
void collectFocusable(juce::Component& root, juce::Array<juce::Component*>& out) {
  for (juce::Component* child : root.getChildren()) {
    if (child->getWantsKeyboardFocus() || dynamic_cast<juce::Button*>(child) != nullptr ||
        dynamic_cast<juce::TextEditor*>(child) != nullptr) {
      out.add(child);
    } else {
      collectFocusable(*child, out);
    }
  }
}

class Driver {
 public:
  Driver() {
    licensed_juce::Settings s;
    s.vendor = "juce-gain-example";
    s = s.withEnvironment();
    s.product = env("LICENSE_PRODUCT");
    if (s.cacheDir.isNotEmpty()) s.keyFile = juce::File(s.cacheDir).getChildFile("license-key");
    if (env("SCREEN_TIMEOUT_MS").isNotEmpty())
      s.timeoutMs = env("SCREEN_TIMEOUT_MS").getLargeIntValue();
    license_ = std::make_shared<License>(s);
    screen_ = std::make_unique<ActivationScreen>(license_);
    screen_->setSize(480, 340);
    screen_->addToDesktop(0);
    screen_->setVisible(true);
    screen_->toFront(true);
  }
  ~Driver() = default;

  // Every step runs on this (the script's) thread; the screen is touched on the message
  // thread only (onUi).
  bool run(const juce::String& scenario) {
    if (scenario == "a11y-layout") return accessibilityAndLayout();
    onUi([this] {
      license_->start(/*activateWhenNotActivated=*/false);  // as the editor opening does
      return 0;
    });
    if (!waitFor("the start-up check", [](const Details& d) { return !d.busy; })) return false;
    report("started");
    if (scenario == "activate-deactivate") return activateDeactivate();
    if (scenario == "limit") return limit();
    if (scenario == "trial") return trial();
    if (scenario == "write-request") return writeRequest();
    if (scenario == "import-text") return importText();
    if (scenario == "import-file") return importFile();
    if (scenario == "cancel") return cancel();
    return fail("unknown scenario " + scenario);
  }

  void close() {
    onUi([this] {
      screen_.reset();
      return 0;
    });
  }

 private:
  static bool fail(const juce::String& why) {
    std::cout << "FAIL: " << why << std::endl;
    return false;
  }

  Details details() const { return license_->details(); }

  void report(const juce::String& step) const {
    const Details d = details();
    std::cout << step << ": state=" << licensed_juce::stateName(d.state) << " busy=" << d.busy
              << " headline=\"" << d.headline << "\" action=\"" << d.actionMessage
              << "\" key=" << d.licenseKey << " source=" << d.source << " days=" << d.trialDaysLeft
              << std::endl;
  }

  // Waits (a bound for a failing test, not a measure) until `done` holds for details().
  bool waitFor(const juce::String& what, const std::function<bool(const Details&)>& done,
               int seconds = 30) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      // Read on the message thread, after the change messages before it were delivered.
      if (onUi([this, &done] { return done(details()); })) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    report("timed out waiting for " + what);
    return fail("waiting for " + what);
  }

  bool waitForUi(const juce::String& what, const std::function<bool()>& done) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (onUi([&done] { return done(); })) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return fail("waiting for " + what);
  }

  juce::Component* control(const juce::String& title) const {
    juce::Component* c = byTitle(*screen_, title);
    if (c == nullptr) fail("no control titled " + title);
    return c;
  }

  bool click(const juce::String& title) const {
    return onUi([this, &title] {
      auto* button = dynamic_cast<juce::Button*>(control(title));
      if (button == nullptr || !button->isEnabled() || !button->isShowing()) {
        return fail(title + " is not a button the user can press");
      }
      button->triggerClick();
      return true;
    });
  }

  // A key as X11 delivers it: through the window's peer to the focused control.
  bool press(const juce::KeyPress& key) const {
    return onUi([this, &key] {
      juce::ComponentPeer* peer = screen_->getPeer();
      if (peer == nullptr) return fail("the screen has no window");
      peer->handleKeyPress(key);
      return true;
    });
  }

  juce::String focusedTitle() const {
    return onUi([] {
      juce::Component* c = juce::Component::getCurrentlyFocusedComponent();
      return c != nullptr ? c->getTitle() : juce::String("(none)");
    });
  }

  bool focus(const juce::String& title) const {
    onUi([this, &title] {
      if (juce::Component* c = control(title)) c->grabKeyboardFocus();
      return 0;
    });
    return waitForUi("the focus on " + title, [this, &title] {
      juce::Component* c = byTitle(*screen_, title);
      if (c == nullptr) return false;
      if (!c->hasKeyboardFocus(false)) c->grabKeyboardFocus();  // once the window is mapped
      return c->hasKeyboardFocus(false);
    });
  }

  juce::String keyText() const {
    return onUi([this] {
      auto* editor = dynamic_cast<juce::TextEditor*>(byTitle(*screen_, "License key"));
      return editor != nullptr ? editor->getText() : juce::String();
    });
  }

  // Ctrl+V in the key field, with `text` on the clipboard (as copied from an email).
  bool paste(const juce::String& text) {
    if (!focus("License key")) return false;
    onUi([&text] {
      juce::SystemClipboard::copyTextToClipboard(text);
      return 0;
    });
    if (!press(juce::KeyPress('v', juce::ModifierKeys::commandModifier, 0))) return false;
    // The editor keeps line breaks as "\n" (a pasted "\r\n" included).
    const juce::String expected = text.replace("\r\n", "\n");
    const juce::String got = keyText();
    std::cout << "pasted: " << (got == expected ? "exactly" : "differently: " + got) << std::endl;
    return got == expected || fail("the paste did not reach the key field");
  }

  bool type(const juce::String& text) {
    if (!focus("License key")) return false;
    for (const juce_wchar c : text) {
      if (!press(juce::KeyPress(static_cast<int>(c), juce::ModifierKeys(), c))) return false;
    }
    const juce::String got = keyText();
    std::cout << "typed: " << (got == text ? "exactly" : "differently: " + got) << std::endl;
    return got == text || fail("the typing did not reach the key field");
  }

  bool activateDeactivate() {
    if (!paste(env("SCREEN_PASTE"))) return false;
    // Return in the key field presses Activate.
    if (!press(juce::KeyPress(juce::KeyPress::returnKey))) return false;
    if (!waitFor("licensed", [](const Details& d) { return d.state == State::licensed; })) {
      return false;
    }
    report("activated");
    if (!click("Deactivate this computer")) return false;
    if (!waitFor("deactivated", [](const Details& d) {
          return !d.busy && d.state == State::notActivated && d.actionMessage.isNotEmpty();
        })) {
      return false;
    }
    report("deactivated");
    return true;
  }

  bool limit() {
    if (!type(env("SCREEN_TYPE"))) return false;
    // Keyboard only: Tab from the key field to Activate, Return presses it.
    if (!press(juce::KeyPress(juce::KeyPress::tabKey))) return false;
    std::cout << "focused after tab: " << focusedTitle() << std::endl;
    if (!press(juce::KeyPress(juce::KeyPress::returnKey))) return false;
    if (!waitFor("the cap refusal",
                 [](const Details& d) { return !d.busy && d.state == State::limitReached; })) {
      return false;
    }
    report("refused");
    const bool shown = onUi([this] {
      auto* link = dynamic_cast<juce::HyperlinkButton*>(byTitle(*screen_, "Free a slot"));
      if (link == nullptr) return false;
      std::cout << "link: visible=" << link->isShowing() << " url=" << link->getURL().toString(true)
                << std::endl;
      return link->isShowing();
    });
    if (!shown) return fail("the link to free a slot is not shown");
    if (!click("Free a slot")) return false;
    const juce::File browserLog(env("SCREEN_BROWSER_LOG"));
    return waitForUi("the browser", [&browserLog] { return browserLog.existsAsFile(); });
  }

  bool trial() {
    if (!click("Start trial")) return false;
    if (!waitFor("the trial",
                 [](const Details& d) { return !d.busy && d.state == State::trial; })) {
      return false;
    }
    report("trial");
    return true;
  }

  bool choose(const juce::String& title, const juce::String& file) {
    // What the fake zenity answers (the user's choice in the dialog).
    onUi([&file] { return setenv("SCREEN_CHOOSER_ANSWER", file.toRawUTF8(), 1); });
    return click(title);
  }

  bool writeRequest() {
    if (!choose("Write offline request", env("SCREEN_FILE"))) return false;
    if (!waitFor("the request written",
                 [](const Details& d) { return !d.busy && d.actionMessage.isNotEmpty(); })) {
      return false;
    }
    report("request");
    return true;
  }

  bool importText() {
    if (!paste(env("SCREEN_PASTE"))) return false;
    if (!click("Activate")) return false;
    return waitForOffline();
  }

  bool importFile() {
    if (!choose("Import activation file", env("SCREEN_FILE"))) return false;
    return waitForOffline();
  }

  bool waitForOffline() {
    if (!waitFor("the activation installed",
                 [](const Details& d) { return !d.busy && d.actionMessage.isNotEmpty(); })) {
      return false;
    }
    report("imported");
    return true;
  }

  bool cancel() {
    if (!type(env("SCREEN_TYPE"))) return false;
    if (!click("Activate")) return false;
    if (!waitFor("the activation running", [](const Details& d) { return d.busy; })) return false;
    const bool cancelShown = onUi([this] { return byTitle(*screen_, "Cancel")->isShowing(); });
    std::cout << "cancel shown while busy: " << cancelShown << std::endl;
    if (!click("Cancel")) return false;
    // The server never answers and the action's timeout is far longer than this wait:
    // only Cancel can make the screen idle here.
    if (!waitFor(
            "idle after Cancel", [](const Details& d) { return !d.busy; }, 20))
      return false;
    report("cancelled");
    const bool idle = onUi([this] {
      return !byTitle(*screen_, "Cancel")->isShowing() &&
             byTitle(*screen_, "Activate")->isEnabled() &&
             !byTitle(*screen_, "Progress")->isShowing();
    });
    std::cout << "controls idle: " << idle << std::endl;
    // And it takes the next action.
    if (!click("Activate")) return false;
    if (!waitFor("the second activation running", [](const Details& d) { return d.busy; })) {
      return false;
    }
    report("again");
    return idle;
  }

  static Details shown(State s, bool busy, const juce::String& dashboard = {}) {
    Details d;
    d.state = s;
    d.headline = "Activated on too many computers";
    d.message =
        "this license is activated on as many computers as it allows (3 of 3): "
        "deactivate one at https://licenses.example.com/dashboard";
    d.dashboardUrl = dashboard;
    d.busy = busy;
    d.busyWith = "Activating";
    d.actionMessage =
        "The request is in /home/studio/activation-request.txt: send it from a "
        "computer that is online.";
    d.machineId = "5c1e0d0b2f4e8a7c9d3b6a1f0e2c4d6b8a0f1e3d5c7b9a2e4f6d8c0b1a3e5f7d";
    return d;
  }

  bool accessibilityAndLayout() {
    bool ok = true;
    // Every control showing at once: the link (a cap refusal) and Cancel (busy).
    onUi([this] {
      screen_->showDetails(shown(State::limitReached, true, "https://licenses.example.com/d"));
      return 0;
    });
    ok &= onUi([this] {
      juce::Array<juce::Component*> focusable;
      collectFocusable(*screen_, focusable);
      bool all = focusable.size() >= 8;
      std::cout << "focusable: " << focusable.size() << std::endl;
      for (juce::Component* c : focusable) {
        juce::AccessibilityHandler* h = c->getAccessibilityHandler();
        const bool good = c->getTitle().isNotEmpty() && h != nullptr &&
                          h->getTitle().isNotEmpty() && c->getDescription().isNotEmpty();
        std::cout << "control: \"" << c->getTitle() << "\" handler=" << (h != nullptr)
                  << " role=" << (h != nullptr ? static_cast<int>(h->getRole()) : -1)
                  << " good=" << good << std::endl;
        all &= good;
      }
      return all || fail("a control without a title, description or accessibility handler");
    });
    // Tab order, not busy and not activated: the key field, then the buttons row by row.
    onUi([this] {
      screen_->showDetails(shown(State::notActivated, false));
      return 0;
    });
    if (!focus("License key")) return false;
    juce::StringArray order{focusedTitle()};
    for (int i = 0; i < 5; ++i) {
      press(juce::KeyPress(juce::KeyPress::tabKey));
      order.add(focusedTitle());
    }
    press(juce::KeyPress(juce::KeyPress::tabKey, juce::ModifierKeys::shiftModifier, 0));
    std::cout << "tab: " << order.joinIntoString(" > ") << std::endl;
    std::cout << "shift-tab: " << focusedTitle() << std::endl;
    // Layout at the minimum, in each state that changes what is shown.
    for (const auto& [name, d] :
         {std::make_pair("not-activated", shown(State::notActivated, false)),
          std::make_pair("busy", shown(State::notActivated, true)),
          std::make_pair("limit-reached", shown(State::limitReached, false, "https://x.example/d")),
          std::make_pair("limit-reached-busy",
                         shown(State::limitReached, true, "https://x.example/d"))}) {
      ok &= onUi([this, name = juce::String(name), d = d] {
        screen_->showDetails(d);
        screen_->setSize(ActivationScreen::kMinimumWidth, ActivationScreen::kMinimumHeight);
        return checkLayout(name);
      });
    }
    return ok;
  }

  bool checkLayout(const juce::String& name) const {
    juce::Array<juce::Component*> shownChildren;
    for (juce::Component* c : screen_->getChildren()) {
      if (c->isVisible()) shownChildren.add(c);
    }
    int problems = 0;
    for (int i = 0; i < shownChildren.size(); ++i) {
      const auto a = shownChildren[i]->getBounds();
      if (a.isEmpty() || !screen_->getLocalBounds().contains(a) || a.getHeight() < 14) {
        std::cout << "layout " << name << ": " << shownChildren[i]->getTitle() << " at "
                  << a.toString() << " is empty, too small or outside" << std::endl;
        ++problems;
      }
      for (int j = i + 1; j < shownChildren.size(); ++j) {
        if (a.intersects(shownChildren[j]->getBounds())) {
          std::cout << "layout " << name << ": " << shownChildren[i]->getTitle() << " overlaps "
                    << shownChildren[j]->getTitle() << std::endl;
          ++problems;
        }
      }
    }
    std::cout << "layout " << name << ": " << shownChildren.size() << " controls, " << problems
              << " problems" << std::endl;
    return problems == 0;
  }

  std::shared_ptr<License> license_;
  std::unique_ptr<ActivationScreen> screen_;
};

// JUCE asks the X server for the window-manager atoms it sets on a window only "if they
// exist"; with no window manager under Xvfb some do not, and JUCE then sets a property
// named by atom 0 (BadAtom, the process ends). Making them exist first is what any window
// manager would have done.
// (libX11 through dlopen, as JUCE loads it: Xlib's header does not mix with JUCE's names.)
void internWindowManagerAtoms() {
  void* x11 = dlopen("libX11.so.6", RTLD_LAZY);
  if (x11 == nullptr) return;
  const auto open = reinterpret_cast<void* (*)(const char*)>(dlsym(x11, "XOpenDisplay"));
  const auto intern =
      reinterpret_cast<unsigned long (*)(void*, const char*, int)>(dlsym(x11, "XInternAtom"));
  const auto sync = reinterpret_cast<int (*)(void*, int)>(dlsym(x11, "XSync"));
  void* display = open != nullptr ? open(nullptr) : nullptr;
  if (display == nullptr || intern == nullptr || sync == nullptr) return;
  for (const char* name : {"WM_PROTOCOLS",
                           "WM_TAKE_FOCUS",
                           "WM_DELETE_WINDOW",
                           "_NET_WM_PING",
                           "WM_CHANGE_STATE",
                           "WM_STATE",
                           "_NET_WM_WINDOW_TYPE",
                           "_NET_WM_STATE",
                           "_NET_WM_STATE_HIDDEN",
                           "_NET_WM_WINDOW_TYPE_NORMAL",
                           "_NET_WM_WINDOW_TYPE_COMBO",
                           "_NET_WM_STATE_SKIP_TASKBAR",
                           "_NET_WM_STATE_ABOVE",
                           "_MOTIF_WM_HINTS",
                           "_NET_WM_ALLOWED_ACTIONS",
                           "_NET_FRAME_EXTENTS",
                           "_NET_WORKAREA",
                           "_NET_WM_ACTION_RESIZE",
                           "_NET_WM_ACTION_CLOSE",
                           "_NET_WM_PID",
                           "_NET_WM_NAME",
                           "_NET_WM_ICON",
                           "_NET_ACTIVE_WINDOW",
                           "XdndAware",
                           "CLIPBOARD",
                           "UTF8_STRING",
                           "TARGETS"}) {
    (void)intern(display, name, /*only_if_exists=*/0);
  }
  sync(display, 0);
  // Kept open: Xvfb resets (and forgets every atom) when its last client disconnects.
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: juce_gain_screen_driver SCENARIO\n";
    return 2;
  }
  internWindowManagerAtoms();
  const juce::ScopedJuceInitialiser_GUI gui;  // this thread is the message thread
  auto driver = std::make_unique<Driver>();
  bool ok = false;
  std::thread script([&] {
    ok = driver->run(argv[1]);
    driver->close();
    juce::MessageManager::getInstance()->stopDispatchLoop();
  });
  juce::MessageManager::getInstance()->runDispatchLoop();
  script.join();
  driver.reset();
  std::cout << (ok ? "driver: ok" : "driver: failed") << std::endl;
  // An action's detached thread may still wait for a server that never answers.
  std::_Exit(ok ? 0 : 1);
}
