// What a load run observed, and its two reports: text for people, JSON for scripts.
// Each load thread fills its own RunStats; the report merges them after the run.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <string>

#include "load/latency_histogram.h"

namespace licensed::bench {

struct RunStats {
  LatencyHistogram latency;        // every answered request in the measured window
  uint64_t answered = 0;           // responses in the measured window, any status
  uint64_t ok = 0;                 // 2xx among them
  uint64_t expected_refusals = 0;  // non-2xx the scenario provokes (activate-hot's 409 1705)
  std::map<int, uint64_t> by_status;
  // Non-2xx answers by "STATUS CODE ERROR", e.g. "409 1705 LICENSE_API_LIMIT_REACHED";
  // just "STATUS" when the body names no API error.
  std::map<std::string, uint64_t> errors;
  // Failures below HTTP (connect, write, read, timeout) by "where: what".
  std::map<std::string, uint64_t> transport_errors;
  uint64_t warmup_answered = 0;  // answered during the warm-up, not in the figures
  // Sampled answers whose signature was checked (load/answer_check.h), warm-up included:
  // verified in the plain form, verified as part of a tree, or not verified.
  uint64_t signatures_plain = 0;
  uint64_t signatures_in_trees = 0;
  uint64_t signatures_failed = 0;

  uint64_t transport_error_count() const;
  void merge(const RunStats& other);
};

struct RunSummary {
  std::string scenario;
  std::string target;  // http://host:port
  size_t connections = 0;
  size_t threads = 0;
  uint64_t verify_every = 0;  // every Nth answer's signature was checked; 0: none
  double warmup_seconds = 0;
  double measured_seconds = 0;  // from the end of the warm-up to the last answer
  RunStats stats;

  double throughput() const;  // answers per second in the measured window
};

std::string text_report(const RunSummary& summary);
boost::json::object json_report(const RunSummary& summary);

}  // namespace licensed::bench
