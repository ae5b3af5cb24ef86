// The study schema's statements in a database's dialect.
#pragma once

#include <string>
#include <vector>

#include "study/database.hpp"

namespace optimist::study_detail {

/// CREATE ... IF NOT EXISTS statements of the current schema version.
std::vector<std::string> schema_statements(const Database& db);
/// The statements that upgrade a database of schema version `from_version` to the current one.
std::vector<std::string> migration_statements(const Database& db, int from_version);

}  // namespace optimist::study_detail
