// The activation screen: a view of License::details(), refreshed on the message thread
// when the license changes, and buttons that start License's background actions.
namespace licensed_juce {

namespace {

const char* const kActivationArmour = "-----BEGIN LICENSE ACTIVATION-----";

juce::Colour colourOf(State s) {
  switch (s) {
    case State::licensed:
    case State::trial:
    case State::offline:
      return juce::Colour(0xff2e7d32);
    case State::checking:
    case State::notConfirmed:
      return juce::Colour(0xff8d6e00);
    default:
      return juce::Colour(0xffc62828);
  }
}

}  // namespace

ActivationScreen::ActivationScreen(std::shared_ptr<License> license)
    : license_(std::move(license)) {
  setTitle("License");
  setDescription("The license of this plugin on this computer, and how to activate it");
  setFocusContainerType(FocusContainerType::keyboardFocusContainer);
  headline_.setFont(juce::Font(18.0f, juce::Font::bold));
  message_.setMinimumHorizontalScale(1.0f);
  message_.setColour(juce::Label::textColourId, juce::Colour(0xff212121));
  message_.setJustificationType(juce::Justification::topLeft);
  machine_.setFont(juce::Font(12.0f));
  machine_.setColour(juce::Label::textColourId, juce::Colours::grey);
  key_.setMultiLine(true, true);
  key_.setReturnKeyStartsNewLine(false);
  key_.setTextToShowWhenEmpty("License key, or a pasted activation file", juce::Colours::grey);
  key_.onReturnKey = [this] { activatePressed(); };
  describe(headline_, "License state", "Whether this plugin is licensed on this computer");
  describe(message_, "Details", "Why, and what to do next");
  describe(machine_, "Machine id", "This computer's id, for support");
  describe(key_, "License key",
           "Type or paste the license key, or paste an activation file's text, then press "
           "Activate");
  describe(activate_, "Activate", "Activate this computer with the key above");
  describe(trial_, "Start trial", "Start this computer's free trial");
  describe(deactivate_, "Deactivate this computer", "Give this computer's slot back");
  describe(import_, "Import activation file",
           "Install an activation file made on a computer that is online");
  describe(request_, "Write offline request",
           "Save a request file to carry to a computer that is online");
  describe(cancel_, "Cancel", "Stop waiting for the running action");
  describe(freeSlot_, "Free a slot",
           "Open the dashboard in the browser to deactivate another computer");
  describe(progressBar_, "Progress", "An action is running");
  activate_.onClick = [this] { activatePressed(); };
  trial_.onClick = [this] { license_->startTrial(); };
  deactivate_.onClick = [this] { license_->deactivate(); };
  import_.onClick = [this] { importPressed(); };
  request_.onClick = [this] { requestPressed(); };
  cancel_.onClick = [this] { license_->cancel(); };
  for (juce::Component* c : std::initializer_list<juce::Component*>{
           &headline_, &message_, &key_, &activate_, &trial_, &deactivate_, &import_, &request_,
           &freeSlot_, &progressBar_, &cancel_, &machine_}) {
    addAndMakeVisible(c);
  }
  setSize(kMinimumWidth + 80, kMinimumHeight + 40);
  license_->addChangeListener(this);
  showDetails(license_->details());
  startTimer(2000);
}

ActivationScreen::~ActivationScreen() {
  license_->removeChangeListener(this);
}

void ActivationScreen::describe(juce::Component& c, const juce::String& title,
                                const juce::String& help) {
  c.setTitle(title);
  c.setDescription(help);
  c.setHelpText(help);
}

void ActivationScreen::showDetails(const Details& d) {
  shown_ = d.state;
  busy_ = d.busy;
  headline_.setText(d.busy ? d.busyWith + "..." : d.headline, juce::dontSendNotification);
  headline_.setColour(juce::Label::textColourId,
                      d.busy ? juce::Colours::darkgrey : colourOf(d.state));
  juce::String text = d.state == State::refused ? juce::String() : d.message;
  if (d.warning.isNotEmpty()) text << (text.isEmpty() ? "" : "\n") << d.warning;
  if (d.actionMessage.isNotEmpty()) text << (text.isEmpty() ? "" : "\n") << d.actionMessage;
  message_.setText(text, juce::dontSendNotification);
  machine_.setText("Machine " + d.machineId, juce::dontSendNotification);
  const bool canRun =
      d.state == State::licensed || d.state == State::trial || d.state == State::offline;
  activate_.setEnabled(!d.busy && !canRun);
  key_.setEnabled(!d.busy);
  trial_.setEnabled(!d.busy && d.state != State::licensed && d.state != State::offline);
  deactivate_.setEnabled(!d.busy && (d.state == State::licensed || d.state == State::trial));
  import_.setEnabled(!d.busy);
  request_.setEnabled(!d.busy);
  freeSlot_.setVisible(d.state == State::limitReached && d.dashboardUrl.isNotEmpty());
  // Opened in the browser when pressed, exactly as the server sent it: juce::URL(String)
  // re-encodes the one-time `#signin=` fragment (docs/dashboard.md) into `#signin%3D`,
  // which the dashboard would not read.
  freeSlot_.setURL(juce::URL::createWithoutParsing(d.dashboardUrl));
  progressBar_.setVisible(d.busy);
  cancel_.setVisible(d.busy);
  resized();  // the link's row comes and goes
  // Tell screen readers the state changed.
  if (auto* handler = headline_.getAccessibilityHandler()) {
    handler->notifyAccessibilityEvent(juce::AccessibilityEvent::valueChanged);
  }
  repaint();
}

void ActivationScreen::changeListenerCallback(juce::ChangeBroadcaster*) {
  showDetails(license_->details());
}

void ActivationScreen::timerCallback() {
  // A start-up check that ran out of budget goes on in the SDK's background: its "yes"
  // serves the next look at the cache (no network here).
  if (!busy_ && shown_ != State::licensed && shown_ != State::trial && shown_ != State::offline) {
    license_->refreshFromCache();
  }
}

void ActivationScreen::activatePressed() {
  const juce::String text = key_.getText();
  if (text.contains(kActivationArmour)) {
    license_->importActivationText(text);
  } else {
    license_->activate(text);
  }
}

void ActivationScreen::importPressed() {
  chooser_ =
      std::make_unique<juce::FileChooser>("Import an activation file", juce::File(), "*.lic;*.txt");
  chooser_->launchAsync(
      juce::FileBrowserComponent::openMode | juce::FileBrowserComponent::canSelectFiles,
      [this](const juce::FileChooser& fc) {
        if (fc.getResult() != juce::File()) license_->importActivationFile(fc.getResult());
      });
}

void ActivationScreen::requestPressed() {
  chooser_ = std::make_unique<juce::FileChooser>(
      "Save the offline activation request",
      juce::File::getSpecialLocation(juce::File::userDocumentsDirectory)
          .getChildFile("activation-request.txt"),
      "*.txt");
  chooser_->launchAsync(
      juce::FileBrowserComponent::saveMode | juce::FileBrowserComponent::canSelectFiles,
      [this](const juce::FileChooser& fc) {
        if (fc.getResult() != juce::File()) license_->writeOfflineRequest(fc.getResult());
      });
}

void ActivationScreen::paint(juce::Graphics& g) {
  g.fillAll(juce::Colour(0xfff5f5f5));
  g.setColour(colourOf(shown_));
  g.fillRect(getLocalBounds().removeFromLeft(4));
}

void ActivationScreen::resized() {
  auto area = getLocalBounds().reduced(12);
  area.removeFromLeft(4);
  headline_.setBounds(area.removeFromTop(26));
  machine_.setBounds(area.removeFromBottom(18));
  auto offline = area.removeFromBottom(28);
  area.removeFromBottom(6);
  auto actions = area.removeFromBottom(28);
  area.removeFromBottom(6);
  const int buttonWidth = (offline.getWidth() - 6) / 2;
  import_.setBounds(offline.removeFromLeft(buttonWidth));
  offline.removeFromLeft(6);
  request_.setBounds(offline);
  const int third = (actions.getWidth() - 12) / 3;
  activate_.setBounds(actions.removeFromLeft(third));
  actions.removeFromLeft(6);
  trial_.setBounds(actions.removeFromLeft(third));
  actions.removeFromLeft(6);
  deactivate_.setBounds(actions);
  auto busyRow = area.removeFromBottom(24);
  cancel_.setBounds(busyRow.removeFromRight(80));
  busyRow.removeFromRight(6);
  progressBar_.setBounds(busyRow);
  area.removeFromBottom(6);
  key_.setBounds(area.removeFromBottom(juce::jmax(28, juce::jmin(60, area.getHeight() / 3))));
  area.removeFromBottom(4);
  freeSlot_.setBounds(area.removeFromBottom(freeSlot_.isVisible() ? 22 : 0));
  message_.setBounds(area);
}

}  // namespace licensed_juce
