#include "optimist/core/rng.hpp"

#include <cmath>

namespace optimist {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  return splitmix64(seed ^ splitmix64(stream + 0x632be59bd9b4e019ULL));
}

std::uint64_t Rng::below(std::uint64_t n) {
  if (n == 0) throw InvalidArgument("Rng::below(0): the range is empty");
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  std::uint64_t r;
  do r = engine_(); while (r >= limit);
  return r % n;
}

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double m = std::sqrt(-2.0 * std::log(s) / s);
  spare_ = v * m;
  has_spare_ = true;
  return u * m;
}

Vector Rng::uniform_vector(Eigen::Index d) {
  Vector v(d);
  for (Eigen::Index i = 0; i < d; ++i) v[i] = uniform();
  return v;
}

Vector Rng::normal_vector(Eigen::Index d) {
  Vector v(d);
  for (Eigen::Index i = 0; i < d; ++i) v[i] = normal();
  return v;
}

}  // namespace optimist
