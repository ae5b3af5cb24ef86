// One declarative table of an algorithm's options: each option is one line naming its key, the
// field of the algorithm's Options struct it fills, its range or its enum names, and its help.
// The default is the field's value in a default-constructed Options struct (the Ceres pattern: the
// struct documents the defaults), or in the struct given to the constructor when an algorithm's
// variants share a struct but not its defaults (GO-UCB's workshop variant: model=mlp). The table gives the registry the OptionSpec list (`optimist
// list`, the type and allowed-value checks of resolve_options) and reads the validated
// OptionValues into the struct, checking ranges with errors that name the algorithm, key and value.
// A table can include the table of a shared part (e.g. every tree search's TreeOptions).
//
//   struct PooOptions {
//     TreeOptions tree;
//     double nu_max = 1.0;
//     Poo::RhoGrid rho_grid = Poo::RhoGrid::Dyadic;
//   };
//   const OptionTable<PooOptions>& poo_options() {
//     static const auto table = OptionTable<PooOptions>()
//         .include(tree_options(), &PooOptions::tree)
//         .real("nu_max", &PooOptions::nu_max, NumberRange::above(0.0), "nu_max > 0: the nu of every HOO instance")
//         .choice("rho_grid", &PooOptions::rho_grid, kRhoGridNames, "...");
//     return table;
//   }
//   info.options = poo_options().specs();
//   const PooOptions o = poo_options().read(values);
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "optimist/algorithms/registry.hpp"
#include "optimist/core/enum_names.hpp"

namespace optimist {

/// The accepted values of a number option: an interval, each end open or closed; NaN never.
struct NumberRange {
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
  bool lower_open = false;
  bool upper_open = false;

  static NumberRange any() { return {}; }
  static NumberRange at_least(double lo) { return {lo}; }
  static NumberRange above(double lo) { return {lo, std::numeric_limits<double>::infinity(), true}; }
  static NumberRange closed(double lo, double hi) { return {lo, hi}; }
  static NumberRange open(double lo, double hi) { return {lo, hi, true, true}; }

  bool contains(double x) const {
    if (std::isnan(x)) return false;
    return (lower_open ? x > lower : x >= lower) && (upper_open ? x < upper : x <= upper);
  }
  /// e.g. "> 0", "in [0, 1)", "" for any number.
  std::string describe() const;
};

namespace option_table_detail {
[[noreturn]] void out_of_range(const std::string& algorithm, const std::string& key, const std::string& value,
                               const std::string& range);
std::string number_text(double x);
}  // namespace option_table_detail

template <class Options>
class OptionTable {
 public:
  OptionTable() = default;
  /// A table whose defaults are `defaults`' fields; read() starts from it, so fields without an
  /// option keep its values.
  explicit OptionTable(Options defaults) : defaults_(std::move(defaults)) {}

  /// A floating-point option.
  OptionTable& real(std::string key, double Options::*field, NumberRange range, std::string help) {
    add(key, defaults_.*field, std::move(help), {}, [key, field, range](
                                                        const OptionValues& v, Options& o) {
      const double x = v.get<double>(key);
      if (!range.contains(x))
        option_table_detail::out_of_range(v.algorithm(), key, option_table_detail::number_text(x), range.describe());
      o.*field = x;
    });
    return *this;
  }

  /// A number in `range`, or null / `keyword` for "unset" (resolved by the algorithm, e.g. gp-ucb's
  /// beta = "auto", gp-*'s noise_sd = "learn", GO-UCB's trust_region = "auto"). The null default
  /// accepts either JSON type.
  OptionTable& number_or_keyword(std::string key, std::optional<double> Options::*field, std::string keyword,
                                 NumberRange range, std::string help) {
    return custom({key, nullptr, std::move(help), {}}, [key, field, keyword, range](const OptionValues& v, Options& o) {
      const nlohmann::json& j = v.json().at(key);
      if (j.is_null() || (j.is_string() && j.get<std::string>() == keyword)) {
        o.*field = std::nullopt;
        return;
      }
      if (!j.is_number() || !range.contains(j.get<double>()) || !std::isfinite(j.get<double>()))
        throw InvalidArgument(v.algorithm() + ": option '" + key + "' must be \"" + keyword + "\" or a finite number " +
                              range.describe() + ", got " + j.dump());
      o.*field = j.get<double>();
    });
  }

  /// The upper end of an integer option without one (its errors then say ">= lower").
  static constexpr std::int64_t kNoUpperLimit = std::numeric_limits<std::int64_t>::max();

  /// An integer option of any integer type, in [lower, upper].
  template <class Int>
  OptionTable& integer(std::string key, Int Options::*field, std::int64_t lower, std::int64_t upper, std::string help) {
    add(key, defaults_.*field, std::move(help), {}, [key, field, lower, upper](
                                                        const OptionValues& v, Options& o) {
      // A JSON integer above 2^63 - 1 would wrap to a negative int64: named as the user wrote it.
      if (const auto it = v.json().find(key); it != v.json().end() && it->is_number_unsigned() &&
                                              it->template get<std::uint64_t>() > static_cast<std::uint64_t>(upper))
        option_table_detail::out_of_range(v.algorithm(), key, it->dump(),
                                          upper == kNoUpperLimit ? ">= " + std::to_string(lower)
                                                                 : "in " + std::to_string(lower) + ".." + std::to_string(upper));
      const auto x = v.get<std::int64_t>(key);
      if (x < lower || x > upper)
        option_table_detail::out_of_range(v.algorithm(), key, std::to_string(x),
                                          upper == kNoUpperLimit ? ">= " + std::to_string(lower)
                                                                 : "in " + std::to_string(lower) + ".." + std::to_string(upper));
      o.*field = static_cast<Int>(x);
    });
    return *this;
  }

  /// A true/false option.
  OptionTable& flag(std::string key, bool Options::*field, std::string help) {
    add(key, defaults_.*field, std::move(help), {},
        [key, field](const OptionValues& v, Options& o) { o.*field = v.get<bool>(key); });
    return *this;
  }

  /// A choice among the names of an enum's name table (the registry checks the name).
  template <class Enum, std::size_t N>
  OptionTable& choice(std::string key, Enum Options::*field, const EnumNames<Enum, N>& names, std::string help) {
    add(key, std::string(names.name(defaults_.*field)), std::move(help), names.names(),
        [key, field, names](const OptionValues& v, Options& o) {
          o.*field = names.parse(v.get<std::string>(key), v.algorithm() + ": option '" + key + "'");
        });
    return *this;
  }

  /// The options of a shared part (e.g. every tree search's TreeOptions), filling one member.
  template <class Part>
  OptionTable& include(const OptionTable<Part>& part, Part Options::*member) {
    for (const auto& e : part.entries())
      entries_.push_back({e.spec, [read = e.read, member](const OptionValues& v, Options& o) { read(v, o.*member); }});
    return *this;
  }

  /// An option the helpers above cannot express (e.g. "auto" or a number): its spec and its reader.
  OptionTable& custom(OptionSpec spec, std::function<void(const OptionValues&, Options&)> read) {
    entries_.push_back({std::move(spec), std::move(read)});
    return *this;
  }

  /// The options for AlgorithmInfo::options, in table order.
  std::vector<OptionSpec> specs() const {
    std::vector<OptionSpec> out;
    for (const auto& e : entries_) out.push_back(e.spec);
    return out;
  }

  /// The struct filled from validated values (make_optimizer's); throws InvalidArgument naming the
  /// algorithm, the key and the value when a value is out of its range.
  Options read(const OptionValues& values) const {
    Options o = defaults_;
    for (const auto& e : entries_) e.read(values, o);
    return o;
  }

  struct Entry {
    OptionSpec spec;
    std::function<void(const OptionValues&, Options&)> read;
  };
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  void add(const std::string& key, nlohmann::json default_value, std::string help, std::vector<std::string> allowed,
           std::function<void(const OptionValues&, Options&)> read) {
    entries_.push_back({OptionSpec{key, std::move(default_value), std::move(help), std::move(allowed)}, std::move(read)});
  }

  Options defaults_{};
  std::vector<Entry> entries_;
};

}  // namespace optimist
