// Offline activation over HTTP (docs/protocol.md §21), against the real binary: a request
// file written as the SDK writes it, submitted to offline-activate, the activation file
// checked by an independent verifier (tests/support/verify_activation_file.py, Python's
// `cryptography`, not our OpenSSL code), the slot held past machineTtl, renewals, the
// latest file alone deactivating, offlineRelease, the quota, and bad files refused as 400
// 1702 `field: "request"` with their reason.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "auth/armour.h"
#include "core/timestamp.h"
#include "support/fixture.h"
#include "support/openapi_check.h"
#include "support/response_verifier.h"
#include "support/store_sql.h"

namespace bb {
namespace {

using namespace std::chrono_literals;

struct RequestFile {
  RequestFile(std::string l, std::string m, std::int64_t ts = UnixNow(),
              std::optional<std::string> id = std::nullopt)
      : license(std::move(l)), machine(std::move(m)), timestamp(ts), activation_id(std::move(id)) {}

  std::string license;
  std::string machine;
  std::int64_t timestamp;
  std::string nonce = RandomNonce();
  SigningKey key = kPluginKey;
  std::optional<std::string> activation_id;  // a deactivation file when set
};

// The deactivation file of the activation file `id`.
RequestFile Deactivation(const std::string& license, const std::string& machine,
                         const std::string& id) {
  return RequestFile(license, machine, UnixNow(), id);
}

std::string MakeFile(const RequestFile& f) {
  json::object body{{"licenseKey", f.license}, {"machineId", f.machine}};
  if (f.activation_id) body["activationId"] = *f.activation_id;
  const std::string text = json::serialize(body);
  const std::string path = f.activation_id ? Endpoint("deactivate") : Endpoint("activate");
  const std::string ts = std::to_string(f.timestamp);
  const std::string signature = SignCanonical(
      f.key.secret, CanonicalString("POST", path, f.key.id, ts, f.nonce, Sha256Hex(text)));
  const json::object file{{"v", 1},           {"keyId", f.key.id},      {"timestamp", f.timestamp},
                          {"nonce", f.nonce}, {"signature", signature}, {"body", text}};
  return licensed::armour(
      f.activation_id ? licensed::kDeactivationFileLabel : licensed::kActivationRequestLabel,
      json::serialize(file));
}

std::string Submission(const std::string& armoured) {
  return json::serialize(json::object{{"request", armoured}});
}

class OfflineActivation : public BlackboxTest {
 protected:
  HttpResponse Submit(const RequestFile& f,
                      std::optional<std::string> accept = std::nullopt) const {
    HttpRequest request = Signed(f.activation_id ? "offline-deactivate" : "offline-activate",
                                 Submission(MakeFile(f)));
    if (accept) request.Set("X-License-Accept-Signature", *accept);
    return Send(request);
  }

  // The payload the Python verifier prints, or nullopt when it refuses the file.
  std::optional<json::object> PythonVerifies(const std::string& armoured) const {
    const std::string keys = (dir().path() / "public-keys.json").string();
    const std::string file = (dir().path() / "activation.lic").string();
    std::ofstream(keys, std::ios::trunc) << GetPublicKeys().body;
    std::ofstream(file, std::ios::trunc) << armoured;
    const CommandResult r = RunCommand(
        {"/usr/bin/python3", LICENSED_ACTIVATION_VERIFIER, "--keys", keys, "--file", file});
    if (r.exit_code != 0) return std::nullopt;
    return ParseJson(r.out).as_object();
  }

  std::string SetLicense(const std::string& license, const std::string& assignments) const {
    return StoreSql(
        store(), "UPDATE licenses SET " + assignments + " WHERE license_key = '" + license + "'");
  }
};

std::string FileOf(const HttpResponse& r) {
  return Str(BodyJson(r), "activationFile");
}

std::string Reason(const HttpResponse& r) {
  return Str(BodyJson(r), "reason");
}

TEST_F(OfflineActivation, AFileIssuedForARequestVerifiesWithAnIndependentImplementation) {
  Start();
  const std::string license = NewLicense(2);
  const RequestFile request(license, "studio-mac-0001");
  EXPECT_LT(MakeFile(request).size(), 1024u) << "a phone carries it as a QR code";
  const HttpResponse r = Submit(request);
  ASSERT_OK(r);
  EXPECT_EQ(Int(BodyJson(r), "activations"), 1);
  const auto payload = PythonVerifies(FileOf(r));
  ASSERT_TRUE(payload.has_value()) << FileOf(r);
  EXPECT_EQ(payload->at("licenseKey").as_string(), license);
  EXPECT_EQ(payload->at("machine").as_object().at("id").as_string(), "studio-mac-0001");
  EXPECT_EQ(payload->at("requestNonce").as_string(), request.nonce);
  EXPECT_EQ(payload->at("id").as_string().size(), 32u);

  // One byte of the payload changed: the same verifier refuses it.
  const auto bytes = licensed::dearmour_as(FileOf(r), licensed::kActivationFileLabel);
  ASSERT_TRUE(bytes);
  json::object outer = ParseJson(std::string(bytes->begin(), bytes->end())).as_object();
  std::string p = *Base64Decode(outer.at("payload").as_string());
  p[p.find("studio-mac-0001") + 14] = '2';
  outer["payload"] = Base64Encode(p);
  EXPECT_FALSE(
      PythonVerifies(licensed::armour(licensed::kActivationFileLabel, json::serialize(outer))));
}

TEST_F(OfflineActivation, AnEs256ClientGetsAnEs256SignedFile) {
  Start();
  const std::string license = NewLicense(1);
  const HttpResponse r = Submit(RequestFile(license, "studio-mac-0001"), "es256");
  ASSERT_OK(r);
  const auto bytes = licensed::dearmour_as(FileOf(r), licensed::kActivationFileLabel);
  ASSERT_TRUE(bytes);
  // No alg member (docs/protocol.md §21.3): the kid names the ES256 key, whose algorithm it is.
  const json::value outer = ParseJson(std::string(bytes->begin(), bytes->end()));
  EXPECT_FALSE(outer.as_object().contains("alg"));
  EXPECT_EQ(Str(outer, "kid").rfind("es256-", 0), 0u) << Str(outer, "kid");
  EXPECT_TRUE(PythonVerifies(FileOf(r)).has_value());
}

TEST_F(OfflineActivation,
       TheSlotOutlivesMachineTtlRenewalsRetireOldFilesAndReleaseFollowsTheLicense) {
  Start();
  const std::string license = NewLicense(1);
  SetLicense(license, "machine_ttl = 1");
  const RequestFile first(license, "studio-mac-0001");
  const HttpResponse issued = Submit(first);
  ASSERT_OK(issued);
  const std::string old_id = Str(*PythonVerifies(FileOf(issued)), "id");
  std::this_thread::sleep_for(2100ms);  // past machineTtl
  EXPECT_API_ERROR(Activate(license, "other-machine-01"), 409, 1705, "LICENSE_API_LIMIT_REACHED");

  const HttpResponse same = Submit(first);
  ASSERT_OK(same);
  EXPECT_EQ(Str(*PythonVerifies(FileOf(same)), "id"), old_id) << "the same nonce, the same file";
  const HttpResponse renewed = Submit(RequestFile(license, "studio-mac-0001"));
  ASSERT_OK(renewed);
  const std::string new_id = Str(*PythonVerifies(FileOf(renewed)), "id");
  EXPECT_NE(new_id, old_id);

  EXPECT_API_ERROR(Submit(Deactivation(license, "studio-mac-0001", old_id)), 404, 1707,
                   "LICENSE_API_MACHINE_NOT_ACTIVATED");
  EXPECT_API_ERROR(Deactivate(license, "studio-mac-0001"), 404, 1707,
                   "LICENSE_API_MACHINE_NOT_ACTIVATED");
  // offlineRelease "expiry" (the default): deactivated, but the slot holds until the end.
  ASSERT_OK(Submit(Deactivation(license, "studio-mac-0001", new_id)));
  EXPECT_API_ERROR(Activate(license, "other-machine-01"), 409, 1705, "LICENSE_API_LIMIT_REACHED");

  // offlineRelease "deactivation": a newer request activates again, its file frees at once.
  SetLicense(license, "offline_release = 'deactivation'");
  std::this_thread::sleep_for(1100ms);  // a request dated after the deactivation
  const HttpResponse again = Submit(RequestFile(license, "studio-mac-0001"));
  ASSERT_OK(again);
  const std::string id = Str(*PythonVerifies(FileOf(again)), "id");
  const HttpResponse freed = Submit(Deactivation(license, "studio-mac-0001", id));
  ASSERT_OK(freed);
  EXPECT_EQ(Int(BodyJson(freed), "activations"), 0);
  ASSERT_OK(Activate(license, "other-machine-01"));
  const auto records = AuditRecords(license, "license.deactivate");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_TRUE(Bool(records[0], "offline"));
}

TEST_F(OfflineActivation, DeactivationsBeyondTheQuotaAnswer1711WithRetryAfter) {
  Start();
  const std::string license = NewLicense(3);
  SetLicense(license, "max_deactivations = 1");
  ASSERT_OK(Activate(license, "machine-0001"));
  ASSERT_OK(Activate(license, "machine-0002"));
  ASSERT_OK(Deactivate(license, "machine-0001"));
  const HttpResponse refused = Deactivate(license, "machine-0002");
  EXPECT_API_ERROR(refused, 409, 1711, "LICENSE_API_DEACTIVATION_LIMIT");
  const json::value body = BodyJson(refused);
  EXPECT_EQ(Int(body, "deactivations"), 1);
  EXPECT_EQ(Int(body, "maxDeactivations"), 1);
  EXPECT_GT(Int(body, "retryAfter"), 29 * 86400);
  EXPECT_EQ(refused.header("Retry-After"), std::to_string(Int(body, "retryAfter")));
}

TEST_F(OfflineActivation, SixtyFourConcurrentDeactivationsNeverPassTheQuota) {
  Start();
  const std::string license = NewLicense(64);
  SetLicense(license, "max_deactivations = 10");
  std::vector<HttpRequest> deactivations;
  for (int i = 0; i < 64; ++i) {
    const std::string machine = "machine-" + std::to_string(1000 + i);
    ASSERT_OK(Activate(license, machine));
    deactivations.push_back(Signed("deactivate", Body(license, machine)));
  }
  int ok = 0;
  int limited = 0;
  for (const HttpResponse& r : SendAllAtOnce(deactivations)) {
    ok += r.status == 200;
    limited += r.status == 409 && Int(BodyJson(r), "code") == 1711;
  }
  EXPECT_EQ(ok, 10);
  EXPECT_EQ(limited, 54);
}

TEST_F(OfflineActivation, BadFilesAre1702ForTheFieldRequestWithTheirReason) {
  Start();
  const std::string license = NewLicense(1);
  const auto expect_reason = [&](const HttpResponse& r, const std::string& reason) {
    EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
    EXPECT_EQ(Str(BodyJson(r), "field"), "request");
    EXPECT_EQ(Reason(r), reason);
  };
  expect_reason(Submit(RequestFile(license, "studio-mac-0001", UnixNow() - 31 * 86400)), "too_old");
  expect_reason(Submit(RequestFile(license, "studio-mac-0001", UnixNow() + 25 * 3600)),
                "too_far_ahead");
  RequestFile wrong(license, "studio-mac-0001");
  wrong.key = {kPluginKey.id, "not the secret"};
  expect_reason(Submit(wrong), "signature_mismatch");
  RequestFile unknown(license, "studio-mac-0001");
  unknown.key = {"nobody", "x"};
  expect_reason(Submit(unknown), "unknown_key");
  std::string garbled = MakeFile(RequestFile(license, "studio-mac-0001"));
  garbled[garbled.find('\n') + 3] = '*';
  expect_reason(Call("offline-activate", Submission(garbled)), "malformed");
  EXPECT_API_ERROR(Submit(RequestFile(RandomUuidV4(), "studio-mac-0001")), 404, 1703,
                   "LICENSE_API_NOT_FOUND");
  // A request a day ahead of the clock (offline clocks drift) is still accepted.
  ASSERT_OK(Submit(RequestFile(license, "studio-mac-0001", UnixNow() + 23 * 3600)));
}

// Support submits the customer's file through the admin API (docs/protocol.md
// §21.7): POST /api/v1/admin/licenses/{key}/offline-activations
// and .../offline-deactivations, each answer checked against the OpenAPI document.
class AdminApiOffline : public OfflineActivation {
 protected:
  void SetUp() override {
    OfflineActivation::SetUp();
    Start();
    token_ = NewToken(false);
  }

  std::string NewToken(bool read_only) const {
    std::vector<std::string> args{"token", "create", "--name", read_only ? "auditor" : "support",
                                  "--json"};
    if (read_only) args.push_back("--read-only");
    const CommandResult r = admin().Run(args);
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    return Str(ParseJson(r.out), "token");
  }

  // POST of `body` to the license's `route` (offline-activations, offline-deactivations).
  HttpResponse AdminPost(const std::string& license, const std::string& route,
                         const std::string& body, const std::string& token = {}) {
    HttpRequest request;
    request.method = "POST";
    request.target = "/api/v1/admin/licenses/" + license + "/" + route;
    request.Set("Authorization", "Bearer " + (token.empty() ? token_ : token));
    request.Set("Content-Type", "application/json");
    request.body = body;
    HttpResponse r = Send(request);
    if (openapi_.is_null()) {
      HttpRequest doc;
      doc.method = "GET";
      doc.target = "/api/v1/openapi.json";
      openapi_ = ParseJson(Send(doc).body);
    }
    EXPECT_DOCUMENTED(openapi_, "post", "/api/v1/admin/licenses/{key}/" + route, r);
    return r;
  }

  HttpResponse AdminSubmit(const std::string& license, const RequestFile& f) {
    return AdminPost(license, f.activation_id ? "offline-deactivations" : "offline-activations",
                     Submission(MakeFile(f)));
  }

  std::string token_;
  json::value openapi_;
};

TEST_F(AdminApiOffline, SupportActivatesAMachineFromItsRequestFileAsTheAdmin) {
  const std::string license = NewLicense(2);
  const RequestFile request(license, "studio-mac-0001");
  const HttpResponse r = AdminSubmit(license, request);
  ASSERT_OK(r);
  const json::value body = BodyJson(r);
  EXPECT_EQ(Int(body, "activations"), 1);
  EXPECT_EQ(Int(body, "max"), 2);
  EXPECT_EQ(Str(body.at("machine"), "id"), "studio-mac-0001");
  EXPECT_TRUE(Bool(body.at("machine"), "offline"));
  const auto payload = PythonVerifies(FileOf(r));
  ASSERT_TRUE(payload.has_value()) << FileOf(r);
  EXPECT_EQ(payload->at("licenseKey").as_string(), license);
  EXPECT_EQ(payload->at("requestNonce").as_string(), request.nonce);
  // The admin path has no algorithm header: the Ed25519 key signs.
  const auto bytes = licensed::dearmour_as(FileOf(r), licensed::kActivationFileLabel);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(Str(ParseJson(std::string(bytes->begin(), bytes->end())), "kid").rfind("ed25519-", 0),
            0u);
  const auto records = AuditRecords(license, "license.activate");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(Str(records[0], "actor"), "admin");
  EXPECT_TRUE(Bool(records[0], "offline"));
  // The same request again is the same file (same id), as on the client endpoint.
  const HttpResponse again = AdminSubmit(license, request);
  ASSERT_OK(again);
  EXPECT_EQ(Str(*PythonVerifies(FileOf(again)), "id"), Str(*payload, "id"));
}

TEST_F(AdminApiOffline, ARequestForAnotherLicenseAnswers404With1703AndActivatesNothing) {
  const std::string path_license = NewLicense(1);
  const std::string other = NewLicense(1);
  EXPECT_API_ERROR(AdminSubmit(path_license, RequestFile(other, "studio-mac-0001")), 404, 1703,
                   "LICENSE_API_NOT_FOUND");
  EXPECT_API_ERROR(AdminSubmit(RandomUuidV4(), RequestFile(other, "studio-mac-0001")), 404, 1703,
                   "LICENSE_API_NOT_FOUND");
  EXPECT_TRUE(AuditRecords(other, "license.activate").empty());
  EXPECT_TRUE(AuditRecords(path_license, "license.activate").empty());
  // Its own license's path activates it.
  ASSERT_OK(AdminSubmit(other, RequestFile(other, "studio-mac-0001")));
}

TEST_F(AdminApiOffline, BadFilesAre1702ForTheFieldRequestWithTheirReason) {
  const std::string license = NewLicense(1);
  const auto expect_reason = [&](const HttpResponse& r, const std::string& reason) {
    EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
    EXPECT_EQ(Str(BodyJson(r), "field"), "request");
    EXPECT_EQ(Reason(r), reason);
  };
  expect_reason(
      AdminSubmit(license, RequestFile(license, "studio-mac-0001", UnixNow() - 31 * 86400)),
      "too_old");
  expect_reason(
      AdminSubmit(license, RequestFile(license, "studio-mac-0001", UnixNow() + 25 * 3600)),
      "too_far_ahead");
  RequestFile wrong(license, "studio-mac-0001");
  wrong.key = {kPluginKey.id, "not the secret"};
  expect_reason(AdminSubmit(license, wrong), "signature_mismatch");
  RequestFile unknown(license, "studio-mac-0001");
  unknown.key = {"nobody", "x"};
  expect_reason(AdminSubmit(license, unknown), "unknown_key");
  std::string garbled = MakeFile(RequestFile(license, "studio-mac-0001"));
  garbled[garbled.find('\n') + 3] = '*';
  expect_reason(AdminPost(license, "offline-activations", Submission(garbled)), "malformed");
  // A deactivation file is not a request file, and the other way round.
  expect_reason(
      AdminPost(
          license, "offline-activations",
          Submission(MakeFile(Deactivation(license, "studio-mac-0001", std::string(32, 'a'))))),
      "malformed");
  const HttpResponse no_request = AdminPost(license, "offline-activations", "{}");
  EXPECT_API_ERROR(no_request, 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_EQ(Str(BodyJson(no_request), "field"), "request");
  // A read-only token may not submit.
  EXPECT_EQ(AdminPost(license, "offline-activations",
                      Submission(MakeFile(RequestFile(license, "studio-mac-0001"))), NewToken(true))
                .status,
            403u);
  EXPECT_TRUE(AuditRecords(license, "license.activate").empty());
}

TEST_F(AdminApiOffline, SupportFreesAnOfflineSlotFromItsDeactivationFileWhateverTheQuota) {
  const std::string license = NewLicense(2);
  SetLicense(license, "offline_release = 'deactivation', max_deactivations = 1");
  // The customer's one deactivation of the window is used.
  ASSERT_OK(Activate(license, "machine-0001"));
  ASSERT_OK(Deactivate(license, "machine-0001"));
  const HttpResponse issued = AdminSubmit(license, RequestFile(license, "studio-mac-0001"));
  ASSERT_OK(issued);
  const std::string id = Str(*PythonVerifies(FileOf(issued)), "id");
  const std::string other = NewLicense(1);
  EXPECT_API_ERROR(AdminSubmit(other, Deactivation(license, "studio-mac-0001", id)), 404, 1703,
                   "LICENSE_API_NOT_FOUND");
  EXPECT_API_ERROR(
      AdminSubmit(license, Deactivation(license, "studio-mac-0001", std::string(32, 'b'))), 404,
      1707, "LICENSE_API_MACHINE_NOT_ACTIVATED");
  const HttpResponse freed = AdminSubmit(license, Deactivation(license, "studio-mac-0001", id));
  ASSERT_OK(freed);
  EXPECT_EQ(Int(BodyJson(freed), "activations"), 0);
  const auto records = AuditRecords(license, "license.deactivate");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(Str(records[1], "actor"), "admin");
  EXPECT_TRUE(Bool(records[1], "offline"));
  // Submitted again after success: 1707.
  EXPECT_API_ERROR(AdminSubmit(license, Deactivation(license, "studio-mac-0001", id)), 404, 1707,
                   "LICENSE_API_MACHINE_NOT_ACTIVATED");
}

TEST_F(AdminApiOffline, OfflineLeaseReleaseAndQuotaAreLicenseFieldsCopiedFromThePlan) {
  const auto call = [&](const std::string& method, const std::string& target,
                        const std::string& body, const std::string& path) {
    HttpRequest request;
    request.method = method;
    request.target = "/api/v1/admin" + target;
    request.Set("Authorization", "Bearer " + token_);
    request.Set("Content-Type", "application/json");
    request.body = body;
    HttpResponse r = Send(request);
    std::string lower = method;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_DOCUMENTED(openapi_, lower, "/api/v1/admin" + path, r);
    return r;
  };
  AdminPost(NewLicense(1), "offline-activations", "{}");  // loads the document
  const HttpResponse plan =
      call("POST", "/products/reverb/plans",
           R"({"code":"studio","name":"Studio","max":2,"offlineRelease":"deactivation",)"
           R"("offlineLease":"30d","maxDeactivations":5})",
           "/products/{slug}/plans");
  ASSERT_EQ(plan.status, 201u) << plan.Describe();
  EXPECT_EQ(Str(BodyJson(plan), "offlineRelease"), "deactivation");
  const HttpResponse bad_plan =
      call("POST", "/products/reverb/plans", R"({"code":"x","name":"X","offlineRelease":86400})",
           "/products/{slug}/plans");
  EXPECT_API_ERROR(bad_plan, 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_EQ(Str(BodyJson(bad_plan), "field"), "offlineRelease");

  const HttpResponse from_plan =
      call("POST", "/licenses", R"({"product":"reverb","plan":"studio"})", "/licenses");
  ASSERT_EQ(from_plan.status, 201u) << from_plan.Describe();
  const json::value made = BodyJson(from_plan);
  EXPECT_EQ(Str(made, "offlineRelease"), "deactivation");
  EXPECT_EQ(Int(made, "offlineLease"), 30 * 86400);
  EXPECT_EQ(Int(made, "maxDeactivations"), 5);

  const HttpResponse plain =
      call("POST", "/licenses", R"({"product":"reverb","max":1})", "/licenses");
  ASSERT_EQ(plain.status, 201u) << plain.Describe();
  EXPECT_EQ(Str(BodyJson(plain), "offlineRelease"), "expiry");
  EXPECT_EQ(Int(BodyJson(plain), "offlineLease"), 90 * 86400);
  EXPECT_TRUE(BodyJson(plain).at("maxDeactivations").is_null());
  const std::string key = Str(BodyJson(plain), "licenseKey");
  const HttpResponse patched =
      call("PATCH", "/licenses/" + key,
           R"({"offlineRelease":"deactivation","offlineLease":"7d","maxDeactivations":null})",
           "/licenses/{key}");
  ASSERT_EQ(patched.status, 200u) << patched.Describe();
  EXPECT_EQ(Str(BodyJson(patched), "offlineRelease"), "deactivation");
  EXPECT_EQ(Int(BodyJson(patched), "offlineLease"), 7 * 86400);
  EXPECT_EQ(Int(BodyJson(patched), "maxDeactivations"), 3) << "the default under deactivation";
  const HttpResponse bad =
      call("PATCH", "/licenses/" + key, R"({"maxDeactivations":-1})", "/licenses/{key}");
  EXPECT_API_ERROR(bad, 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_EQ(Str(BodyJson(bad), "field"), "maxDeactivations");
  // The file a 7d lease gives ends 7 days after it was issued.
  const HttpResponse issued = AdminSubmit(key, RequestFile(key, "studio-mac-0001"));
  ASSERT_OK(issued);
  const auto payload = PythonVerifies(FileOf(issued));
  ASSERT_TRUE(payload.has_value());
  const auto issued_at = licensed::parse_timestamp(Str(*payload, "issuedAt"));
  const auto expires_at = licensed::parse_timestamp(Str(*payload, "expiresAt"));
  ASSERT_TRUE(issued_at && expires_at);
  EXPECT_EQ(*expires_at - *issued_at, 7LL * 86'400'000);
  const auto updates = AuditRecords(key, "license.update");
  ASSERT_EQ(updates.size(), 3u) << "one record per field changed";
}

// `licensed admin license offline-activate KEY REQUEST_FILE --out FILE` (docs/protocol.md
// §21.7): the same submission from the vendor's command line, against the store.
class AdminCliOffline : public OfflineActivation {
 protected:
  std::string WriteRequest(const RequestFile& f, const std::string& name) const {
    std::string path = (dir().path() / name).string();
    std::ofstream(path, std::ios::trunc) << MakeFile(f);
    return path;
  }

  CommandResult OfflineActivate(const std::string& license, const std::string& request,
                                const std::string& out, const SigningKey& key = kPluginKey) const {
    return admin().Run({"license", "offline-activate", license, request, "--out", out,
                        "--signing-key", key.id + "=" + key.secret, "--json"});
  }

  static std::string Contents(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), {}};
  }
};

TEST_F(AdminCliOffline, WritesAFileTheServersKeyVerifiesAndNeverOverwritesOut) {
  Start();
  const std::string license = NewLicense(1);
  const std::string request = WriteRequest(RequestFile(license, "studio-mac-0001"), "req.txt");
  const std::string out = (dir().path() / "activation.lic").string();
  const CommandResult r = OfflineActivate(license, request, out);
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_EQ(Int(ParseJson(r.out), "activations"), 1);
  EXPECT_FALSE(ParseJson(r.out).as_object().contains("activationFile")) << "it is in --out";
  const std::string file = Contents(out);
  const auto payload = PythonVerifies(file);
  ASSERT_TRUE(payload.has_value()) << file;
  EXPECT_EQ(payload->at("licenseKey").as_string(), license);
  EXPECT_EQ(std::filesystem::status(out).permissions() & std::filesystem::perms::all,
            std::filesystem::perms(0644));
  const auto records = AuditRecords(license, "license.activate");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(Str(records[0], "actor"), "admin");
  EXPECT_TRUE(Bool(records[0], "offline"));

  // `license show` says the machine is offline and until when, and the license's fields.
  const CommandResult shown = admin().Run({"license", "show", license});
  ASSERT_EQ(shown.exit_code, 0) << shown.Describe();
  EXPECT_NE(shown.out.find("studio-mac-0001  offline until " + Str(*payload, "expiresAt")),
            std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("offlineRelease \"expiry\""), std::string::npos) << shown.out;

  // An existing --out is refused and left as it was.
  const std::string renewal = WriteRequest(RequestFile(license, "studio-mac-0001"), "req2.txt");
  const CommandResult again = OfflineActivate(license, renewal, out);
  EXPECT_EQ(again.exit_code, 1) << again.Describe();
  EXPECT_NE(again.err.find("not overwritten"), std::string::npos) << again.Describe();
  EXPECT_EQ(Contents(out), file);
}

TEST_F(AdminCliOffline, RefusesAnotherLicensesRequestAndABadFileWithTheirCodes) {
  Start();
  const std::string license = NewLicense(1);
  const std::string other = NewLicense(1);
  const std::string out = (dir().path() / "activation.lic").string();
  const CommandResult foreign = OfflineActivate(
      license, WriteRequest(RequestFile(other, "studio-mac-0001"), "other.txt"), out);
  EXPECT_EQ(foreign.exit_code, 1) << foreign.Describe();
  EXPECT_NE(foreign.err.find("1703"), std::string::npos) << foreign.Describe();
  RequestFile forged(license, "studio-mac-0001");
  forged.key = {kPluginKey.id, "not the secret"};
  const CommandResult bad = OfflineActivate(license, WriteRequest(forged, "forged.txt"), out);
  EXPECT_EQ(bad.exit_code, 1) << bad.Describe();
  EXPECT_NE(bad.err.find("signature_mismatch"), std::string::npos) << bad.Describe();
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_TRUE(AuditRecords(license, "license.activate").empty());
  EXPECT_TRUE(AuditRecords(other, "license.activate").empty());
  // Without the signing keys the file cannot be checked: a usage error.
  const CommandResult no_keys =
      admin().Run({"license", "offline-activate", license,
                   WriteRequest(RequestFile(license, "studio-mac-0001"), "r.txt"), "--out", out});
  EXPECT_EQ(no_keys.exit_code, 2) << no_keys.Describe();
}

}  // namespace
}  // namespace bb
