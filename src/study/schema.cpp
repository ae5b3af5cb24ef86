// The study schema (docs/studies.md), written once for both dialects.
#include "study/schema.hpp"

#include <string>

namespace optimist::study_detail {

namespace {

// {id}, {real} and {bigint} are replaced by the dialect's types.
// The current version's tables, created on a fresh database.
constexpr const char* kSchema[] = {
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS studies ("
    " id {id},"
    " name TEXT NOT NULL UNIQUE,"
    " space TEXT NOT NULL,"               // Space::to_json()
    " directions TEXT NOT NULL,"          // JSON array, one direction per objective
    " algorithm TEXT NOT NULL,"
    " options TEXT NOT NULL,"             // resolved algorithm options (JSON)
    " seed TEXT NOT NULL,"                // unsigned 64-bit, in decimal
    " budget {bigint},"                   // NULL: unlimited
    " f_star {real},"
    " settings TEXT NOT NULL,"            // StudySettings::to_json()
    " created {real} NOT NULL,"
    " seq {bigint} NOT NULL DEFAULT 0,"   // last event number
    " used {bigint} NOT NULL DEFAULT 0)",  // trials counting against the budget
    "CREATE TABLE IF NOT EXISTS trials ("
    " id {id},"
    " study_id {bigint} NOT NULL REFERENCES studies(id) ON DELETE CASCADE,"
    " number {bigint} NOT NULL,"
    " state TEXT NOT NULL CHECK (state IN ('waiting', 'running', 'complete', 'failed')),"
    " point TEXT NOT NULL,"               // JSON array in user units
    " origin TEXT NOT NULL,"
    " worker TEXT,"
    " error TEXT,"
    " stale INTEGER NOT NULL DEFAULT 0,"  // not evaluated: 1 its heartbeat stopped or its lease ended, 2 given back (release)
    " created {real} NOT NULL,"
    " started {real},"
    " finished {real},"
    " heartbeat {real},"
    " suggest_s {real},"
    " requeued_from {bigint},"
    " asked_seq {bigint},"
    " finished_seq {bigint},"
    " lease_until {real},"                // a hand-run trial: not stale before this time (NULL: heartbeats decide)
    " UNIQUE (study_id, number))",
    "CREATE INDEX IF NOT EXISTS trials_by_state ON trials (study_id, state, number)",
    "CREATE INDEX IF NOT EXISTS trials_by_asked ON trials (study_id, asked_seq)",
    "CREATE INDEX IF NOT EXISTS trials_by_finished ON trials (study_id, finished_seq)",
    "CREATE TABLE IF NOT EXISTS trial_values ("
    " trial_id {bigint} NOT NULL REFERENCES trials(id) ON DELETE CASCADE,"
    " objective INTEGER NOT NULL,"
    " value {real} NOT NULL,"
    " PRIMARY KEY (trial_id, objective))",
    "CREATE TABLE IF NOT EXISTS trial_constraints ("
    " trial_id {bigint} NOT NULL REFERENCES trials(id) ON DELETE CASCADE,"
    " constraint_index INTEGER NOT NULL,"
    " value {real} NOT NULL,"
    " PRIMARY KEY (trial_id, constraint_index))",
    "CREATE TABLE IF NOT EXISTS trial_intermediate_values ("
    " trial_id {bigint} NOT NULL REFERENCES trials(id) ON DELETE CASCADE,"
    " step {bigint} NOT NULL,"
    " value {real} NOT NULL,"
    " PRIMARY KEY (trial_id, step))",
    "CREATE TABLE IF NOT EXISTS trial_user_attrs ("
    " trial_id {bigint} NOT NULL REFERENCES trials(id) ON DELETE CASCADE,"
    " key TEXT NOT NULL,"
    " value TEXT NOT NULL,"
    " PRIMARY KEY (trial_id, key))",
    "CREATE TABLE IF NOT EXISTS study_user_attrs ("
    " study_id {bigint} NOT NULL REFERENCES studies(id) ON DELETE CASCADE,"
    " key TEXT NOT NULL,"
    " value TEXT NOT NULL,"
    " PRIMARY KEY (study_id, key))",
};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

// Upgrades of an existing database: kMigrations[v] takes version v + 1 to v + 2.
const std::vector<std::vector<const char*>> kMigrations = {
    // 1 -> 2: the count of trials against the budget kept on the study row (asks stay O(1)).
    {"ALTER TABLE studies ADD COLUMN used {bigint} NOT NULL DEFAULT 0",
     "UPDATE studies SET used = (SELECT COUNT(*) FROM trials WHERE trials.study_id = studies.id AND "
     "trials.state <> 'waiting' AND trials.stale = 0)"},
    // 2 -> 3: trials asked by hand (study ask) are held under a lease, not by heartbeats.
    {"ALTER TABLE trials ADD COLUMN lease_until {real}"},
};

std::string in_dialect(const Database& db, std::string s) {
  for (const char* t : {"id", "real", "bigint"}) s = replace_all(s, std::string("{") + t + "}", db.type(t));
  return s;
}

}  // namespace

std::vector<std::string> migration_statements(const Database& db, int from_version) {
  std::vector<std::string> out;
  for (std::size_t v = static_cast<std::size_t>(from_version) - 1; v < kMigrations.size(); ++v)
    for (const char* stmt : kMigrations[v]) out.push_back(in_dialect(db, stmt));
  return out;
}

std::vector<std::string> schema_statements(const Database& db) {
  std::vector<std::string> out;
  for (const char* stmt : kSchema) out.push_back(in_dialect(db, stmt));
  return out;
}

}  // namespace optimist::study_detail
