// Finite arm sets for the bandit algorithms: generated over the Space or given as user points.
#include <cmath>
#include <fstream>
#include <sstream>

#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/core/rng.hpp"
#include "optimist/core/sobol.hpp"

namespace optimist {

Matrix generate_arms(const Space& space, ArmSetKind kind, std::size_t count, std::uint64_t seed) {
  const auto d = static_cast<Eigen::Index>(space.dim());
  if (d == 0) throw InvalidArgument("arms: the space has no parameters");
  if (count == 0) throw InvalidArgument("arms: 0 arms requested (the arm set must not be empty)");
  Matrix U;
  switch (kind) {
    case ArmSetKind::Sobol: {
      SobolSequence seq(space.dim(), true, derive_seed(seed, 0x41524d53ULL));
      U = seq.points(0, count);
      break;
    }
    case ArmSetKind::Uniform: {
      Rng rng(derive_seed(seed, 0x41524d55ULL));
      U.resize(d, static_cast<Eigen::Index>(count));
      for (Eigen::Index j = 0; j < U.cols(); ++j) U.col(j) = rng.uniform_vector(d);
      break;
    }
    case ArmSetKind::Grid: {
      auto k = static_cast<std::size_t>(std::floor(std::pow(static_cast<double>(count), 1.0 / static_cast<double>(d)) + 1e-9));
      k = std::max<std::size_t>(k, 1);
      std::size_t total = 1;
      for (Eigen::Index i = 0; i < d; ++i) total *= k;
      U.resize(d, static_cast<Eigen::Index>(total));
      for (std::size_t j = 0; j < total; ++j) {
        std::size_t r = j;
        for (Eigen::Index i = 0; i < d; ++i) {
          U(i, static_cast<Eigen::Index>(j)) = (static_cast<double>(r % k) + 0.5) / static_cast<double>(k);
          r /= k;
        }
      }
      break;
    }
  }
  for (Eigen::Index j = 0; j < U.cols(); ++j) U.col(j) = space.snap_unit(U.col(j));
  return U;
}

Matrix arms_from_user_points(const Space& space, const Matrix& user_points) {
  if (user_points.cols() == 0 || user_points.rows() == 0)
  {
    std::string msg = "arms: the arm set is empty (";
    msg += std::to_string(user_points.cols());
    msg += " points)";
    throw InvalidArgument(msg);
  }
  if (static_cast<std::size_t>(user_points.rows()) != space.dim()) {
    std::string msg = "arms: points have ";
    msg += std::to_string(user_points.rows());
    msg += " coordinates (matrix rows) but the space has dimension ";
    msg += std::to_string(space.dim());
    throw InvalidArgument(msg);
  }
  Matrix U(user_points.rows(), user_points.cols());
  for (Eigen::Index j = 0; j < U.cols(); ++j) {
    try {
      space.validate(user_points.col(j));
      U.col(j) = space.snap_unit(space.to_unit(user_points.col(j)));
    } catch (const InvalidArgument& e) {
      std::string msg = "arms: point ";
      msg += std::to_string(j);
      msg += ": ";
      msg += e.what();
      throw InvalidArgument(msg);
    }
  }
  return U;
}

Matrix read_arms_file(const Space& space, const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::string msg = "arms_file: cannot open '";
    msg += path;
    msg += "'";
    throw InvalidArgument(msg);
  }
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  std::vector<Vector> points;
  const bool is_json = path.ends_with(".json");
  if (is_json) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
      std::string msg = "arms_file '";
      msg += path;
      msg += "': invalid JSON: ";
      msg += e.what();
      throw InvalidArgument(msg);
    }
    if (j.is_object() && j.contains("arms")) j = j["arms"];
    if (!j.is_array()) {
      std::string msg = "arms_file '";
      msg += path;
      msg += "': expected an array of points or {\"arms\": [...]}";
      throw InvalidArgument(msg);
    }
    for (const auto& p : j) points.push_back(space.point_from_json(p));
  } else {  // CSV: numbers separated by commas, optional header line
    std::istringstream lines(text);
    std::string line;
    bool first = true;
    while (std::getline(lines, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::vector<double> row;
      std::istringstream cells(line);
      std::string cell;
      bool numeric = true;
      while (std::getline(cells, cell, ',')) {
        try {
          std::size_t used = 0;
          row.push_back(std::stod(cell, &used));
        } catch (const std::exception&) {
          numeric = false;
          break;
        }
      }
      if (!numeric) {
        if (first) {
          first = false;
          continue;  // header
        }
        std::string msg = "arms_file '";
        msg += path;
        msg += "': non-numeric line '";
        msg += line;
        msg += "'";
        throw InvalidArgument(msg);
      }
      first = false;
      points.push_back(Eigen::Map<Vector>(row.data(), static_cast<Eigen::Index>(row.size())));
    }
  }
  if (points.empty()) {
    std::string msg = "arms: the arm set in '";
    msg += path;
    msg += "' is empty (0 points)";
    throw InvalidArgument(msg);
  }
  const auto d = points.front().size();
  for (const auto& p : points)
    if (p.size() != d) {
      std::string msg = "arms_file '";
      msg += path;
      msg += "': points of different sizes (";
      msg += std::to_string(d);
      msg += " and ";
      msg += std::to_string(p.size());
      msg += ")";
      throw InvalidArgument(msg);
    }
  Matrix X(d, static_cast<Eigen::Index>(points.size()));
  for (std::size_t j = 0; j < points.size(); ++j) X.col(static_cast<Eigen::Index>(j)) = points[j];
  return arms_from_user_points(space, X);
}

}  // namespace optimist
