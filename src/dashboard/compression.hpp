// Response compression for the dashboard: a page watched through an SSH tunnel or over a network
// loads a 20,000-trial study (15 MB of JSON) and the chart library (1 MB) at link speed.
#pragma once

#include <string>

namespace optimist::dashboard {

/// Whether an Accept-Encoding header value admits gzip ("gzip", "gzip;q=0.5", "*"; not "gzip;q=0").
bool accepts_gzip(const std::string& accept_encoding);

/// `data` in the gzip format (RFC 1952) at zlib's `level` (1: fastest).
std::string gzip(const std::string& data, int level = 1);

/// `data` uncompressed from the gzip format (for tests and the benchmark); throws on bad input.
std::string gunzip(const std::string& data);

}  // namespace optimist::dashboard
