#include "load/run_stats.h"

#include <fmt/format.h>

namespace licensed::bench {
namespace {

template <class K>
void add_all(std::map<K, uint64_t>& into, const std::map<K, uint64_t>& from) {
  for (const auto& [k, n] : from) into[k] += n;
}

double millis(uint64_t nanos) {
  return static_cast<double>(nanos) / 1e6;
}

struct Quantile {
  const char* label;  // for people
  const char* key;    // for JSON
  double percent;
};
constexpr Quantile kQuantiles[] = {
    {"p50", "p50", 50}, {"p90", "p90", 90}, {"p99", "p99", 99}, {"p99.9", "p999", 99.9}};

}  // namespace

uint64_t RunStats::transport_error_count() const {
  uint64_t n = 0;
  for (const auto& [what, count] : transport_errors) n += count;
  return n;
}

void RunStats::merge(const RunStats& o) {
  latency.merge(o.latency);
  answered += o.answered;
  ok += o.ok;
  expected_refusals += o.expected_refusals;
  add_all(by_status, o.by_status);
  add_all(errors, o.errors);
  add_all(transport_errors, o.transport_errors);
  warmup_answered += o.warmup_answered;
  signatures_plain += o.signatures_plain;
  signatures_in_trees += o.signatures_in_trees;
  signatures_failed += o.signatures_failed;
}

double RunSummary::throughput() const {
  return measured_seconds > 0 ? static_cast<double>(stats.answered) / measured_seconds : 0.0;
}

std::string text_report(const RunSummary& s) {
  const RunStats& st = s.stats;
  std::string out;
  out += fmt::format("scenario     {}\n", s.scenario);
  out += fmt::format("target       {} ({} connections, {} thread{})\n", s.target, s.connections,
                     s.threads, s.threads == 1 ? "" : "s");
  out += fmt::format("measured     {:.2f} s", s.measured_seconds);
  if (s.warmup_seconds > 0) {
    out += fmt::format(" after a {:.1f} s warm-up ({} answers left out)", s.warmup_seconds,
                       st.warmup_answered);
  }
  out += "\n";
  out += fmt::format("answers      {} ({} 2xx", st.answered, st.ok);
  if (st.expected_refusals > 0) out += fmt::format(", {} expected refusals", st.expected_refusals);
  out += ")\n";
  out += fmt::format("throughput   {:.0f} req/s\n", s.throughput());
  out += "latency     ";
  for (const auto& q : kQuantiles) {
    out += fmt::format(" {} {:.3f} ms", q.label, millis(st.latency.percentile(q.percent)));
  }
  out += fmt::format("  max {:.3f} ms  mean {:.3f} ms\n", millis(st.latency.max()),
                     st.latency.mean() / 1e6);
  out += "by status   ";
  for (const auto& [status, n] : st.by_status) out += fmt::format(" {}: {}", status, n);
  out += "\n";
  for (const auto& [what, n] : st.errors) out += fmt::format("error        {}: {}\n", what, n);
  if (s.verify_every == 0) {
    out += "signatures   not checked\n";
  } else {
    out += fmt::format(
        "signatures   {} checked (every {}th answer): {} verified ({} in trees), {} failed{}\n",
        st.signatures_plain + st.signatures_in_trees + st.signatures_failed, s.verify_every,
        st.signatures_plain + st.signatures_in_trees, st.signatures_in_trees, st.signatures_failed,
        st.signatures_failed > 0 ? "  <- ANSWERS THAT DO NOT VERIFY" : "");
  }
  if (st.transport_errors.empty()) out += "transport    no errors\n";
  for (const auto& [what, n] : st.transport_errors) {
    out += fmt::format("transport    {}: {}\n", what, n);
  }
  return out;
}

boost::json::object json_report(const RunSummary& s) {
  const RunStats& st = s.stats;
  boost::json::object latency;
  for (const auto& q : kQuantiles) latency[q.key] = millis(st.latency.percentile(q.percent));
  latency["min"] = millis(st.latency.min());
  latency["max"] = millis(st.latency.max());
  latency["mean"] = st.latency.mean() / 1e6;
  boost::json::object by_status;
  for (const auto& [status, n] : st.by_status) by_status[std::to_string(status)] = n;
  boost::json::object errors;
  for (const auto& [what, n] : st.errors) errors[what] = n;
  boost::json::object transport;
  for (const auto& [what, n] : st.transport_errors) transport[what] = n;

  boost::json::object out;
  out["scenario"] = s.scenario;
  out["target"] = s.target;
  out["connections"] = s.connections;
  out["threads"] = s.threads;
  out["warmupSeconds"] = s.warmup_seconds;
  out["measuredSeconds"] = s.measured_seconds;
  out["answered"] = st.answered;
  out["ok"] = st.ok;
  out["expectedRefusals"] = st.expected_refusals;
  out["unexpectedErrors"] = st.answered - st.ok - st.expected_refusals;
  out["transportErrors"] = st.transport_error_count();
  out["throughput"] = s.throughput();
  out["latencyMs"] = std::move(latency);
  out["byStatus"] = std::move(by_status);
  out["errors"] = std::move(errors);
  out["transport"] = std::move(transport);
  out["warmupAnswered"] = st.warmup_answered;
  out["signatures"] = boost::json::object{
      {"every", s.verify_every},
      {"checked", st.signatures_plain + st.signatures_in_trees + st.signatures_failed},
      {"verified", st.signatures_plain + st.signatures_in_trees},
      {"verifiedInTrees", st.signatures_in_trees},
      {"failed", st.signatures_failed}};
  return out;
}

}  // namespace licensed::bench
