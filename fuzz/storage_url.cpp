// Fuzz target: a study storage URL (--storage, Study.create/load) -> the checked URL, without
// connecting: the scheme, the SQLite file or libpq's reading of a postgresql:// URL; and its form
// for messages and pages, which never shows the password.
#include <libpq-fe.h>

#include "fuzz_support.hpp"
#include "optimist/study/storage.hpp"
#include "study/database.hpp"

using namespace optimist;

namespace {

// The password libpq reads from the URL, if any.
std::string password_of(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (error) PQfreemem(error);
  if (!options) return "";
  std::string password;
  for (PQconninfoOption* o = options; o->keyword; ++o)
    if (std::string(o->keyword) == "password" && o->val) password = o->val;
  PQconninfoFree(options);
  return password;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string url = fuzz::text(data, size);
  const std::string shown = redact_url(url);
  fuzz::refuse_only_with([&] {
    const study_detail::StorageUrl parsed = study_detail::parse_storage_url(url);
    OPTIMIST_FUZZ_CHECK(parsed.backend == "sqlite" || parsed.backend == "postgresql", "backend " + parsed.backend);
    if (parsed.backend == "sqlite") OPTIMIST_FUZZ_CHECK(!parsed.path.empty(), "an empty SQLite path");
    if (parsed.backend == "postgresql") {
      // Checked when the password's text appears once in the URL (not percent-encoded, not also
      // the host's or user's name, whose display is legitimate) and holds no '*': the mask's
      // stars can complete the end of the user's name into the password's text
      // (fuzz/regressions/storage_url/mask-completes-password).
      // The occurrence must be the password's own field (":<password>@"): a percent-encoded
      // password's decoded text can be the end of the user's name and its ':' (user "u0p", password
      // "p%3A" = "p:"; fuzz/regressions/storage_url/decoded-password-in-user-name).
      const std::string password = password_of(url);
      const auto first = password.empty() ? std::string::npos : url.find(password);
      const bool in_its_field = first != std::string::npos && first > 0 && url[first - 1] == ':' &&
                                first + password.size() < url.size() && url[first + password.size()] == '@';
      if (in_its_field && url.find(password, first + 1) == std::string::npos && password.find('*') == std::string::npos)
        OPTIMIST_FUZZ_CHECK(shown.find(password) == std::string::npos, "the shown URL '" + shown + "' holds the password");
    }
  });
  return 0;
}
