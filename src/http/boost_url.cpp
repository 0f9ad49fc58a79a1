// Boost.URL's compiled part, built into this library: Debian 12 ships Boost.URL's
// headers with libboost1.81-dev but no libboost_url, and the library documents this
// header as the way to use it without one.
#include <boost/url/src.hpp>
