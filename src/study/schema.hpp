// The study schema's statements in a database's dialect.
#pragma once

#include <string>
#include <vector>

#include "study/database.hpp"

namespace optimist::study_detail {

/// CREATE ... IF NOT EXISTS statements of the current schema version.
std::vector<std::string> schema_statements(const Database& db);

}  // namespace optimist::study_detail
