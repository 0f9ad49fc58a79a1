// Boost.JSON compiled into the SDK from its headers (the library's documented header-only
// mode), so a plugin links no Boost library and installs no Boost package: the SDK's
// shared library hides these symbols like all its others.
#include <boost/json/src.hpp>
