#include "http/dashboard_handler.h"

#include <spdlog/spdlog.h>

#include <boost/beast/http/field.hpp>
#include <boost/json/parse.hpp>
#include <boost/url/parse.hpp>
#include <memory>

#include "auth/request_signature.h"
#include "core/request_body.h"
#include "dashboard/customer_operations.h"
#include "dashboard/dashboard_assets.h"
#include "http/bucket_check.h"
#include "http/client_address.h"
#include "http/dashboard_error.h"
#include "http/license_api_error.h"
#include "observability/internal_error.h"
#include "observability/log_fields.h"
#include "observability/redaction.h"

namespace licensed {
namespace {

namespace http = boost::beast::http;
namespace json = boost::json;

constexpr std::string_view kAssetsPrefix = "/dashboard/assets/";
constexpr int64_t kSessionSeconds = 3600;

// default-src 'self' with no inline script or style: an injected tag runs nothing.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'";

Route route_of(DashboardRoute r) {
  return Route{r, "dashboard"};
}

ApiResult<Route> only(std::string_view method, std::string_view allowed, DashboardRoute r) {
  if (method != allowed) return errors::method_not_allowed(allowed);
  return route_of(r);
}

std::optional<std::string_view> header(const HttpRequest& req, std::string_view name) {
  const auto it = req.find(name);
  if (it == req.end()) return std::nullopt;
  return std::string_view(it->value().data(), it->value().size());
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// The session id of the request's Cookie header, if it names one.
std::optional<std::string> session_cookie(const HttpRequest& req) {
  std::string_view cookies = header(req, "Cookie").value_or("");
  while (!cookies.empty()) {
    const auto semi = cookies.find(';');
    const std::string_view pair = trim(cookies.substr(0, semi));
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == kSessionCookie) {
      // Anything but a well-formed id is no session, known without asking the store.
      const std::string_view id = pair.substr(eq + 1);
      return is_session_id(id) ? std::optional<std::string>(id) : std::nullopt;
    }
    if (semi == std::string_view::npos) break;
    cookies.remove_prefix(semi + 1);
  }
  return std::nullopt;
}

void add_security_headers(HttpResponse& res) {
  res.set("Content-Security-Policy", kContentSecurityPolicy);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "no-referrer");
  res.set("X-Frame-Options", "DENY");
}

HttpResponse dashboard_json(unsigned status, const json::object& body,
                            std::string_view request_id) {
  HttpResponse res = json_response(status, body, request_id);
  res.set(http::field::cache_control, "no-store");
  add_security_headers(res);
  return res;
}

HttpResponse dashboard_error(const ApiError& e, std::string_view request_id) {
  HttpResponse res = error_response(e, request_id);
  res.set(http::field::cache_control, "no-store");
  add_security_headers(res);
  return res;
}

HttpResponse dashboard_error(const Error& e, DashboardStep step, std::string_view request_id) {
  return dashboard_error(to_dashboard_error(e, step), request_id);
}

HttpResponse asset_response(const EmbeddedFile& file, std::string_view request_id,
                            std::string_view cache_control) {
  HttpResponse res = json_response(200, {}, request_id);
  res.set(http::field::content_type, file.content_type);
  res.set(http::field::cache_control, cache_control);
  res.body() = std::string(file.bytes);
  res.prepare_payload();
  add_security_headers(res);
  return res;
}

ApiError csrf_refused() {
  ApiError e = errors::forbidden();
  e.message = "this change needs the session's X-CSRF-Token header";
  return e;
}

std::string cookie_header(std::string_view value, int64_t max_age, bool secure) {
  std::string c = std::string(kSessionCookie) + "=" + std::string(value) +
                  "; Path=/; Max-Age=" + std::to_string(max_age) + "; HttpOnly; SameSite=Strict";
  if (secure) c += "; Secure";
  return c;
}

bool came_over_https(const HttpRequest& req, bool public_url_is_https) {
  // Only ever makes the cookie stricter, so a client claiming https gains nothing.
  return public_url_is_https || header(req, "X-Forwarded-Proto").value_or("") == "https";
}

// The JSON object body of a change, under the License API's strict rules.
ApiResult<json::object> json_body(const HttpRequest& req) {
  if (!is_json_content_type(header(req, "Content-Type").value_or(""))) {
    return errors::malformed("", "the body must be sent as Content-Type: application/json");
  }
  return parse_json_object_body(req.body());
}

ApiResult<std::string> string_member(const json::object& body, std::string_view name) {
  const json::value* v = body.if_contains(name);
  if (v == nullptr || !v->is_string() || v->as_string().size() > 200) {
    return errors::malformed(name, std::string(name) + " is required, a string");
  }
  return std::string(v->as_string());
}

// The page of history a request asks for: `cursor` (the previous page's nextCursor)
// and `limit` in its query.
ApiResult<PageRequest> audit_page_request(const HttpRequest& req) {
  const auto url =
      boost::urls::parse_origin_form(std::string_view(req.target().data(), req.target().size()));
  if (!url) return errors::malformed("", "the request target is not a valid URL path");
  std::optional<std::string> limit;
  std::optional<std::string> cursor;
  for (auto p : url->params()) {
    if (p.key == "limit") limit = std::string(p.value);
    if (p.key == "cursor") cursor = std::string(p.value);
  }
  auto page = parse_page(limit, cursor, kCustomerAuditPage);
  if (!page.ok()) return to_dashboard_error(page.error(), DashboardStep::kSignedIn);
  return std::move(page.value());
}

// Runs `fn` in a store transaction and replies with its answer: `fn(tx)` gives a
// Result<json::object>; an error is replied as to_dashboard_error says, a 1709 also
// reported.
template <class Fn>
void run_and_reply(Store* store, TxKind kind, const Clock* clock, ErrorReporter* reporter,
                   std::string_view route, const RequestContext& ctx, const HttpReply& reply,
                   Fn fn) {
  submit_call<json::object>(
      *store, kind, std::move(fn),
      [request_id = std::string(ctx.request_id), route = std::string(route), reply, clock,
       reporter](Result<json::object> answer) {
        if (answer.ok()) return reply(dashboard_json(200, answer.value(), request_id));
        const ApiError e = to_dashboard_error(answer.error(), DashboardStep::kSignedIn);
        if (is_internal_error(e)) {
          report_internal_error(reporter, "dashboard", route, request_id, "", clock->now_ms());
        }
        reply(dashboard_error(e, request_id));
      });
}

// Opens a session for `license_key` and answers the sign-in with its cookie and token;
// `extra` goes into the answer too (what a sign-in link says of the refused machine).
void open_session(SessionStore* sessions, const std::string& license_key, bool secure,
                  const std::string& request_id, const HttpReply& reply, json::object extra = {}) {
  sessions->open_async(license_key, [secure, request_id, reply,
                                     extra = std::move(extra)](Result<NewDashboardSession> opened) {
    if (!opened.ok()) {
      return reply(dashboard_error(opened.error(), DashboardStep::kSignIn, request_id));
    }
    json::object body = extra;
    body["ok"] = true;
    body["csrfToken"] = opened->csrf_token;
    HttpResponse res = dashboard_json(200, body, request_id);
    res.set(http::field::set_cookie, cookie_header(opened->id, kSessionSeconds, secure));
    reply(std::move(res));
  });
}

// What the page is told of the machine a sign-in link was made for: masked as every
// machine id on the page is, so the full id never reaches it.
json::object refused_machine(const SignInLink& link) {
  json::object machine{{"machineId", mask_machine_id(link.machine_id)}};
  machine["name"] =
      link.machine_name.empty() ? json::value(nullptr) : json::value(link.machine_name);
  return json::object{{"refused", machine}};
}

// The signed-in dashboard's translation, as a plain function for RequestError::answer_or.
ApiError signed_in_error(const Error& e) {
  return to_dashboard_error(e, DashboardStep::kSignedIn);
}

// The file a change's body carries: {"request": "<armoured text>"} (at most 4 KiB, as the
// License API takes it), read as a file of `kind` with its inner body.
ApiResult<OfflineFile> offline_file_body(const HttpRequest& req, OfflineFileKind kind) {
  if (!is_json_content_type(header(req, "Content-Type").value_or(""))) {
    return errors::malformed("", "the body must be sent as Content-Type: application/json");
  }
  const Endpoint endpoint =
      kind == OfflineFileKind::kRequest ? Endpoint::kOfflineActivate : Endpoint::kOfflineDeactivate;
  ASSIGN_OR_RETURN(const LicenseRequest outer, parse_license_request(endpoint, req.body()));
  return parse_offline_file(outer.offline_text, kind);
}

}  // namespace

// A dashboard request that may park on Redis (its buckets, its session), and what the
// steps after a park need. `request` and the strings of `ctx` are the connection's, kept
// until the request is answered.
struct DashboardVisit {
  const HttpRequest* request = nullptr;
  RequestContext ctx;
  DashboardRoute route{};
  HttpReply reply;
  std::string session_id;
  DashboardSession session;
};

namespace {

using Visit = std::shared_ptr<DashboardVisit>;

// `next(visit, value)`, resumed on the visit's connection once a check answered.
template <class T, class Next>
Completion<T> resume_visit(const Visit& visit, Next next) {
  return resume_on<T>(visit->ctx.executor,
                      [visit, next](T value) { next(visit, std::move(value)); });
}

Visit new_visit(const HttpRequest& req, const RequestContext& ctx, DashboardRoute route,
                HttpReply reply) {
  auto visit = std::make_shared<DashboardVisit>();
  visit->request = &req;
  visit->ctx = ctx;
  visit->route = route;
  visit->reply = std::move(reply);
  return visit;
}

// `next(visit)` once a check passed, resumed on the visit's connection; the check's
// refusal is the answer otherwise.
template <class Next>
CheckDone unless_refused(const Visit& visit, Next next) {
  return resume_visit<std::optional<ApiError>>(
      visit, [next](const Visit& v, std::optional<ApiError> refused) {
        if (refused) return v->reply(dashboard_error(*refused, v->ctx.request_id));
        next(v);
      });
}

bool is_read(DashboardRoute r) {
  return r == DashboardRoute::kLicense || r == DashboardRoute::kAudit;
}

}  // namespace

bool is_dashboard_path(std::string_view path) {
  return path == kDashboardPath ||
         (path.substr(0, kDashboardPath.size()) == kDashboardPath &&
          path.size() > kDashboardPath.size() && path[kDashboardPath.size()] == '/');
}

ApiResult<Route> DashboardHandler::route(std::string_view method, std::string_view path) const {
  using R = DashboardRoute;
  if (path == "/dashboard" || path == "/dashboard/") return only(method, "GET", R::kCustomerPage);
  if (path == "/dashboard/support") return only(method, "GET", R::kSupportPage);
  if (path.substr(0, kAssetsPrefix.size()) == kAssetsPrefix) {
    const std::string_view name = path.substr(kAssetsPrefix.size());
    if (name.find_first_of("/\\") != std::string_view::npos || name.ends_with(".html") ||
        !dashboard_asset(name)) {
      return errors::route_not_found();
    }
    return only(method, "GET", R::kAsset);
  }
  if (path == "/dashboard/api/session") {
    if (method == "POST") return route_of(R::kSignIn);
    if (method == "DELETE") return route_of(R::kSignOut);
    return errors::method_not_allowed("POST, DELETE");
  }
  if (path == "/dashboard/api/brand") return only(method, "GET", R::kBrand);
  if (path == "/dashboard/brand-logo" && !config_.brand.logo.empty()) {
    return only(method, "GET", R::kBrandLogo);
  }
  if (path == "/dashboard/api/license") return only(method, "GET", R::kLicense);
  if (path == "/dashboard/api/audit") return only(method, "GET", R::kAudit);
  if (path == "/dashboard/api/free-slot") return only(method, "POST", R::kFreeSlot);
  if (path == "/dashboard/api/offline-activate") return only(method, "POST", R::kOfflineActivate);
  if (path == "/dashboard/api/offline-deactivate") {
    return only(method, "POST", R::kOfflineDeactivate);
  }
  return errors::route_not_found();
}

void DashboardHandler::serve(const Route& route, const HttpRequest& req, const RequestContext& ctx,
                             HttpReply reply) const {
  using R = DashboardRoute;
  const auto r = route.as<R>();
  switch (r) {
    case R::kCustomerPage:
      return reply(asset_response(*dashboard_asset("customer.html"), ctx.request_id, "no-store"));
    case R::kSupportPage:
      return reply(asset_response(*dashboard_asset("support.html"), ctx.request_id, "no-store"));
    case R::kAsset: {
      const std::string_view name = ctx.path.substr(kAssetsPrefix.size());
      return reply(asset_response(*dashboard_asset(name), ctx.request_id, "no-cache"));
    }
    case R::kSignIn:
      return sign_in(req, ctx, std::move(reply));
    case R::kBrand: {
      HttpResponse res = dashboard_json(200, brand_json(config_.brand), ctx.request_id);
      res.set(http::field::cache_control, "no-cache");
      return reply(std::move(res));
    }
    case R::kBrandLogo: {
      const EmbeddedFile logo{config_.brand.logo, config_.brand.logo_type};
      return reply(asset_response(logo, ctx.request_id, "no-cache"));
    }
    default:
      break;
  }
  Visit visit = new_visit(req, ctx, r, std::move(reply));
  if (!is_read(r)) return find_session(visit);
  // Counted before the session is looked up: a looping client costs no store or Redis
  // lookup once its address is over the limit.
  check_bucket(config_.ip_read_limiter, ip_bucket_key(ctx.client_ip), "ip", config_.clock->now_ms(),
               unless_refused(visit, [this](const Visit& v) { find_session(v); }));
}

void DashboardHandler::finish_response(HttpResponse& res, const HttpRequestHeader*, const Route&,
                                       std::string_view) const {
  add_security_headers(res);
  if (res.find(http::field::cache_control) == res.end()) {
    res.set(http::field::cache_control, "no-store");
  }
}

void DashboardHandler::find_session(const Visit& visit) const {
  const auto id = session_cookie(*visit->request);
  if (!id) return visit->reply(dashboard_error(not_signed_in(), visit->ctx.request_id));
  visit->session_id = *id;
  config_.sessions->find_async(
      visit->session_id,
      resume_visit<FoundSession>(visit, [this](const Visit& v, FoundSession found) {
        with_session(v, std::move(found));
      }));
}

void DashboardHandler::with_session(const Visit& visit, FoundSession found) const {
  const std::string_view request_id = visit->ctx.request_id;
  if (!found.ok()) {
    return visit->reply(dashboard_error(found.error(), DashboardStep::kSignedIn, request_id));
  }
  if (!found.value()) return visit->reply(dashboard_error(not_signed_in(), request_id));
  visit->session = std::move(*found.value());
  if (!is_read(visit->route)) return act(visit);
  // Keyed by the id's hash: with Redis the bucket's name is stored there, and the id
  // itself is a credential.
  check_bucket(config_.session_read_limiter, sha256_hex(visit->session_id), "session",
               config_.clock->now_ms(), unless_refused(visit, [this](const Visit& v) { act(v); }));
}

void DashboardHandler::act(const Visit& visit) const {
  const HttpRequest& req = *visit->request;
  const RequestContext& ctx = visit->ctx;
  if (visit->route == DashboardRoute::kLicense) {
    return show_license(visit->session, ctx, visit->reply);
  }
  if (visit->route == DashboardRoute::kAudit) {
    return show_audit(req, visit->session, ctx, visit->reply);
  }
  // Changes: the page sends the token it got at sign-in; another site's page cannot
  // read it, so it cannot send it.
  if (!csrf_token_matches(visit->session, header(req, kCsrfHeader).value_or(""))) {
    return visit->reply(dashboard_error(csrf_refused(), ctx.request_id));
  }
  if (visit->route == DashboardRoute::kFreeSlot) {
    return free_slot(req, visit->session, ctx, visit->reply);
  }
  if (visit->route == DashboardRoute::kOfflineActivate) {
    return submit_offline_file(req, visit->session, ctx, visit->reply, OfflineFileKind::kRequest);
  }
  if (visit->route == DashboardRoute::kOfflineDeactivate) {
    return submit_offline_file(req, visit->session, ctx, visit->reply,
                               OfflineFileKind::kDeactivation);
  }
  sign_out(visit);
}

void DashboardHandler::sign_out(const Visit& visit) const {
  config_.sessions->close_async(
      visit->session_id, resume_visit<Status>(visit, [this](const Visit& v, Status closed) {
        if (!closed.ok()) {
          // Still signed in.
          return v->reply(
              dashboard_error(closed.error(), DashboardStep::kSignedIn, v->ctx.request_id));
        }
        HttpResponse res = dashboard_json(200, {{"ok", true}}, v->ctx.request_id);
        res.set(http::field::set_cookie,
                cookie_header("", 0, came_over_https(*v->request, config_.public_url_is_https)));
        v->reply(std::move(res));
      }));
}

void DashboardHandler::sign_in(const HttpRequest& req, const RequestContext& ctx,
                               HttpReply reply) const {
  Visit visit = new_visit(req, ctx, DashboardRoute::kSignIn, std::move(reply));
  check_bucket(config_.sign_in_limiter, ip_bucket_key(ctx.client_ip), "ip", config_.clock->now_ms(),
               unless_refused(visit, [this](const Visit& v) { look_up_license(v); }));
}

void DashboardHandler::look_up_license(const Visit& visit) const {
  const HttpRequest& req = *visit->request;
  const std::string_view request_id = visit->ctx.request_id;
  auto body = json_body(req);
  if (!body.ok()) return visit->reply(dashboard_error(body.error(), request_id));
  if (body.value().contains("link")) return take_link(visit, body.value());
  auto key = string_member(body.value(), "licenseKey");
  if (!key.ok()) return visit->reply(dashboard_error(key.error(), request_id));
  open_for_license(visit, normalize_pasted_key(key.value()), {});
}

void DashboardHandler::take_link(const Visit& visit, const json::object& body) const {
  auto token = string_member(body, "link");
  if (!token.ok()) return visit->reply(dashboard_error(token.error(), visit->ctx.request_id));
  // Only a token of the shape links are made in is looked up.
  if (!is_session_id(token.value())) {
    return visit->reply(dashboard_error(spent_sign_in_link(), visit->ctx.request_id));
  }
  const std::string link_id = sign_in_link_id(token.value());
  config_.sessions->take_link_async(
      token.value(),
      resume_visit<Result<std::optional<SignInLink>>>(
          visit, [this, link_id](const Visit& v, Result<std::optional<SignInLink>> taken) {
            const std::string_view request_id = v->ctx.request_id;
            if (!taken.ok()) {
              return v->reply(dashboard_error(taken.error(), DashboardStep::kSignIn, request_id));
            }
            if (!taken.value()) {
              return v->reply(dashboard_error(spent_sign_in_link(), request_id));
            }
            // The audit line of the link's use (docs/dashboard.md).
            const ScopedLogFields fields{
                {"requestId", request_id}, {"linkId", link_id}, {"ip", v->ctx.client_ip}};
            spdlog::info("dashboard sign-in link used for license {}",
                         mask_license_key(taken.value()->license_key));
            open_for_license(v, taken.value()->license_key, refused_machine(*taken.value()));
          }));
}

void DashboardHandler::open_for_license(const Visit& visit, std::string key,
                                        json::object extra) const {
  const HttpRequest& req = *visit->request;
  const std::string_view request_id = visit->ctx.request_id;
  const bool secure = came_over_https(req, config_.public_url_is_https);
  SessionStore* sessions = config_.sessions;
  std::optional<std::string> previous_session(session_cookie(req));  // this browser's, if any
  // From here on the request's own bytes are not read again: the steps below run where
  // the store and Redis answer them, and reply from there.
  submit_call<License>(
      *config_.store, TxKind::kRead,
      [key = std::move(key)](StoreTx& tx) { return find_customer_license(tx, key); },
      [sessions, secure, reply = visit->reply, previous_session = std::move(previous_session),
       request_id = std::string(request_id), extra = std::move(extra)](Result<License> found) {
        if (!found.ok()) {
          return reply(dashboard_error(found.error(), DashboardStep::kSignIn, request_id));
        }
        if (!previous_session) {
          return open_session(sessions, found.value().key, secure, request_id, reply, extra);
        }
        // A new id at every sign-in, the old one ended: no session fixation, and no
        // second live session when the old one could not be ended.
        sessions->close_async(*previous_session, [sessions, key = found.value().key, secure,
                                                  request_id, reply, extra](Status closed) {
          if (!closed.ok()) {
            return reply(dashboard_error(closed.error(), DashboardStep::kSignIn, request_id));
          }
          open_session(sessions, key, secure, request_id, reply, extra);
        });
      });
}

void DashboardHandler::show_license(const DashboardSession& session, const RequestContext& ctx,
                                    const HttpReply& reply) const {
  const Clock* clock = config_.clock;
  run_and_reply(config_.store, TxKind::kRead, clock, config_.error_reporter,
                "/dashboard/api/license", ctx, reply,
                [key = session.license_key, csrf = session.csrf_token,
                 clock](StoreTx& tx) -> Result<json::object> {
                  ASSIGN_OR_RETURN(json::object view,
                                   customer_license_view(tx, key, clock->now_ms()));
                  // A reloaded page gets the token again from here (same origin only).
                  view["csrfToken"] = csrf;
                  return view;
                });
}

void DashboardHandler::show_audit(const HttpRequest& req, const DashboardSession& session,
                                  const RequestContext& ctx, const HttpReply& reply) const {
  auto page = audit_page_request(req);
  if (!page.ok()) return reply(dashboard_error(page.error(), ctx.request_id));
  run_and_reply(config_.store, TxKind::kRead, config_.clock, config_.error_reporter,
                "/dashboard/api/audit", ctx, reply,
                [key = session.license_key, page = std::move(page.value())](StoreTx& tx) {
                  return customer_audit_page(tx, key, page);
                });
}

void DashboardHandler::free_slot(const HttpRequest& req, const DashboardSession& session,
                                 const RequestContext& ctx, const HttpReply& reply) const {
  auto body = json_body(req);
  if (!body.ok()) return reply(dashboard_error(body.error(), ctx.request_id));
  auto handle = string_member(body.value(), "machine");
  if (!handle.ok()) return reply(dashboard_error(handle.error(), ctx.request_id));
  const Clock* clock = config_.clock;
  AdminContext who{0, std::nullopt, Actor::kCustomer, std::string(ctx.client_ip)};
  run_and_reply(config_.store, TxKind::kWrite, clock, config_.error_reporter,
                "/dashboard/api/free-slot", ctx, reply,
                [key = session.license_key, handle = std::move(handle.value()), who,
                 clock](StoreTx& tx) -> Result<json::object> {
                  AdminContext now_who = who;
                  now_who.now = clock->now_ms();
                  RETURN_IF_ERROR(customer_free_slot(tx, key, handle, now_who));
                  return json::object{{"ok", true}};
                });
}

void DashboardHandler::submit_offline_file(const HttpRequest& req, const DashboardSession& session,
                                           const RequestContext& ctx, const HttpReply& reply,
                                           OfflineFileKind kind) const {
  const std::string request_id(ctx.request_id);
  if (config_.keys == nullptr || config_.response_signer == nullptr) {
    return reply(dashboard_error(errors::internal(), request_id));
  }
  auto file = offline_file_body(req, kind);
  if (!file.ok()) return reply(dashboard_error(file.error(), request_id));
  const Clock* clock = config_.clock;
  // The same checks as the License API's offline endpoints: key, age, skew, signature.
  auto key =
      check_offline_file(*config_.keys, file.value(), clock->now_seconds(), config_.offline_limits);
  if (!key.ok()) return reply(dashboard_error(key.error(), request_id));
  const SigningKey* signing_key = key.value();
  const ResponseSigner* signer = config_.response_signer;
  ErrorReporter* reporter = config_.error_reporter;
  const std::optional<std::string>* dashboard_url = &config_.dashboard_url;
  auto request = std::make_shared<LicenseRequest>(std::move(file.value().request));
  submit_call<boost::json::object, RequestError>(
      *config_.store, TxKind::kWrite,
      [license_key = session.license_key, request, signing_key, dashboard_url, clock, kind,
       ip = std::string(ctx.client_ip),
       request_id](StoreTx& tx) -> RequestResult<boost::json::object> {
        OperationContext op;
        op.now = clock->now_ms();
        op.ip = ip;
        op.key_id = signing_key->id;
        op.request_id = request_id;
        op.inner_bound_products = &signing_key->products;
        op.dashboard_url = dashboard_url;
        op.new_activation_id = &random_128_bit_hex;
        if (kind == OfflineFileKind::kDeactivation) {
          return customer_offline_deactivate(tx, license_key, *request, op);
        }
        return customer_offline_activate(tx, license_key, *request, op);
      },
      [signer, kind, reporter, clock, request_id,
       reply](const RequestResult<boost::json::object>& answer) {
        auto shown = [&]() -> Result<boost::json::object, RequestError> {
          if (!answer.ok()) return answer.error();
          if (kind == OfflineFileKind::kDeactivation) return answer.value();
          // Ed25519, the algorithm every SDK pins (§13.4: ES256 only when a client asks).
          auto signed_answer =
              sign_activation_file_member(signer, ResponseAlgorithm::kEd25519, answer.value());
          if (!signed_answer.ok()) return RequestError(std::move(signed_answer.error()));
          return customer_activation_answer(signed_answer.value());
        }();
        if (shown.ok()) return reply(dashboard_json(200, shown.value(), request_id));
        const ApiError e = shown.error().answer_or(signed_in_error);
        if (is_internal_error(e)) {
          report_internal_error(reporter, "dashboard", "/dashboard/api/offline", request_id, "",
                                clock->now_ms());
        }
        reply(dashboard_error(e, request_id));
      },
      // Refusals chosen by the operation are committed (any reclaim they include), as the
      // License API commits them; failures roll back.
      [](const RequestResult<boost::json::object>& answer) { return !must_roll_back(answer); });
}

}  // namespace licensed
