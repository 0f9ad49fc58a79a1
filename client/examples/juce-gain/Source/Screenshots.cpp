// Renders the activation screen in every state the issue lists into
// <dir>/juce-<state>.png (docs/screenshots/), at 480 x 340 and at the 400 x 300 minimum.
// The states are given to the screen as they would come from the license; nothing here
// talks to a server. Run under Xvfb: juce_gain_screenshots DIR
#include <JuceHeader.h>

#include <iostream>

namespace {

licensed_juce::Details base(licensed_juce::State s, const juce::String& headline) {
  licensed_juce::Details d;
  d.state = s;
  d.headline = headline;
  d.machineId = "5c1e0d0b2f4e8a7c9d3b6a1f0e2c4d6b8a0f1e3d5c7b9a2e4f6d8c0b1a3e5f7d";
  return d;
}

std::vector<std::pair<juce::String, licensed_juce::Details>> states() {
  using licensed_juce::State;
  std::vector<std::pair<juce::String, licensed_juce::Details>> out;
  out.emplace_back("licensed", base(State::licensed, "Licensed (works offline until 2027-01-15)"));
  auto trial = base(State::trial, "Trial: 12 days left");
  trial.trialDaysLeft = 12;
  out.emplace_back("trial", trial);
  auto offline = base(State::offline, "Activated offline until 2027-03-31");
  offline.warning = "";
  out.emplace_back("offline", offline);
  auto expired = base(State::expired, "Expired");
  expired.message = "this license has expired: renew it to go on using the plugin";
  out.emplace_back("expired", expired);
  auto refused = base(State::refused,
                      "Refused: this license is suspended: it cannot be used (contact the vendor)");
  refused.message = "this license is suspended: it cannot be used (contact the vendor)";
  out.emplace_back("refused", refused);
  auto limit = base(State::limitReached, "Activated on too many computers");
  limit.message =
      "this license is activated on as many computers as it allows (3 of 3): "
      "deactivate one at https://licenses.example.com/dashboard";
  limit.dashboardUrl = "https://licenses.example.com/dashboard";
  out.emplace_back("limit-reached", limit);
  auto notActivated = base(State::notActivated, "Not activated on this computer");
  notActivated.message = "this computer is not activated: activate it";
  out.emplace_back("not-activated", notActivated);
  auto busy = base(State::notActivated, "Not activated on this computer");
  busy.busy = true;
  busy.busyWith = "Activating";
  out.emplace_back("activating", busy);
  auto request = base(State::notActivated, "Not activated on this computer");
  request.actionMessage =
      "The request is in /home/studio/activation-request.txt: send it from a "
      "computer that is online.";
  out.emplace_back("offline-request", request);
  return out;
}

bool render(licensed_juce::ActivationScreen& screen, const juce::File& file, int w, int h) {
  screen.setSize(w, h);
  const juce::Image image = screen.createComponentSnapshot(screen.getLocalBounds(), true, 1.0f);
  file.deleteFile();
  juce::FileOutputStream out(file);
  return out.openedOk() && juce::PNGImageFormat().writeImageToStream(image, out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: juce_gain_screenshots DIR\n";
    return 2;
  }
  const juce::ScopedJuceInitialiser_GUI gui;
  const juce::File dir = juce::File::getCurrentWorkingDirectory().getChildFile(argv[1]);
  dir.createDirectory();
  // A license with no server: the screen only shows the states given below.
  licensed_juce::Settings settings;
  auto license = std::make_shared<licensed_juce::License>(settings);
  licensed_juce::ActivationScreen screen(license);
  int written = 0;
  for (const auto& [name, details] : states()) {
    screen.showDetails(details);
    if (!render(screen, dir.getChildFile("juce-" + name + ".png"), 480, 340)) return 1;
    ++written;
  }
  screen.showDetails(states().front().second);
  if (!render(screen, dir.getChildFile("juce-minimum-400x300.png"),
              licensed_juce::ActivationScreen::kMinimumWidth,
              licensed_juce::ActivationScreen::kMinimumHeight)) {
    return 1;
  }
  std::cout << "wrote " << written + 1 << " screenshots to " << dir.getFullPathName() << "\n";
  return 0;
}
