#include "optimist/core/point_set.hpp"

#include <cstring>

namespace optimist {

PointKey::PointKey(const Vector& x) : values(static_cast<std::size_t>(x.size())) {
  for (Eigen::Index i = 0; i < x.size(); ++i) values[static_cast<std::size_t>(i)] = x[i] + 0.0;  // -0 -> +0
}

std::size_t PointKeyHash::operator()(const PointKey& k) const {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ k.values.size();
  for (double v : k.values) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    h ^= bits + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  }
  return static_cast<std::size_t>(h);
}

bool PointSet::insert(const Vector& x) { return ++map_[PointKey(x)] == 1; }

bool PointSet::erase(const Vector& x) {
  const auto it = map_.find(PointKey(x));
  if (it == map_.end()) return true;
  if (--it->second > 0) return false;
  map_.erase(it);
  return true;
}

}  // namespace optimist
