// The customer dashboard's one translation of an internal status to the wire: the §5
// error shape, worded for a customer, and a license that cannot be found is a sign-in
// problem (the key typed is not known, or the session's license is gone).
#pragma once

#include "core/api_error.h"
#include "core/status.h"

namespace licensed {

// Where in the dashboard the error arose: signing in, or within a signed-in session.
enum class DashboardStep { kSignIn, kSignedIn };

// 401 for a session that is missing, expired or whose license is gone.
ApiError not_signed_in();
// 401 for a key typed at sign-in: wrong, unknown and deleted keys all answer this, so
// sign-in tells nothing apart.
ApiError wrong_key();
// 401 for a sign-in link (a 1705's dashboardUrl) used before, ended, or never made.
ApiError spent_sign_in_link();

// A customer is told why a change was refused (Error::message of an invalid argument or
// a conflict); never a store's or Redis's own words.
ApiError to_dashboard_error(const Error& error, DashboardStep step);

}  // namespace licensed
