// A set of points compared exactly, for the no-repeat rule (a point evaluated or pending is not
// asked again) and for the candidates of one ask.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "optimist/core/types.hpp"

namespace optimist {

/// The key of a point: its coordinates bit for bit (-0 read as 0).
struct PointKey {
  std::vector<double> values;
  explicit PointKey(const Vector& x);
  bool operator==(const PointKey& o) const { return values == o.values; }
};

struct PointKeyHash {
  std::size_t operator()(const PointKey& k) const;
};

/// Points with a counter each (insert adds one, erase removes one).
class PointSet {
 public:
  /// True when x was not in the set before.
  bool insert(const Vector& x);
  /// Removes one count of x; true when x is no longer in the set.
  bool erase(const Vector& x);
  bool contains(const Vector& x) const { return map_.count(PointKey(x)) > 0; }
  std::size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  void clear() { map_.clear(); }

 private:
  std::unordered_map<PointKey, std::uint32_t, PointKeyHash> map_;
};

}  // namespace optimist
