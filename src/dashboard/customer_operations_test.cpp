#include "dashboard/customer_operations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json/serialize.hpp>

#include "admin/admin_leases.h"
#include "core/operations.h"
#include "core/timestamp.h"
#include "store/sqlite/memory_test_store.h"

namespace licensed {
namespace {

constexpr UnixMillis kStart = 1'795'000'000'000;

TEST(MaskMachineIdTest, KeepsTheFirstAndLastFourCodePoints) {
  EXPECT_EQ(mask_machine_id("studio-pc-7f3a9c21"), "stud\u20269c21");
  EXPECT_EQ(mask_machine_id("123456789"), "1234\u20266789");
  EXPECT_EQ(mask_machine_id("12345678"), "12\u2026");
  // Code points, not bytes: a multi-byte character is never cut in half.
  EXPECT_EQ(mask_machine_id("\u00e9\u00e9\u00e9\u00e9-middle-\u00fc\u00fc\u00fc\u00fc"),
            "\u00e9\u00e9\u00e9\u00e9\u2026\u00fc\u00fc\u00fc\u00fc");
}

class CustomerOperationsTest : public ::testing::Test {
 protected:
  AdminContext admin() const { return AdminContext{kStart, std::nullopt}; }

  template <class Fn>
  auto write(Fn&& fn) {
    return run_blocking(*store_, TxKind::kWrite, std::forward<Fn>(fn));
  }

  void SetUp() override {
    store_ = open_memory_test_store();
    ASSERT_TRUE(store_);
    key_ = write([&](StoreTx& tx) -> Result<std::string> {
             ASSIGN_OR_RETURN(auto p, create_product(tx, "reverb", "Reverb Pro", admin()));
             LicenseSpec spec{p.slug, 2, std::nullopt, std::nullopt, LicenseStatus::kActive, "", {},
                              {},     {}};
             ASSIGN_OR_RETURN(auto l, create_license(tx, spec, admin()));
             return l.key;
           }).value();
    activate("studio-pc-7f3a9c21", "Studio PC");
    activate("laptop-0b91d2c4", std::nullopt);
  }

  void activate(const std::string& machine, std::optional<std::string> name) {
    LicenseRequest req{key_, machine, std::move(name), {}, {}, {}, {}};
    auto r = write([&](StoreTx& tx) {
      OperationContext ctx;
      ctx.now = kStart;
      return activate_license(tx, req, ctx);
    });
    ASSERT_TRUE(r.ok());
  }

  static RequestResult<boost::json::object> activate_license(StoreTx& tx, const LicenseRequest& req,
                                                             const OperationContext& ctx) {
    return run_operation(Endpoint::kActivate, tx, req, ctx);
  }

  boost::json::object view() {
    return write([&](StoreTx& tx) { return customer_license_view(tx, key_, kStart); }).value();
  }

  // An offline file's inner body as the handler passes it on (its checks done already).
  static LicenseRequest offline_file(const std::string& key, const std::string& machine,
                                     std::optional<std::string> activation_id = std::nullopt) {
    LicenseRequest req;
    req.license_key = key;
    req.machine_id = machine;
    req.offline = OfflineOrigin{"k", kStart / 1000, "nonce-" + activation_id.value_or(machine),
                                std::move(activation_id)};
    return req;
  }

  static std::string fixed_activation_id() { return std::string(32, 'a'); }

  static OperationContext offline_context() {
    OperationContext ctx;
    ctx.now = kStart + 1000;
    ctx.new_activation_id = &fixed_activation_id;
    return ctx;
  }

  std::string other_license() {
    return write([&](StoreTx& tx) -> Result<std::string> {
             LicenseSpec spec{
                 "reverb", 1, std::nullopt, std::nullopt, LicenseStatus::kActive, "", {}, {}, {}};
             ASSIGN_OR_RETURN(auto l, create_license(tx, spec, admin()));
             return l.key;
           })
        .value();
  }

  std::string audit_of_last_deactivation_actor() {
    const auto audit = write([&](StoreTx& tx) { return license_audit(tx, key_); }).value();
    return std::string(audit.back().at("actor").as_string());
  }

  std::unique_ptr<SqliteStore> store_;
  std::string key_;
};

TEST_F(CustomerOperationsTest, TheViewShowsMaskedMachinesAndTheAudit) {
  const auto v = view();
  EXPECT_EQ(v.at("product").at("name").as_string(), "Reverb Pro");
  EXPECT_EQ(v.at("status").as_string(), "ACTIVE");
  EXPECT_EQ(v.at("activationCount").as_int64(), 2);
  const auto& machines = v.at("activations").as_array();
  ASSERT_EQ(machines.size(), 2u);
  const std::string all = boost::json::serialize(v);
  EXPECT_EQ(all.find("studio-pc-7f3a9c21"), std::string::npos) << all;
  EXPECT_NE(all.find("stud\u20269c21"), std::string::npos) << all;
  const auto& audit = v.at("audit").at("items").as_array();
  ASSERT_EQ(audit.size(), 3u);  // two activations, create: newest first
  EXPECT_EQ(audit[0].at("action").as_string(), "license.activate");
  EXPECT_EQ(audit[2].at("action").as_string(), "license.create");
  EXPECT_FALSE(audit[0].as_object().contains("actorName"));
  EXPECT_FALSE(audit[0].as_object().contains("ip"));
  EXPECT_TRUE(v.at("audit").at("nextCursor").is_null());
}

TEST_F(CustomerOperationsTest, TheViewShowsWhoHoldsASeatUntilWhenWithMaskedIdsAndNoEndedLease) {
  ASSERT_TRUE(write([&](StoreTx& tx) {
                return set_license_seat_field(tx, key_, SeatField::kMaxConcurrent, 2, admin());
              }).ok());
  ASSERT_TRUE(write([&](StoreTx& tx) {
                return set_license_seat_field(tx, key_, SeatField::kMaxBorrow, 3600, admin());
              }).ok());
  // The named machine holds its default seat; the unnamed one borrows a seat of its own
  // session.
  const auto checkout = [&](const std::string& machine, std::optional<std::string> session,
                            std::optional<std::string> borrow, UnixMillis at) {
    LicenseRequest req{key_, machine, std::nullopt, {}, {}, std::move(session), std::move(borrow)};
    return write([&](StoreTx& tx) {
             OperationContext ctx;
             ctx.now = at;
             ctx.new_activation_id = [] { return std::string(32, 'b'); };  // a borrow's file id
             return run_operation(Endpoint::kCheckout, tx, req, ctx);
           })
        .ok();
  };
  ASSERT_TRUE(checkout("studio-pc-7f3a9c21", std::nullopt, std::nullopt, kStart));
  ASSERT_TRUE(checkout("laptop-0b91d2c4", "tour-laptop-session", "1h", kStart));

  const auto v = view();
  EXPECT_EQ(v.at("maxConcurrent").as_int64(), 2);
  const auto& leases = v.at("leases").as_array();
  ASSERT_EQ(leases.size(), 2u) << boost::json::serialize(v);
  const auto& held = leases[0].as_object();  // earliest end first: 15 minutes
  EXPECT_EQ(held.at("machineId").as_string(), "stud\u20269c21");
  EXPECT_EQ(held.at("name").as_string(), "Studio PC");
  EXPECT_EQ(held.at("sessionId").as_string(), "stud\u20269c21");  // the machine id, masked
  EXPECT_EQ(held.at("expiresAt").as_string(), format_timestamp(kStart + 15 * 60'000));
  EXPECT_FALSE(held.at("borrowed").as_bool());
  const auto& borrowed = leases[1].as_object();
  EXPECT_EQ(borrowed.at("machineId").as_string(), "lapt\u2026d2c4");
  EXPECT_TRUE(borrowed.at("name").is_null());
  EXPECT_EQ(borrowed.at("sessionId").as_string(), "tour-laptop-session");
  EXPECT_EQ(borrowed.at("expiresAt").as_string(), format_timestamp(kStart + 3'600'000));
  EXPECT_TRUE(borrowed.at("borrowed").as_bool());
  const std::string all = boost::json::serialize(v);
  EXPECT_EQ(all.find("laptop-0b91d2c4"), std::string::npos) << all;

  // 20 minutes later the unrenewed seat has ended (its row is still stored: no checkout
  // dropped it) and is not shown; the borrowed one is.
  const auto later = write([&](StoreTx& tx) {
                       return customer_license_view(tx, key_, kStart + 20 * 60'000);
                     }).value();
  const auto& left = later.at("leases").as_array();
  ASSERT_EQ(left.size(), 1u) << boost::json::serialize(later);
  EXPECT_EQ(left[0].at("sessionId").as_string(), "tour-laptop-session");
}

TEST_F(CustomerOperationsTest, ALicenseWithoutASeatCapShowsNoLeases) {
  const auto v = view();
  EXPECT_TRUE(v.at("maxConcurrent").is_null());
  EXPECT_TRUE(v.at("leases").as_array().empty());
}

TEST_F(CustomerOperationsTest, TheViewShowsOnlyTheNewestPageOfALongHistory) {
  for (int i = 0; i < 30; ++i) activate("studio-pc-7f3a9c21", "Studio PC");  // refreshes
  const auto v = view();
  const auto& audit = v.at("audit").at("items").as_array();
  ASSERT_EQ(audit.size(), static_cast<size_t>(kCustomerAuditPage.default_limit));
  EXPECT_TRUE(audit[0].at("refresh").as_bool());
  EXPECT_TRUE(v.at("audit").at("nextCursor").is_string());
}

TEST_F(CustomerOperationsTest, FollowingTheCursorShowsEveryRecordOnceNewestFirst) {
  for (int i = 0; i < 7; ++i) activate("studio-pc-7f3a9c21", "Studio PC");  // 10 in all
  std::vector<int64_t> ids;
  std::optional<std::string> cursor;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = parse_page("3", cursor, kCustomerAuditPage);
    ASSERT_TRUE(page.ok());
    auto shown = write([&](StoreTx& tx) { return customer_audit_page(tx, key_, page.value()); });
    ASSERT_TRUE(shown.ok());
    const auto& items = shown->at("items").as_array();
    EXPECT_LE(items.size(), 3u);
    for (const auto& r : items) ids.push_back(r.at("id").as_int64());
    if (shown->at("nextCursor").is_null()) break;
    cursor = std::string(shown->at("nextCursor").as_string());
  }
  ASSERT_EQ(ids.size(), 10u);
  EXPECT_TRUE(std::is_sorted(ids.rbegin(), ids.rend()));
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

TEST_F(CustomerOperationsTest, AHistoryPageIsBoundedAndRefusesAForeignCursor) {
  EXPECT_FALSE(parse_page("101", std::nullopt, kCustomerAuditPage).ok());
  EXPECT_FALSE(parse_page("0", std::nullopt, kCustomerAuditPage).ok());
  auto foreign = parse_page(std::nullopt, "bm90LWFuLWlk", kCustomerAuditPage);  // "not-an-id"
  ASSERT_TRUE(foreign.ok());
  auto shown = write([&](StoreTx& tx) { return customer_audit_page(tx, key_, foreign.value()); });
  ASSERT_FALSE(shown.ok());
  EXPECT_EQ(shown.error().code, StatusCode::kInvalidArgument);
  EXPECT_EQ(shown.error().subject, "cursor");
}

TEST_F(CustomerOperationsTest, FreeingASlotIsAuditedWithActorCustomer) {
  const std::string handle = machine_handle("laptop-0b91d2c4");
  AdminContext customer{kStart + 1000, std::nullopt, Actor::kCustomer, "203.0.113.9"};
  ASSERT_TRUE(
      write([&](StoreTx& tx) { return customer_free_slot(tx, key_, handle, customer); }).ok());
  const auto audit = write([&](StoreTx& tx) { return license_audit(tx, key_); }).value();
  const auto& last = audit.back().as_object();
  EXPECT_EQ(last.at("action").as_string(), "license.deactivate");
  EXPECT_EQ(last.at("actor").as_string(), "customer");
  EXPECT_EQ(last.at("machineId").as_string(), "laptop-0b91d2c4");
  EXPECT_EQ(last.at("ip").as_string(), "203.0.113.9");
  EXPECT_EQ(view().at("activationCount").as_int64(), 1);
  // Gone now: the same handle frees nothing.
  auto again = write([&](StoreTx& tx) { return customer_free_slot(tx, key_, handle, customer); });
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, StatusCode::kNotFound);
  EXPECT_EQ(again.error().subject, subjects::kMachineId);
}

TEST_F(CustomerOperationsTest, ADeletedOrUnknownLicenseIsNotFound) {
  ASSERT_TRUE(write([&](StoreTx& tx) { return delete_license(tx, key_, admin()); }).ok());
  auto deleted = write([&](StoreTx& tx) { return customer_license_view(tx, key_, kStart); });
  ASSERT_FALSE(deleted.ok());
  EXPECT_EQ(deleted.error().code, StatusCode::kNotFound);
  EXPECT_EQ(deleted.error().subject, subjects::kLicenseKey);
  auto garbage = write([&](StoreTx& tx) { return find_customer_license(tx, "not-a-key"); });
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.error().code, StatusCode::kNotFound);
  EXPECT_EQ(garbage.error().subject, subjects::kLicenseKey);
}

TEST_F(CustomerOperationsTest, AnOfflineFileForAnotherLicenseIsRefusedAsAnUnknownKey) {
  const std::string other = other_license();
  auto activated = write([&](StoreTx& tx) {
    return customer_offline_activate(tx, key_, offline_file(other, "studio-rack-0001"),
                                     offline_context());
  });
  ASSERT_FALSE(activated.ok());
  ASSERT_NE(activated.error().answer(), nullptr) << activated.error().message();
  EXPECT_EQ(activated.error().answer()->code, ErrorCode::kNotFound);
  EXPECT_NE(activated.error().message().find("another license"), std::string::npos);
  auto deactivated = write([&](StoreTx& tx) {
    return customer_offline_deactivate(tx, key_, offline_file(other, "studio-rack-0001", "x"),
                                       offline_context());
  });
  ASSERT_FALSE(deactivated.ok());
  ASSERT_NE(deactivated.error().answer(), nullptr);
  EXPECT_EQ(deactivated.error().answer()->code, ErrorCode::kNotFound);
  const auto shown = write([&](StoreTx& tx) { return customer_license_view(tx, other, kStart); });
  EXPECT_EQ(shown.value().at("activationCount").as_int64(), 0);
}

TEST_F(CustomerOperationsTest, AnOfflineActivationIsTheCustomersShownOfflineAndEndsWithItsFile) {
  AdminContext customer{kStart, std::nullopt, Actor::kCustomer, "203.0.113.9"};
  ASSERT_TRUE(write([&](StoreTx& tx) {
                return customer_free_slot(tx, key_, machine_handle("laptop-0b91d2c4"), customer);
              }).ok());
  const std::string machine = "studio-rack-0001";
  auto activated = write([&](StoreTx& tx) {
    return customer_offline_activate(tx, key_, offline_file(key_, machine), offline_context());
  });
  ASSERT_TRUE(activated.ok()) << activated.error().message();
  const auto answer = customer_activation_answer(activated.value());
  EXPECT_EQ(answer.at("machine").at("machineId").as_string(), mask_machine_id(machine));
  EXPECT_EQ(answer.at("expiresAt"), activated.value().at("machine").at("offlineUntil"));
  EXPECT_EQ(answer.at("activations").as_int64(), 2);
  EXPECT_FALSE(answer.at("machine").as_object().contains("id"));

  auto shown_machine = [&]() -> boost::json::object {
    const auto v = view();
    for (const auto& m : v.at("activations").as_array()) {
      if (m.at("handle").as_string() == machine_handle(machine)) return m.as_object();
    }
    return {};
  };
  EXPECT_TRUE(shown_machine().at("offline").as_bool());
  EXPECT_EQ(shown_machine().at("offlineUntil"), answer.at("expiresAt"));
  const auto audit = write([&](StoreTx& tx) { return license_audit(tx, key_); }).value();
  EXPECT_EQ(audit.back().at("actor").as_string(), "customer");
  EXPECT_TRUE(audit.back().at("offline").as_bool());

  // Its slot is freed with its deactivation file, not by the plain free-slot.
  auto plain = write(
      [&](StoreTx& tx) { return customer_free_slot(tx, key_, machine_handle(machine), customer); });
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.error().code, StatusCode::kConflict);
  auto deactivated = write([&](StoreTx& tx) {
    return customer_offline_deactivate(tx, key_, offline_file(key_, machine, fixed_activation_id()),
                                       offline_context());
  });
  ASSERT_TRUE(deactivated.ok()) << deactivated.error().message();
  // "expiry" (the default): marked deactivated, still counted until the file's end.
  EXPECT_TRUE(shown_machine().contains("deactivatedAt"));
  EXPECT_EQ(view().at("activationCount").as_int64(), 2);
  EXPECT_EQ(audit_of_last_deactivation_actor(), "customer");
}

TEST(NormalizePastedKey, AKeyPastedWithSpacesLineBreaksQuotesAndUpperCaseIsTheKey) {
  const std::string key = "1b4e28ba-2fa1-41d2-883f-0016d3cca427";
  EXPECT_EQ(normalize_pasted_key(key), key);
  EXPECT_EQ(normalize_pasted_key(" " + key), key);
  EXPECT_EQ(normalize_pasted_key("\t" + key + "\r\n"), key);
  EXPECT_EQ(normalize_pasted_key("1B4E28BA-2FA1-41D2-883F-0016D3CCA427"), key);
  EXPECT_EQ(normalize_pasted_key("\"" + key + "\""), key);
  EXPECT_EQ(normalize_pasted_key("'" + key + "'"), key);
  EXPECT_EQ(normalize_pasted_key("`" + key + "`"), key);
  EXPECT_EQ(normalize_pasted_key("<" + key + ">"), key);
  EXPECT_EQ(normalize_pasted_key("\u201C" + key + "\u201D"), key) << "curly quotes";
  EXPECT_EQ(normalize_pasted_key("\u00AB\u00A0" + key + "\u00A0\u00BB"), key) << "guillemets";
  EXPECT_EQ(normalize_pasted_key("\uFEFF\u200B" + key), key) << "zero-width";
  // An email client wrapped the key at a dash.
  EXPECT_EQ(normalize_pasted_key("1b4e28ba-2fa1-41d2-\n  883f-0016d3cca427"), key);
  EXPECT_EQ(normalize_pasted_key("1b4e28ba\u20132fa1\u201341d2\u2014883f\u20110016d3cca427"), key)
      << "typographic dashes";
}

TEST(NormalizePastedKey, KeepsWhatIsNotAKeyRecognisablyWrong) {
  EXPECT_EQ(normalize_pasted_key(""), "");
  EXPECT_EQ(normalize_pasted_key("  \n "), "");
  EXPECT_EQ(normalize_pasted_key("Not A Key"), "notakey");
  EXPECT_EQ(normalize_pasted_key("caf\u00C9"), "caf\u00C9") << "only ASCII letters change case";
}

}  // namespace
}  // namespace licensed
