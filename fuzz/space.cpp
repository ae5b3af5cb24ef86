// Fuzz target: a search-space file (JSON or TOML, as --space reads it) -> Space, and the maps
// every run relies on: a unit point maps to a valid user point, points survive their JSON form,
// and the space survives its own JSON form (traces and studies store it).
#include <cmath>

#include "cli/config.hpp"
#include "fuzz_support.hpp"
#include "optimist/core/discrete_domain.hpp"
#include "optimist/core/point_set.hpp"
#include "optimist/core/space.hpp"

using namespace optimist;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::Selected input = fuzz::select(data, size);  // not a structured binding: clang 14 cannot capture one
  const unsigned selector = input.selector;
  const std::string& text = input.rest;
  const std::string format = selector % 2 == 0 ? "json" : "toml";
  fuzz::refuse_only_with([&] {
    const Space space = Space::from_json(cli::parse_config(text, "space." + format, format));
    OPTIMIST_FUZZ_CHECK(space.dim() > 0, "an empty space was accepted");
    const Space again = Space::from_json(space.to_json());
    OPTIMIST_FUZZ_CHECK(again.to_json() == space.to_json(), "the space changed through its JSON form");
    // Unit points from the input's bytes, plus the corners.
    for (int k = 0; k < 3; ++k) {
      Vector u(static_cast<Eigen::Index>(space.dim()));
      for (std::size_t i = 0; i < space.dim(); ++i) {
        const unsigned char b = text.empty() ? 0 : static_cast<unsigned char>(text[(i * 7 + static_cast<std::size_t>(k)) % text.size()]);
        u[static_cast<Eigen::Index>(i)] = k == 0 ? 0.0 : k == 1 ? 1.0 : b / 255.0;
      }
      const Vector x = space.to_user(u);
      try {
        space.validate(x);
      } catch (const InvalidArgument& e) {
        fuzz::bug(std::string("to_user gave a point the space refuses: ") + e.what());
      }
      OPTIMIST_FUZZ_CHECK(space.canonical(x) == x, "to_user gave an inactive parameter a value other than its fixed one");
      const Vector back = space.point_from_json(space.point_to_json(x));
      OPTIMIST_FUZZ_CHECK(back.size() == x.size(), "point_from_json changed the size");
      for (Eigen::Index i = 0; i < x.size(); ++i)
        OPTIMIST_FUZZ_CHECK(back[i] == x[i], "a point changed through its JSON form");
      const Vector unit = space.to_unit(x);
      for (Eigen::Index i = 0; i < unit.size(); ++i)
        OPTIMIST_FUZZ_CHECK(std::isfinite(unit[i]) && unit[i] >= 0.0 && unit[i] <= 1.0, "to_unit left the unit cube");
    }
    // A small finite space: its size is the number of distinct points the enumeration yields
    // (conditional spaces count each active part once).
    const DiscreteDomain domain(space);
    const Vector zero = Vector::Zero(static_cast<Eigen::Index>(space.dim())), one = Vector::Ones(zero.size());
    if (const auto n = space.finite_size(); n && domain.count(zero, one) <= 20000) {
      PointSet seen;
      std::uint64_t calls = 0;
      domain.enumerate(zero, zero, one, [&](const Vector& v) {
        ++calls;
        OPTIMIST_FUZZ_CHECK(seen.insert(space.to_user(v)), "the enumeration yielded a point twice");
        return true;
      });
      OPTIMIST_FUZZ_CHECK(calls == *n, "finite_size() differs from the number of points enumerated");
    }
  });
  return 0;
}
