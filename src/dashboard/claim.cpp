#include "dashboard/claim.h"

#include <algorithm>
#include <map>
#include <utility>

#include "admin/storefront_operations.h"
#include "core/timestamp.h"

namespace licensed {
namespace {

constexpr size_t kMaxStripeSessionIdLength = 255;

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_id_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool is_stripe_session_id(std::string_view id) {
  if (!id.starts_with("cs_test_") && !id.starts_with("cs_live_")) return false;
  const std::string_view rest = id.substr(8);
  return !rest.empty() && id.size() <= kMaxStripeSessionIdLength &&
         std::all_of(rest.begin(), rest.end(), is_id_char);
}

bool is_uuid(std::string_view id) {
  if (id.size() != 36) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    const bool dash_here = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash_here ? id[i] != '-' : !is_hex(id[i])) return false;
  }
  return true;
}

// The order `id` names in the store: as a reference first, else as the order id itself.
Result<std::optional<std::string>> find_order_id(StoreTx& tx, int64_t store_id,
                                                 std::string_view id) {
  ASSIGN_OR_RETURN(auto order, tx.find_order_by_reference(store_id, id));
  if (order) return order;
  ASSIGN_OR_RETURN(const auto keys, tx.order_license_keys(store_id, id));
  if (keys.empty()) return std::optional<std::string>();
  return std::optional<std::string>(id);
}

// The name of a license's plan (its code when the plan is gone), looked up once per plan.
class PlanNames {
 public:
  explicit PlanNames(StoreTx& tx) : tx_(tx) {}
  Result<std::string> of(const License& license) {
    if (!license.plan) return std::string();
    const auto at = std::make_pair(license.product.id, *license.plan);
    if (const auto it = names_.find(at); it != names_.end()) return it->second;
    ASSIGN_OR_RETURN(const auto plan, tx_.find_plan(license.product.id, *license.plan));
    std::string name = plan && !plan->name.empty() ? plan->name : *license.plan;
    names_.emplace(at, name);
    return name;
  }

 private:
  StoreTx& tx_;
  std::map<std::pair<int64_t, std::string>, std::string> names_;
};

Result<ClaimedOrder> read_order(StoreTx& tx, const std::vector<std::string>& keys, UnixMillis now) {
  ClaimedOrder order;
  PlanNames plans(tx);
  bool first = true;
  for (const std::string& key : keys) {
    ASSIGN_OR_RETURN(const auto license, tx.find_license(key));
    if (!license) continue;
    // The order's age is its first license's, deleted or not: deleting one never
    // extends the page's life.
    if (first) order.ordered_at = license->created_at;
    first = false;
    if (license->deleted_at) continue;
    if (!order.customer_name && license->customer) order.customer_name = license->customer->name;
    ASSIGN_OR_RETURN(std::string plan, plans.of(*license));
    order.keys.push_back(ClaimedKey{license->key, license->product.name, std::move(plan),
                                    license->expires_at, license->valid_for_pending_seconds,
                                    std::string(effective_status(*license, now))});
  }
  return order;
}

std::string date_of(UnixMillis t) {
  return format_timestamp(t).substr(0, 10);  // YYYY-MM-DD, UTC
}

std::string expiry_text(const ClaimedKey& k) {
  if (k.expires_at) return date_of(*k.expires_at);
  if (k.valid_for_pending_seconds) {
    const int64_t days = *k.valid_for_pending_seconds / 86400;
    return std::to_string(days) + (days == 1 ? " day" : " days") + " from first activation";
  }
  return "Never";
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string page(std::string_view title, std::string_view head_extra, std::string_view body) {
  std::string out =
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"robots\" content=\"noindex\">\n";
  out.append(head_extra);
  out.append("<title>").append(html_escape(title)).append("</title>\n");
  out.append("<link rel=\"stylesheet\" href=\"/dashboard/assets/app.css\">\n</head>\n<body>\n");
  out.append("<main id=\"main\" class=\"claim\">\n")
      .append(body)
      .append("</main>\n</body>\n</html>\n");
  return out;
}

std::string fact(std::string_view term, std::string_view escaped_value) {
  return "<div><dt>" + std::string(term) + "</dt><dd>" + std::string(escaped_value) +
         "</dd></div>\n";
}

std::string key_card(const ClaimedKey& k, size_t n) {
  const std::string id = "key-" + std::to_string(n);
  std::string out = "<section class=\"card claim-key\" aria-labelledby=\"" + id + "-title\">\n";
  out += "<h2 id=\"" + id + "-title\">" + html_escape(k.product) + "</h2>\n<dl class=\"facts\">\n";
  if (!k.plan.empty()) out += fact("Plan", html_escape(k.plan));
  out += fact("Expires", html_escape(expiry_text(k)));
  if (k.status != "ACTIVE") {
    out += fact("Status", "<span class=\"badge badge-" + html_escape(lower(k.status)) + "\">" +
                              html_escape(k.status) + "</span>");
  }
  out += "</dl>\n<label for=\"" + id + "\">License key</label>\n";
  out += "<input id=\"" + id +
         "\" class=\"mono license-key\" readonly spellcheck=\"false\" value=\"" +
         html_escape(k.key) + "\">\n</section>\n";
  return out;
}

}  // namespace

std::optional<std::string_view> claim_id_provider(std::string_view id) {
  if (is_stripe_session_id(id)) return "stripe";
  if (is_uuid(id)) return "lemonsqueezy";
  return std::nullopt;
}

Result<std::optional<ClaimedOrder>> find_claimed_order(StoreTx& tx, std::string_view store_id,
                                                       std::string_view id, UnixMillis now) {
  const std::optional<std::string_view> provider = claim_id_provider(id);
  const std::optional<int64_t> sid = parse_storefront_id(store_id);
  if (!provider || !sid) return std::optional<ClaimedOrder>();
  ASSIGN_OR_RETURN(const auto store, tx.find_storefront(*sid));
  if (!store || store->provider != *provider) return std::optional<ClaimedOrder>();
  ASSIGN_OR_RETURN(const auto order_id, find_order_id(tx, *sid, id));
  if (!order_id) return std::optional<ClaimedOrder>();
  ASSIGN_OR_RETURN(const auto keys, tx.order_license_keys(*sid, *order_id));
  ASSIGN_OR_RETURN(ClaimedOrder order, read_order(tx, keys, now));
  if (order.keys.empty() || now - order.ordered_at >= kClaimLifetimeMs) {
    return std::optional<ClaimedOrder>();
  }
  return std::optional<ClaimedOrder>(std::move(order));
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string claim_page_html(const ClaimedOrder& order) {
  std::string body = "<h1>Your license keys</h1>\n<p>";
  if (order.customer_name && !order.customer_name->empty()) {
    body += "Thank you for your purchase, " + html_escape(*order.customer_name) + ". ";
  } else {
    body += "Thank you for your purchase. ";
  }
  body += "Keep your " + std::string(order.keys.size() == 1 ? "key" : "keys") +
          " somewhere safe: this page shows " +
          std::string(order.keys.size() == 1 ? "it" : "them") + " until <time>" +
          date_of(order.ordered_at + kClaimLifetimeMs) + "</time>.</p>\n";
  for (size_t i = 0; i < order.keys.size(); ++i) body += key_card(order.keys[i], i + 1);
  body +=
      "<p class=\"muted\">Enter a key in the application to activate it. To see a key's "
      "machines or free one, sign in to the <a href=\"/dashboard\">license dashboard</a> "
      "with it.</p>\n";
  return page("Your license keys", "", body);
}

std::string claim_waiting_html(int attempt) {
  const bool reloads = attempt < kClaimRefreshAttempts;
  std::string head;
  if (reloads) {
    head = "<meta http-equiv=\"refresh\" content=\"" + std::to_string(kClaimRefreshSeconds) +
           "; url=?try=" + std::to_string(attempt + 1) + "\">\n";
  }
  std::string body =
      "<h1>Your license keys</h1>\n<div class=\"card\">\n"
      "<p>There are no keys to show here yet. If you have just paid, your keys are being "
      "prepared: ";
  body += reloads ? "this page checks again every " + std::to_string(kClaimRefreshSeconds) +
                        " seconds.</p>\n"
                  : "they are taking longer than usual; reload this page in a few minutes.</p>\n";
  body +=
      "<p class=\"muted\">Otherwise this link is not right, or it has expired: it works for 30 "
      "days after the purchase. Your receipt from the store tells you how to reach the "
      "seller.</p>\n</div>\n";
  return page("Your license keys", head, body);
}

std::string claim_busy_html(int64_t retry_after_seconds) {
  const std::string body =
      "<h1>Too many requests</h1>\n<div class=\"card\">\n<p>Too many requests came from your "
      "address. Please try again in " +
      std::to_string(retry_after_seconds) + " seconds.</p>\n</div>\n";
  return page("Too many requests", "", body);
}

std::string claim_failure_html() {
  return page("Your license keys", "",
              "<h1>Your license keys</h1>\n<div class=\"card\">\n<p>Your keys cannot be "
              "shown right now. Please reload this page in a minute.</p>\n</div>\n");
}

int claim_attempt_of(std::string_view query) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (pair.starts_with("try=")) {
      const std::string_view digits = pair.substr(4);
      if (digits.empty() || digits.size() > 3 ||
          !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return 1;
      }
      return std::clamp(std::stoi(std::string(digits)), 1, kClaimRefreshAttempts);
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return 1;
}

}  // namespace licensed
