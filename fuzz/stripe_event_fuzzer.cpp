// Fuzzes the parsers of Stripe's webhook payloads (src/admin/stripe_event.h): the event,
// its Checkout Session, and the list of line items Stripe's API answers.
//
// The input is a body, given to parse_stripe_event (then parse_stripe_checkout) and to
// parse_stripe_line_items alike.
//
// Invariants, besides crashes, leaks and UB: a refusal is kInvalidArgument naming a
// member; an accepted event has an id and a type; an accepted session has an id and a
// payment status; every accepted line has a price id and a quantity from 1 to
// kMaxUnitsPerLine; the order made from them keeps the event's id, the session's id and
// the lines as they were; fulfilment never acts on an event type but the two checkout ones.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "admin/stripe_event.h"
#include "fuzz_checks.h"

namespace licensed::fuzz {
namespace {

void check_refusal(const Error& e) {
  require(e.code == StatusCode::kInvalidArgument, "a refusal is not kInvalidArgument");
  require(!e.subject.empty(), "a refusal names no member");
}

void check_lines(const std::vector<OrderLine>& lines) {
  for (const auto& l : lines) {
    require(!l.item_id.empty(), "a line without a price id");
    require(l.quantity >= 1 && l.quantity <= kMaxUnitsPerLine, "a quantity out of range");
  }
}

}  // namespace
}  // namespace licensed::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace licensed;
  using namespace licensed::fuzz;
  const std::string_view body(reinterpret_cast<const char*>(data), size);

  auto lines = parse_stripe_line_items(body);
  if (lines.ok()) {
    check_lines(lines.value());
  } else {
    check_refusal(lines.error());
  }

  auto event = parse_stripe_event(body);
  if (!event.ok()) {
    check_refusal(event.error());
    return 0;
  }
  require(!event->id.empty() && !event->type.empty(), "an event without id or type");
  auto checkout = parse_stripe_checkout(event.value());
  if (!checkout.ok()) {
    check_refusal(checkout.error());
    return 0;
  }
  require(!checkout->session_id.empty() && !checkout->payment_status.empty(),
          "a session without id or payment status");
  if (checkout->lines) check_lines(*checkout->lines);
  if (stripe_fulfils(event.value(), checkout.value())) {
    require(event->type == "checkout.session.completed" ||
                event->type == "checkout.session.async_payment_succeeded",
            "fulfils an event that is not a checkout");
  }
  const auto given = checkout->lines.value_or(std::vector<OrderLine>{});
  const VerifiedOrder order = stripe_order(event.value(), checkout.value(), given);
  require(order.event_key == event->id, "the event key is not the event's id");
  require(order.order_id == checkout->session_id, "the order id is not the session's id");
  require(order.lines.size() == given.size(), "the order lost lines");
  return 0;
}
