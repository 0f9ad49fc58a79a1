// Reading a server log written with `--log-format json`: one JSON object per line.
#pragma once

#include <string>
#include <vector>

#include "support/json_util.h"

namespace bb {

// The log's lines (without their '\n'; a last line without one included).
std::vector<std::string> LogLines(const std::string& log);
// Each line parsed; a line that is not a JSON object with string members time, level
// and msg is a test failure (ADD_FAILURE naming it) and is left out.
std::vector<json::object> JsonLogLines(const std::string& log);

}  // namespace bb
