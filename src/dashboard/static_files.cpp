#include "dashboard/static_files.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace optimist::dashboard {

namespace fs = std::filesystem;

namespace {

// Whether `inner` is `outer` or lies under it; both canonical.
bool contains(const fs::path& outer, const fs::path& inner) {
  const auto [end, _] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return end == outer.end();
}

}  // namespace

std::string content_type_for(const fs::path& file) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kTypes = {{
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},
  }};
  const std::string ext = file.extension().string();
  for (const auto& [e, type] : kTypes)
    if (ext == e) return std::string(type);
  return {};
}

std::optional<fs::path> resolve_static_file(const fs::path& root, std::string_view url_path) {
  if (url_path.empty() || url_path.front() != '/') return std::nullopt;
  if (url_path.find('\\') != std::string_view::npos || url_path.find('\0') != std::string_view::npos)
    return std::nullopt;

  fs::path relative;
  std::size_t start = 1;
  while (start <= url_path.size()) {
    const std::size_t end = std::min(url_path.find('/', start), url_path.size());
    const std::string_view segment = url_path.substr(start, end - start);
    if (!segment.empty()) {
      if (segment.front() == '.') return std::nullopt;  // ".", "..", hidden files
      relative /= std::string(segment);
    }
    start = end + 1;
  }

  std::error_code ec;
  const fs::path real_root = fs::canonical(root, ec);
  if (ec) return std::nullopt;
  fs::path candidate = real_root / relative;
  if (fs::is_directory(candidate, ec)) candidate /= "index.html";
  // canonical() resolves every symlink: a link pointing outside the folder is refused here.
  const fs::path real = fs::canonical(candidate, ec);
  if (ec || !contains(real_root, real) || !fs::is_regular_file(real, ec)) return std::nullopt;
  if (content_type_for(real).empty()) return std::nullopt;
  return real;
}

}  // namespace optimist::dashboard
