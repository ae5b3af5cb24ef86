// A library of the consumer's own that uses Eigen alone (it does not link optimist): its vectors
// cross into optimist's and back (a program like this crashed while optimist exported
// EIGEN_MALLOC_ALREADY_ALIGNED=0).
#pragma once

#include <Eigen/Core>

Eigen::VectorXd start_point(int dim);        // allocated here
double total(Eigen::VectorXd v);             // freed here
