// Settings from the environment, and the tolerant reading of a pasted key.
namespace licensed_juce {

namespace {

void overrideFrom(const char* variable, juce::String& value) {
  const juce::String set = juce::SystemStats::getEnvironmentVariable(variable, {});
  if (set.isNotEmpty()) value = set;
}

}  // namespace

Settings Settings::withEnvironment() const {
  Settings s = *this;
  overrideFrom("LICENSE_SERVER_URL", s.url);
  overrideFrom("LICENSE_KEY_ID", s.keyId);
  overrideFrom("LICENSE_SECRET", s.secret);
  overrideFrom("LICENSE_PUBLIC_KEY", s.publicKey);
  overrideFrom("LICENSE_KEY", s.licenseKey);
  overrideFrom("LICENSE_MACHINE_ID", s.machineId);
  overrideFrom("LICENSE_MACHINE_NAME", s.machineName);
  overrideFrom("LICENSE_VENDOR", s.vendor);
  overrideFrom("LICENSE_CACHE_DIR", s.cacheDir);
  overrideFrom("LICENSE_OFFLINE_DIR", s.offlineDir);
  return s;
}

juce::String normaliseLicenseKey(const juce::String& pasted) {
  // Whitespace anywhere (a key broken over two lines in an email), and quotes or
  // angle brackets around it, are not part of a key.
  static const juce::String kNotPartOfAKey(
      juce::CharPointer_UTF8(" \t\r\n\"'`<>\xe2\x80\x9c\xe2\x80\x9d"));
  return pasted.removeCharacters(kNotPartOfAKey).toLowerCase();
}

}  // namespace licensed_juce
