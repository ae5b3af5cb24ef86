#include "dashboard/compression.hpp"

#include <zlib.h>

#include <cctype>
#include <cstdlib>
#include <stdexcept>

namespace optimist::dashboard {

namespace {

std::string trimmed_lower(const std::string& s, std::size_t from, std::size_t to) {
  while (from < to && std::isspace(static_cast<unsigned char>(s[from]))) ++from;
  while (to > from && std::isspace(static_cast<unsigned char>(s[to - 1]))) --to;
  std::string out = s.substr(from, to - from);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

constexpr int kGzipWindow = 15 + 16;  // zlib: a 32 KiB window, with the gzip header and trailer

}  // namespace

bool accepts_gzip(const std::string& header) {
  bool star = false, gzip_listed = false, gzip_ok = false;
  for (std::size_t from = 0; from <= header.size();) {
    const std::size_t comma = std::min(header.find(',', from), header.size());
    const std::size_t semicolon = std::min(header.find(';', from), comma);
    const std::string coding = trimmed_lower(header, from, semicolon);
    bool refused = false;  // "q=0" (or 0.0, 0.000)
    if (semicolon < comma) {
      const std::string param = trimmed_lower(header, semicolon + 1, comma);
      if (param.rfind("q=", 0) == 0) refused = std::strtod(param.c_str() + 2, nullptr) <= 0.0;
    }
    if (coding == "gzip" || coding == "x-gzip") {
      gzip_listed = true;
      gzip_ok = !refused;
    } else if (coding == "*") {
      star = !refused;
    }
    from = comma + 1;
  }
  return gzip_listed ? gzip_ok : star;
}

std::string gzip(const std::string& data, int level) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, kGzipWindow, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("gzip: deflateInit2 failed");
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&z, Z_FINISH);
  const std::size_t size = z.total_out;
  deflateEnd(&z);
  if (status != Z_STREAM_END) throw std::runtime_error("gzip: deflate failed");
  out.resize(size);
  return out;
}

std::string gunzip(const std::string& data) {
  z_stream z{};
  if (inflateInit2(&z, kGzipWindow) != Z_OK) throw std::runtime_error("gunzip: inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buffer[1 << 16];
  int status = Z_OK;
  while (status == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    status = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - z.avail_out);
  }
  inflateEnd(&z);
  if (status != Z_STREAM_END) throw std::runtime_error("gunzip: not a whole gzip stream");
  return out;
}

}  // namespace optimist::dashboard
