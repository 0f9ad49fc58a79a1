// The activation screen a vendor drops into the plugin's editor: the state in words,
// a key field (a pasted activation file works too), Activate, Start trial, Deactivate,
// the link that frees a slot, importing an activation file, writing an offline request;
// progress and Cancel while an action runs. Every control has a title and a
// description for screen readers (JUCE's accessibility handlers) and is reachable with
// the keyboard. Usable from 400 x 300 up (kMinimumWidth, kMinimumHeight).
#pragma once

#include "../license/licensed_juce_license.h"

namespace licensed_juce {

class ActivationScreen : public juce::Component, private juce::ChangeListener, private juce::Timer {
 public:
  static constexpr int kMinimumWidth = 400;
  static constexpr int kMinimumHeight = 300;

  explicit ActivationScreen(std::shared_ptr<License> license);
  ~ActivationScreen() override;

  // Shows `d` (what the license's changes call; the screenshot test gives states).
  void showDetails(const Details& d);

  void paint(juce::Graphics& g) override;
  void resized() override;

 private:
  void changeListenerCallback(juce::ChangeBroadcaster*) override;
  void timerCallback() override;
  void activatePressed();
  void importPressed();
  void requestPressed();
  static void describe(juce::Component& c, const juce::String& title, const juce::String& help);

  std::shared_ptr<License> license_;
  double progress_ = -1.0;  // a ProgressBar at -1 spins
  juce::Label headline_, message_, machine_;
  juce::TextEditor key_;
  juce::TextButton activate_{"Activate"}, trial_{"Start trial"}, deactivate_{"Deactivate"},
      import_{"Import activation file..."}, request_{"Write offline request..."}, cancel_{"Cancel"};
  juce::HyperlinkButton freeSlot_{"Free a slot on the dashboard", juce::URL()};
  juce::ProgressBar progressBar_{progress_};
  std::unique_ptr<juce::FileChooser> chooser_;
  State shown_ = State::checking;
  bool busy_ = false;
};

}  // namespace licensed_juce
