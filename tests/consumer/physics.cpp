#include "physics.hpp"

Eigen::VectorXd start_point(int dim) { return Eigen::VectorXd::Constant(dim, 0.25); }

double total(Eigen::VectorXd v) { return v.sum(); }
