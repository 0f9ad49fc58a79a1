#include "store/webhook_records.h"

#include <algorithm>

namespace licensed {

std::string webhook_events_to_store(const std::vector<std::string>& events) {
  if (events.empty() || std::find(events.begin(), events.end(), "*") != events.end()) return "*";
  std::string out = ",";
  for (const auto& e : events) out += e + ",";
  return out;
}

std::vector<std::string> webhook_events_from_store(const std::string& column) {
  if (column == "*") return {"*"};
  std::vector<std::string> out;
  size_t start = 1;
  while (start < column.size()) {
    const size_t end = column.find(',', start);
    if (end == std::string::npos) break;
    if (end > start) out.push_back(column.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace licensed
