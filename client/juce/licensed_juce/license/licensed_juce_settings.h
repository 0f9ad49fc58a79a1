// What a plugin tells the module: the server, the signing key id and secret, the pinned
// response key (a shipped plugin compiles these in), and where the license key the
// customer typed is kept. withEnvironment() lets licensectl's LICENSE_* variables and
// LICENSE_CACHE_DIR override them (tests, CI).
#pragma once

namespace licensed_juce {

struct Settings {
  juce::String url;          // LICENSE_SERVER_URL
  juce::String keyId;        // LICENSE_KEY_ID
  juce::String secret;       // LICENSE_SECRET
  juce::String publicKey;    // LICENSE_PUBLIC_KEY: base64 or PEM; pin it (offline cache)
  juce::String licenseKey;   // LICENSE_KEY; empty: read from keyFile
  juce::String machineId;    // LICENSE_MACHINE_ID; empty: derived by the SDK
  juce::String machineName;  // empty: this computer's host name
  juce::String product;      // the product slug: checked in answers, needed for trials
  juce::String vendor;       // salts the machine id and names the cache folder
  juce::String cacheDir;     // LICENSE_CACHE_DIR; empty: the SDK's per-user default
  juce::String offlineDir;   // empty: the SDK's machine-wide activation-file directory
  // Where the key the customer pasted (or a trial's key) is kept between sessions;
  // a default File: not kept.
  juce::File keyFile;
  int64_t timeoutMs = 0;        // 0: the SDK's default (10 s)
  int64_t startupBudgetMs = 0;  // 0: the SDK's default (1.5 s)
  // The release date of this build (Unix seconds), for allowedForBuild().
  int64_t buildDate = 0;
  // The entitlement codes the audio thread asks about, by index (at most 16):
  // audio().hasEntitlement(i), audio().allowedForBuild(i).
  juce::StringArray entitlements;

  // A copy with the LICENSE_* variables that are set taking precedence.
  Settings withEnvironment() const;
};

// A key as customers paste it: spaces, line breaks, tabs, quotes and case tolerated
// (a UUID comes back lowercase with its dashes).
juce::String normaliseLicenseKey(const juce::String& pasted);

}  // namespace licensed_juce
