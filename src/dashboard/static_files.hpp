// The page's files: which file a URL names inside the static folder, and never one outside it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace optimist::dashboard {

/// The file under `root` that the URL path `url_path` (percent-decoded) names, or nullopt when it
/// names nothing servable: a path not starting with '/', holding a "." or ".." segment, a hidden
/// segment (".git"), a backslash or a NUL; a file whose real location (symlinks resolved) is
/// outside `root`; not a regular file; or a type the page does not use (see content_type_for).
/// "/" and folder paths name their index.html.
std::optional<std::filesystem::path> resolve_static_file(const std::filesystem::path& root, std::string_view url_path);

/// The Content-Type of a file the page uses, by extension; empty for any other file.
std::string content_type_for(const std::filesystem::path& file);

}  // namespace optimist::dashboard
