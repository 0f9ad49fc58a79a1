// What every surface's translation table test shares: a table has one row per internal
// status, in StatusCode's order, so a status added without a row in each surface's table
// fails (at compile time through the tables' static_assert on their size, and here when
// a row is out of place), and readable test names for each row.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <utility>

#include "core/status.h"

namespace bb {

// Each row of `rows` names its status in the member `code`.
template <class Row, size_t N>
void ExpectOneRowPerStatus(const Row (&rows)[N]) {
  static_assert(N == licensed::kStatusCodeCount, "one row per StatusCode");
  for (size_t i = 0; i < N; ++i) {
    EXPECT_EQ(static_cast<size_t>(rows[i].code), i)
        << "row " << i << " is for " << licensed::status_code_name(rows[i].code);
  }
}

// An Error of `code` with every member set, as a row runs it through a surface.
inline licensed::Error SampleError(licensed::StatusCode code, std::string message,
                                   std::string subject) {
  licensed::Error e;
  e.code = code;
  e.message = std::move(message);
  e.subject = std::move(subject);
  e.retry_after_seconds = 7;
  return e;
}

// "InvalidArgument", "NotFound", ...: a parameterised test's name for a row.
template <class Row>
std::string StatusRowName(const ::testing::TestParamInfo<Row>& info) {
  std::string name;
  bool upper = true;
  for (char c : licensed::status_code_name(info.param.code)) {
    if (c == ' ') {
      upper = true;
      continue;
    }
    name += upper ? static_cast<char>(c - 'a' + 'A') : c;
    upper = false;
  }
  return name;
}

}  // namespace bb
