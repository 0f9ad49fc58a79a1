#include "admin/support_api.h"

#include <algorithm>
#include <map>
#include <set>

#include "admin/list_page.h"
#include "core/operations.h"
#include "core/timestamp.h"

namespace licensed {
namespace {

namespace json = boost::json;

constexpr int64_t kDayMillis = 86'400'000;
constexpr int64_t kDefaultStatsDays = 30;
constexpr int64_t kMaxStatsDays = 366;
constexpr int64_t kDefaultNearestCap = 10;
constexpr int64_t kMaxNearestCap = 100;

std::optional<std::string_view> query_value(const AdminCall& call, std::string_view name) {
  for (const auto& [key, value] : call.query) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

// A whole number query value in [1, max]; `fallback` when absent.
ApiResult<int64_t> bounded(const AdminCall& call, std::string_view name, int64_t fallback,
                           int64_t max) {
  const auto text = query_value(call, name);
  if (!text || text->empty()) return fallback;
  int64_t n = 0;
  for (const char c : *text) {
    if (c < '0' || c > '9' || n > max) {
      return errors::malformed(
          name, std::string(name) + " is a whole number from 1 to " + std::to_string(max));
    }
    n = n * 10 + (c - '0');
  }
  if (n < 1 || n > max) {
    return errors::malformed(
        name, std::string(name) + " is a whole number from 1 to " + std::to_string(max));
  }
  return n;
}

json::value optional_json(const std::optional<std::string>& v) {
  return v ? json::value(*v) : json::value(nullptr);
}

json::object refusal_json(const Refusal& r) {
  return json::object{{"at", format_timestamp(r.at)},
                      {"code", r.code},
                      {"machineId", optional_json(r.machine_id)},
                      {"machineName", optional_json(r.machine_name)},
                      {"ip", optional_json(r.ip)},
                      {"keyId", optional_json(r.key_id)},
                      {"requestId", optional_json(r.request_id)}};
}

// The first day shown: `days` UTC days ending today.
int64_t first_day(UnixMillis now, int64_t days) {
  return now / kDayMillis - (days - 1);
}

std::string day_text(int64_t day) {
  return format_timestamp(day * kDayMillis).substr(0, 10);
}

// One entry per day from `first` to today, each series present (0 when none), so a
// chart needs no gap filling: {"days": [{"day": "2026-11-24", "<series>": n, ...}]}.
json::object per_day_json(const std::vector<DayCount>& counts, int64_t first, int64_t last,
                          const std::vector<std::string>& series) {
  std::map<std::pair<int64_t, std::string>, int64_t> by_day;
  for (const DayCount& c : counts) by_day[{c.day, c.series}] += c.count;
  json::array days;
  for (int64_t d = first; d <= last; ++d) {
    json::object entry{{"day", day_text(d)}};
    for (const std::string& s : series) {
      const auto it = by_day.find({d, s});
      entry[s] = it == by_day.end() ? 0 : it->second;
    }
    days.push_back(std::move(entry));
  }
  return json::object{{"from", day_text(first)}, {"to", day_text(last)}, {"days", std::move(days)}};
}

RequestResult<AdminAnswer> licenses_by_status(StoreTx& tx, const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const auto counts, tx.count_licenses_by_status(ctx.now));
  json::object by_status;
  for (const char* status : {"ACTIVE", "EXPIRED", "SUSPENDED", "REFUNDED", "REVOKED"}) {
    by_status[status] = 0;
  }
  int64_t total = 0;
  for (const auto& [status, n] : counts) {
    by_status[status] = n;
    total += n;
  }
  return AdminAnswer{200, json::object{{"statuses", std::move(by_status)}, {"total", total}}};
}

RequestResult<AdminAnswer> activations_per_day(StoreTx& tx, const AdminCall& call,
                                               const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const int64_t days, bounded(call, "days", kDefaultStatsDays, kMaxStatsDays));
  const int64_t first = first_day(ctx.now, days);
  ASSIGN_OR_RETURN(const auto counts, tx.count_activations_per_day(first * kDayMillis));
  return AdminAnswer{200, per_day_json(counts, first, ctx.now / kDayMillis, {"activations"})};
}

// Refusals are kept 30 days, so at most 30 days are asked for.
RequestResult<AdminAnswer> refusals_per_day(StoreTx& tx, const AdminCall& call,
                                            const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const int64_t days, bounded(call, "days", kDefaultStatsDays, 30));
  const int64_t first = first_day(ctx.now, days);
  ASSIGN_OR_RETURN(const auto counts, tx.count_refusals_per_day(first * kDayMillis));
  return AdminAnswer{
      200, per_day_json(counts, first, ctx.now / kDayMillis, {"1705", "1710", "1711", "1712"})};
}

// A trial converted when its machine activated a license of the same product that is not
// a trial, after the trial started: the machine is only kept as an HMAC for trials, so
// the paid activations' machine ids are put through the same HMAC here.
RequestResult<AdminAnswer> trials(StoreTx& tx, const AdminCall& call, const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const int64_t days, bounded(call, "days", kDefaultStatsDays, kMaxStatsDays));
  const int64_t first = first_day(ctx.now, days);
  ASSIGN_OR_RETURN(const auto started, tx.list_trials_since(first * kDayMillis));
  std::map<std::pair<int64_t, std::string>, UnixMillis> latest_paid;
  if (call.trial_identity != nullptr && !started.empty()) {
    ASSIGN_OR_RETURN(const auto paid, tx.list_paid_activations_since(first * kDayMillis));
    for (const PaidActivation& a : paid) {
      const auto key = std::make_pair(a.product_id, call.trial_identity->machine(a.machine_id));
      const auto it = latest_paid.find(key);
      if (it == latest_paid.end() || a.activated_at > it->second) latest_paid[key] = a.activated_at;
    }
  }
  std::vector<DayCount> counts;
  int64_t converted = 0;
  for (const TrialStart& t : started) {
    counts.push_back(DayCount{t.created_at / kDayMillis, "started", 1});
    const auto it = latest_paid.find({t.product_id, t.machine_hmac});
    if (it != latest_paid.end() && it->second >= t.created_at) {
      ++converted;
      counts.push_back(DayCount{t.created_at / kDayMillis, "converted", 1});
    }
  }
  json::object answer = per_day_json(counts, first, ctx.now / kDayMillis, {"started", "converted"});
  answer["started"] = static_cast<int64_t>(started.size());
  answer["converted"] = converted;
  return AdminAnswer{200, std::move(answer)};
}

RequestResult<AdminAnswer> nearest_cap(StoreTx& tx, const AdminCall& call,
                                       const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const int64_t limit, bounded(call, "limit", kDefaultNearestCap, kMaxNearestCap));
  ASSIGN_OR_RETURN(const auto rows, tx.licenses_nearest_cap(ctx.now, limit));
  json::array items;
  for (const CapUse& c : rows) {
    items.push_back(json::object{{"licenseKey", c.license_key},
                                 {"product", c.product_slug},
                                 {"used", c.used},
                                 {"max", c.max}});
  }
  return AdminAnswer{200, json::object{{"items", std::move(items)}}};
}

}  // namespace

RequestResult<AdminAnswer> list_refusals_call(StoreTx& tx, const AdminCall& call,
                                              const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const License l, find_any_license(tx, call.license_key));
  ASSIGN_OR_RETURN(const PageRequest page,
                   parse_page(query_value(call, "limit"), query_value(call, "cursor"),
                              {kDefaultPageLimit, kMaxPageLimit}));
  ASSIGN_OR_RETURN(const int64_t before, after_id(page));
  ASSIGN_OR_RETURN(std::vector<Refusal> rows,
                   tx.list_refusals(l.key, ctx.now - kRefusalsKeptMillis, before, page.limit + 1));
  return AdminAnswer{200, page_json(std::move(rows), page.limit, refusal_json,
                                    [](const Refusal& r) { return std::to_string(r.id); })};
}

RequestResult<AdminAnswer> stats_call(StoreTx& tx, const AdminCall& call, const AdminContext& ctx) {
  switch (call.route) {
    case AdminRoute::kStatsLicenses:
      return licenses_by_status(tx, ctx);
    case AdminRoute::kStatsActivations:
      return activations_per_day(tx, call, ctx);
    case AdminRoute::kStatsRefusals:
      return refusals_per_day(tx, call, ctx);
    case AdminRoute::kStatsTrials:
      return trials(tx, call, ctx);
    default:
      return nearest_cap(tx, call, ctx);
  }
}

std::optional<std::vector<std::string_view>> known_query_names(AdminRoute route) {
  switch (route) {
    case AdminRoute::kListLicenses:
      return std::vector<std::string_view>{"limit", "cursor",  "product", "status", "deleted",
                                           "email", "orderId", "key",     "machine"};
    case AdminRoute::kListRefusals:
    case AdminRoute::kListAudit:
    case AdminRoute::kListActivations:
      return std::vector<std::string_view>{"limit", "cursor"};
    case AdminRoute::kStatsLicenses:
      return std::vector<std::string_view>{};
    case AdminRoute::kStatsActivations:
    case AdminRoute::kStatsRefusals:
    case AdminRoute::kStatsTrials:
      return std::vector<std::string_view>{"days"};
    case AdminRoute::kStatsNearestCap:
      return std::vector<std::string_view>{"limit"};
    default:
      return std::nullopt;
  }
}

}  // namespace licensed
