// Kernels and the exact GP model: closed-form checks, analytic gradients against finite
// differences, hyperparameter recovery, the O(n^2) update, posterior samples and degenerate data.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <atomic>
#include <cmath>
#include <functional>
#include <numbers>
#include <thread>
#include <vector>
#include <utility>

#include "optimist/models/gp/gaussian_process.hpp"
#include "optimist/models/gp/kernel.hpp"
#include "optimist/models/gp/pathwise_sample.hpp"
#include "optimist/models/linalg.hpp"

using namespace optimist;

namespace {

const KernelType kAllKernels[] = {KernelType::Matern52, KernelType::Matern32, KernelType::SquaredExponential};

Matrix random_points(Eigen::Index d, Eigen::Index n, Rng& rng) {
  Matrix X(d, n);
  for (Eigen::Index j = 0; j < n; ++j) X.col(j) = rng.uniform_vector(d);
  return X;
}

// Central differences of a scalar function of a vector.
Vector numeric_gradient(const std::function<double(const Vector&)>& f, const Vector& x, double h = 1e-6) {
  Vector g(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    Vector a = x, b = x;
    a[i] += h;
    b[i] -= h;
    g[i] = (f(a) - f(b)) / (2 * h);
  }
  return g;
}

void expect_close(const Vector& a, const Vector& b, double rel, double abs, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], abs + rel * std::max(std::abs(a[i]), std::abs(b[i]))) << what << " [" << i << "]";
}

double smooth_function(const Vector& x) {
  double s = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) s += std::sin(3.0 * x[i] + 0.5 * static_cast<double>(i)) * (1.0 + 0.1 * static_cast<double>(i));
  return s + (x.array() - 0.4).square().sum();
}

GaussianProcess make_gp(KernelType type, Eigen::Index d, Eigen::Index n, std::uint64_t seed, GpOptions opt = {}) {
  Rng rng(seed);
  const Matrix X = random_points(d, n, rng);
  Vector y(n);
  for (Eigen::Index j = 0; j < n; ++j) y[j] = 10.0 + 3.0 * smooth_function(X.col(j)) + 0.05 * rng.normal();
  opt.kernel = type;
  GaussianProcess gp(d, opt);
  gp.set_data(X, y);
  return gp;
}

}  // namespace

// ---------------------------------------------------------------- kernels

TEST(Kernel, ParsesNamesAndListsValidOnes) {
  EXPECT_EQ(parse_kernel_type("matern52"), KernelType::Matern52);
  EXPECT_EQ(parse_kernel_type("matern32"), KernelType::Matern32);
  EXPECT_EQ(parse_kernel_type("rbf"), KernelType::SquaredExponential);
  EXPECT_EQ(parse_kernel_type("se"), KernelType::SquaredExponential);
  for (KernelType t : kAllKernels) EXPECT_EQ(parse_kernel_type(to_string(t)), t);
  try {
    parse_kernel_type("matern12");
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("matern12"), std::string::npos);
    for (const char* name : {"matern52", "matern32", "rbf", "se"}) EXPECT_NE(msg.find(name), std::string::npos) << msg;
  }
  EXPECT_THROW(Kernel(KernelType::Matern52, Vector::Constant(2, -1.0)), InvalidArgument);
  EXPECT_THROW(Kernel(KernelType::Matern52, Vector::Ones(2), 0.0), InvalidArgument);
}

TEST(Kernel, ValuesMatchClosedForms) {
  const Vector l = (Vector(2) << 0.3, 0.7).finished();
  const Vector a = (Vector(2) << 0.1, 0.9).finished(), b = (Vector(2) << 0.4, 0.2).finished();
  const double r = std::sqrt(std::pow(0.3 / 0.3, 2) + std::pow(0.7 / 0.7, 2));  // = sqrt(2)
  const double s = 1.7;
  EXPECT_NEAR(Kernel(KernelType::SquaredExponential, l, s)(a, b), s * std::exp(-0.5 * r * r), 1e-14);
  EXPECT_NEAR(Kernel(KernelType::Matern32, l, s)(a, b), s * (1 + std::sqrt(3.0) * r) * std::exp(-std::sqrt(3.0) * r), 1e-14);
  EXPECT_NEAR(Kernel(KernelType::Matern52, l, s)(a, b),
              s * (1 + std::sqrt(5.0) * r + 5.0 * r * r / 3.0) * std::exp(-std::sqrt(5.0) * r), 1e-14);
  for (KernelType t : kAllKernels) {
    const Kernel k(t, l, s);
    EXPECT_DOUBLE_EQ(k(a, a), s);
    EXPECT_DOUBLE_EQ(k.variance(), s);
    Rng rng(3);
    const Matrix X1 = random_points(2, 4, rng), X2 = random_points(2, 5, rng);
    const Matrix C = k.cross(X1, X2);
    for (Eigen::Index i = 0; i < 4; ++i)
      for (Eigen::Index j = 0; j < 5; ++j) EXPECT_NEAR(C(i, j), k(X1.col(i), X2.col(j)), 1e-13);
    const Matrix G = k.gram(X1);
    EXPECT_NEAR((G - k.cross(X1, X1)).norm(), 0.0, 1e-13);
    EXPECT_EQ(G, G.transpose());
    const Vector kx = k.cross_with_gradient(X2.col(0), X1, nullptr);
    for (Eigen::Index i = 0; i < 4; ++i) EXPECT_NEAR(kx[i], C(i, 0), 1e-13);
  }
}

TEST(Kernel, GradientInXMatchesFiniteDifferences) {
  Rng rng(5);
  for (KernelType t : kAllKernels) {
    const Kernel k(t, (Vector(3) << 0.2, 0.5, 1.3).finished(), 2.0);
    for (int trial = 0; trial < 5; ++trial) {
      const Vector x = rng.uniform_vector(3), x2 = rng.uniform_vector(3);
      const Vector fd = numeric_gradient([&](const Vector& z) { return k(z, x2); }, x);
      expect_close(k.gradient_x(x, x2), fd, 1e-6, 1e-9, to_string(t));
    }
    // Coincident points: the gradient exists and is zero for all three kernels.
    const Vector x = rng.uniform_vector(3);
    EXPECT_NEAR(k.gradient_x(x, x).norm(), 0.0, 1e-15);
    // The Jacobian of cross_with_gradient agrees column by column.
    const Matrix X = random_points(3, 6, rng);
    Matrix J;
    k.cross_with_gradient(x, X, &J);
    for (Eigen::Index j = 0; j < 6; ++j) expect_close(J.col(j), k.gradient_x(x, X.col(j)), 1e-14, 1e-15, "jac");
  }
}

TEST(Kernel, GramGradientsMatchFiniteDifferencesInLogHyperparameters) {
  Rng rng(7);
  const Matrix X = random_points(3, 7, rng);
  for (KernelType t : kAllKernels) {
    Kernel k(t, (Vector(3) << 0.3, 0.6, 0.9).finished(), 1.4);
    const Vector theta = k.log_hyperparameters();
    const std::vector<Matrix> dK = k.gram_gradients(X);
    ASSERT_EQ(dK.size(), 4u);
    const double h = 1e-6;
    for (Eigen::Index p = 0; p < theta.size(); ++p) {
      Vector a = theta, b = theta;
      a[p] += h;
      b[p] -= h;
      Kernel ka = k, kb = k;
      ka.set_log_hyperparameters(a);
      kb.set_log_hyperparameters(b);
      const Matrix fd = (ka.gram(X) - kb.gram(X)) / (2 * h);
      EXPECT_LT((fd - dK[static_cast<std::size_t>(p)]).cwiseAbs().maxCoeff(), 1e-8) << to_string(t) << " p=" << p;
    }
    // The O(d n^2) contraction equals sum_ij W_ij dK_ij / d theta_p.
    Matrix W = Matrix::Random(7, 7);
    W = (W + W.transpose()).eval();
    const Vector g = k.gram_gradient_contract(X, W);
    for (Eigen::Index p = 0; p < theta.size(); ++p)
      EXPECT_NEAR(g[p], W.cwiseProduct(dK[static_cast<std::size_t>(p)]).sum(), 1e-12) << to_string(t) << " p=" << p;
  }
}

// A rotated kernel is the ARD kernel of the rotated points, with the chain rule in its
// x-gradients and the lengthscales of the rotated axes in its hyperparameter gradients.
Matrix rotation_2d(double angle) {
  Matrix q(2, 2);
  q << std::cos(angle), std::sin(angle), -std::sin(angle), std::cos(angle);
  return q;
}

TEST(Kernel, ARotatedKernelIsTheArdKernelOfTheRotatedPoints) {
  Rng rng(21);
  const Matrix q = rotation_2d(0.6);
  const Matrix X = random_points(2, 6, rng), Y = random_points(2, 4, rng);
  for (KernelType t : kAllKernels) {
    const Vector l = (Vector(2) << 0.05, 0.7).finished();
    Kernel rotated(t, l, 1.7);
    rotated.set_rotation(q);
    const Kernel plain(t, l, 1.7);
    EXPECT_LT((rotated.cross(X, Y) - plain.cross(q * X, q * Y)).cwiseAbs().maxCoeff(), 1e-14) << to_string(t);
    EXPECT_LT((rotated.cross_fast(X, Y) - plain.cross(q * X, q * Y)).cwiseAbs().maxCoeff(), 1e-12) << to_string(t);
    EXPECT_LT((rotated.gram(X) - plain.gram(q * X)).cwiseAbs().maxCoeff(), 1e-14) << to_string(t);
    EXPECT_NEAR(rotated(X.col(0), Y.col(1)), plain(q * X.col(0), q * Y.col(1)), 1e-14);
    EXPECT_NEAR(rotated.scaled_distance(X.col(0), Y.col(1)), (l.cwiseInverse().asDiagonal() * (q * (X.col(0) - Y.col(1)))).norm(), 1e-12);
    // Along the long axis of the rotated frame the covariance falls slowly, across it fast.
    const Vector along = q.row(1).transpose(), across = q.row(0).transpose();  // the rotated axes
    EXPECT_GT(rotated(X.col(0), X.col(0) + 0.1 * along), 0.9 * 1.7);
    EXPECT_LT(rotated(X.col(0), X.col(0) + 0.1 * across), 0.5 * 1.7);
    for (int trial = 0; trial < 4; ++trial) {
      const Vector x = rng.uniform_vector(2), x2 = rng.uniform_vector(2);
      const Vector fd = numeric_gradient([&](const Vector& z) { return rotated(z, x2); }, x);
      expect_close(rotated.gradient_x(x, x2), fd, 1e-6, 1e-9, to_string(t) + " rotated x-gradient");
    }
    // Hyperparameter gradients, against finite differences of the rotated Gram matrix.
    const std::vector<Matrix> dK = rotated.gram_gradients(X);
    Matrix W = Matrix::Random(6, 6);
    W = (W + W.transpose()).eval();
    const Vector g = rotated.gram_gradient_contract(X, W);
    const Vector theta = rotated.log_hyperparameters();
    for (Eigen::Index p = 0; p < theta.size(); ++p) {
      Vector a = theta, b = theta;
      a[p] += 1e-6;
      b[p] -= 1e-6;
      Kernel ka = rotated, kb = rotated;
      ka.set_log_hyperparameters(a);
      kb.set_log_hyperparameters(b);
      const Matrix fd = (ka.gram(X) - kb.gram(X)) / 2e-6;
      EXPECT_LT((fd - dK[static_cast<std::size_t>(p)]).cwiseAbs().maxCoeff(), 1e-7) << to_string(t) << " p=" << p;
      EXPECT_NEAR(g[p], W.cwiseProduct(fd).sum(), 1e-6 * (1.0 + std::abs(g[p]))) << to_string(t) << " p=" << p;
    }
  }
}

// TuRBO's pathwise samples (random Fourier features) of a rotated kernel act on its embedding.
TEST(Kernel, PathwisePriorSamplesOfARotatedKernelHaveItsCovariance) {
  GpOptions o;
  o.input_rotation = rotation_2d(std::numbers::pi / 4);
  GaussianProcess gp(2, o);  // no data: samples of the prior
  GpHyperparameters h = gp.hyperparameters();
  h.lengthscales = (Vector(2) << 0.1, 1.0).finished();  // short across the diagonal x + y, long along it
  h.outputscale = 1.0;
  gp.set_hyperparameters(h);
  Matrix C(2, 3);
  C << 0.5, 0.6, 0.55,  // b - a along the diagonal, c - a across it
      0.5, 0.4, 0.55;
  const Kernel& k = gp.kernel();
  const Kernel axes(KernelType::Matern52, h.lengthscales, 1.0);
  ASSERT_GT(std::abs(k(C.col(0), C.col(1)) - axes(C.col(0), C.col(1))), 0.3);  // the rotation matters here
  Rng rng(12);
  const Matrix S = pathwise_thompson_samples(gp, C, 4000, 512, rng);
  const Matrix centered = S.colwise() - S.rowwise().mean();
  const Matrix cov = centered * centered.transpose() / 4000.0;
  for (Eigen::Index i = 0; i < 3; ++i)
    for (Eigen::Index j = 0; j < 3; ++j) EXPECT_NEAR(cov(i, j), k(C.col(i), C.col(j)), 0.12) << i << "," << j;
}

TEST(Kernel, ARotationMustBeOrthogonalOfTheInputsDimensionAndOrdered) {
  Kernel k(KernelType::Matern52, Vector::Constant(2, 0.5));
  EXPECT_THROW(k.set_rotation(Matrix::Identity(3, 3)), InvalidArgument);
  EXPECT_THROW(k.set_rotation((Matrix(2, 2) << 1.0, 0.5, 0.0, 1.0).finished()), InvalidArgument);
  EXPECT_THROW(k.set_rotation((Matrix(2, 2) << 1.0, std::nan(""), 0.0, 1.0).finished()), InvalidArgument);
  k.set_rotation(rotation_2d(0.3));
  EXPECT_TRUE(k.has_rotation());
  EXPECT_THROW(k.set_categories({0, 3}), InvalidArgument);
  k.set_rotation(Matrix());
  EXPECT_FALSE(k.has_rotation());
  k.set_categories({0, 3});
  EXPECT_THROW(k.set_rotation(rotation_2d(0.3)), InvalidArgument);
}

TEST(Kernel, InverseFromCholeskyMatchesDenseInverse) {
  // Both sides of kLapackFrom: Eigen below it, LAPACK from it on.
  for (Eigen::Index n : {Eigen::Index{1}, Eigen::Index{5}, Eigen::Index{33}, Eigen::Index{100}, kLapackFrom - 1,
                         kLapackFrom, Eigen::Index{300}}) {
    Rng rng(static_cast<std::uint64_t>(n));
    const Matrix A = Matrix::NullaryExpr(n, n + 3, [&] { return rng.normal(); });
    const Matrix K = A * A.transpose() + 0.1 * Matrix::Identity(n, n);
    Matrix L, Kinv;
    EXPECT_EQ(cholesky_with_jitter(K, L), 0.0);
    EXPECT_TRUE(L.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().isZero(0.0)) << n;
    EXPECT_LT((L * L.transpose() - K).norm() / K.norm(), 1e-14) << n;
    inverse_from_cholesky(L, Kinv);
    EXPECT_LT((Kinv - K.inverse()).norm() / K.inverse().norm(), 1e-12) << n;
    EXPECT_EQ(Kinv, Kinv.transpose());
  }
  // A singular matrix needs jitter; a NaN matrix throws; on both sides of kLapackFrom.
  for (Eigen::Index n : {Eigen::Index{4}, kLapackFrom + 72}) {
    Matrix L;
    const double jitter = cholesky_with_jitter(Matrix::Ones(n, n), L);
    EXPECT_GT(jitter, 0.0) << n;
    EXPECT_LT((L * L.transpose() - Matrix::Ones(n, n)).diagonal().maxCoeff(), 1.5 * jitter) << n;
    Matrix bad = Matrix::Identity(n, n);
    bad(n - 1, n - 1) = std::nan("");
    EXPECT_THROW(cholesky_with_jitter(bad, L), NumericalError) << n;
    EXPECT_THROW(cholesky_with_jitter(-Matrix::Identity(n, n), L), NumericalError) << n;
  }
}

// Runs and study workers fit models in parallel threads of one process, so a call into OpenBLAS
// must give the result it gives alone. Debian's serial OpenBLAS does not on its own: concurrent
// level-3 and LAPACK calls changed each other's results (docs/gp-bo.md, "Stop 53"; a test whose
// threads all factored the same matrix could not see it). Each thread here works on matrices of its
// own size and values and compares every result with the one it got before the threads started.
TEST(Kernel, BlasAndLapackResultsDoNotDependOnCallsInOtherThreads) {
  struct Results {
    Matrix L, Kinv, gram, product, solved;
    Vector symmetric;
    bool operator==(const Results& o) const {
      return L == o.L && Kinv == o.Kinv && gram == o.gram && product == o.product && solved == o.solved &&
             symmetric == o.symmetric;
    }
  };
  struct Work {
    Matrix K, J;
    Results compute(bool products) const {
      Results r;
      cholesky_with_jitter(K, r.L);                       // dpotrf
      inverse_from_cholesky(r.L, r.Kinv);                 // dtrtri, dlauum
      if (!products) return r;
      Matrix gram;
      lower_gram_product(J, false, gram);                 // dsyrk (its strict upper triangle is unspecified)
      r.gram = gram.triangularView<Eigen::Lower>();
      r.product.resize(J.cols(), J.cols());
      scaled_product(1.0, J, true, J, r.product, true);   // dgemm
      r.solved = J;
      lower_solve_in_place(r.L, r.solved);                // dtrsm
      symmetric_product(K, J.col(0), r.symmetric);        // dsymv
      return r;
    }
  };
  // Two threads on matrices just past kLapackFrom, so that their calls overlap often; every
  // eighth round also runs the products, which the factorizations in the other thread disturbed.
  constexpr int kThreads = 2, kRounds = 4000;
  std::vector<Work> work;
  std::vector<Results> alone, alone_factors;
  for (int t = 0; t < kThreads; ++t) {
    Rng rng(10 + static_cast<std::uint64_t>(t));
    const Eigen::Index n = kLapackFrom + 2 + 10 * t, m = 24 + 8 * t;
    const Matrix A = Matrix::NullaryExpr(n, n + 3, [&] { return rng.normal(); });
    work.push_back({A * A.transpose() + 0.1 * Matrix::Identity(n, n), Matrix::NullaryExpr(n, m, [&] { return rng.normal(); })});
    alone.push_back(work.back().compute(true));
    alone_factors.push_back(work.back().compute(false));
  }
  std::atomic<int> differing{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        const bool products = r % 8 == 0;
        if (!(work[t].compute(products) == (products ? alone[t] : alone_factors[t]))) ++differing;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(differing.load(), 0) << "of " << kThreads * kRounds << " rounds";
}

TEST(Kernel, BlasWrappersMatchEigen) {
  for (Eigen::Index n : {Eigen::Index{7}, kLapackFrom + 13}) {
    Rng rng(static_cast<std::uint64_t>(n));
    const Matrix A = Matrix::NullaryExpr(n, n, [&] { return rng.normal(); });
    const Matrix S = A + A.transpose();
    // A block of a larger buffer (the GP's inverse lives in one), with garbage above the diagonal.
    Matrix buffer = Matrix::Constant(n + 5, n + 5, 1e300);
    buffer.topLeftCorner(n, n).triangularView<Eigen::Lower>() = S;
    const Vector x = rng.normal_vector(n);
    Vector y;
    symmetric_product(std::as_const(buffer).topLeftCorner(n, n), x, y);
    EXPECT_LT((y - S * x).norm() / (S * x).norm(), 1e-14) << n;
    EXPECT_THROW(symmetric_product(S, Vector::Zero(n + 1), y), InvalidArgument);
    // L^-1 B with a lower triangle of the same buffer (diagonal moved away from 0).
    buffer.topLeftCorner(n, n).diagonal().array() = 2.0 * std::sqrt(static_cast<double>(n));
    const Matrix L = buffer.topLeftCorner(n, n).triangularView<Eigen::Lower>();
    const Matrix B = Matrix::NullaryExpr(n, 3, [&] { return rng.normal(); });
    Matrix Y = B;
    lower_solve_in_place(std::as_const(buffer).topLeftCorner(n, n), Y);
    EXPECT_LT((L * Y - B).norm() / B.norm(), 1e-13) << n;
    EXPECT_THROW(lower_solve_in_place(L, Y.topRows(n - 1)), InvalidArgument);
    // C = alpha op(A) B by BLAS and by Eigen, into a block of a larger buffer.
    for (bool transpose : {false, true}) {
      const Matrix G = Matrix::NullaryExpr(transpose ? 4 : n, transpose ? n : 4, [&] { return rng.normal(); });
      Matrix blas = Matrix::Zero(n + 2, 3), eigen = blas;
      scaled_product(-2.0, G, transpose, B.topRows(4), blas.topRows(n), true);
      scaled_product(-2.0, G, transpose, B.topRows(4), eigen.topRows(n), false);
      const Matrix expected = -2.0 * (transpose ? Matrix(G.transpose()) : G) * B.topRows(4);
      EXPECT_LT((blas.topRows(n) - expected).norm() / expected.norm(), 1e-14) << n;
      EXPECT_LT((eigen.topRows(n) - expected).norm() / expected.norm(), 1e-14) << n;
      EXPECT_TRUE(blas.bottomRows(2).isZero(0.0));
      EXPECT_THROW(scaled_product(1.0, G, !transpose, B.topRows(4), blas.topRows(n), true), InvalidArgument);
    }
    // The lower triangle of A A^T / A^T A (dsyrk), A a block of a larger buffer.
    Matrix wide = Matrix::NullaryExpr(n + 3, 9, [&] { return rng.normal(); });
    for (bool transpose : {false, true}) {
      const auto block = std::as_const(wide).topRows(transpose ? 9 : n).leftCols(transpose ? 5 : 9);
      const Matrix expected = transpose ? Matrix(block.transpose() * block) : Matrix(block * block.transpose());
      Matrix gram = Matrix::Constant(2, 2, 7.0);  // resized
      lower_gram_product(block, transpose, gram);
      ASSERT_EQ(gram.rows(), expected.rows());
      ASSERT_EQ(gram.cols(), expected.rows());
      EXPECT_LT((Matrix(gram.triangularView<Eigen::Lower>()) - Matrix(expected.triangularView<Eigen::Lower>())).norm() /
                    expected.norm(), 1e-14) << n;
    }
  }
}

// ---------------------------------------------------------------- GP posterior

TEST(Gp, PosteriorMatchesDirectFormula) {
  // Three points in 1-D, fixed hyperparameters; the reference uses a plain matrix inverse in
  // original output units: mu = m + k^T A^-1 (y - m), var = s - k^T A^-1 k, A = K + sigma^2 I.
  Matrix X(1, 3);
  X << 0.1, 0.5, 0.8;
  const Vector y = (Vector(3) << 1.0, 2.0, 4.0).finished();
  for (KernelType t : kAllKernels) {
    GpOptions opt;
    opt.kernel = t;
    GaussianProcess gp(1, opt);
    gp.set_data(X, y);
    const double ym = 7.0 / 3.0, ysd = std::sqrt(((1 - ym) * (1 - ym) + (2 - ym) * (2 - ym) + (4 - ym) * (4 - ym)) / 2);
    EXPECT_NEAR(gp.output_mean(), ym, 1e-14);
    EXPECT_NEAR(gp.output_scale(), ysd, 1e-14);
    GpHyperparameters h;
    h.lengthscales = Vector::Constant(1, 0.3);
    h.outputscale = 1.5;
    h.noise_variance = 0.01;
    h.mean = 0.2;
    gp.set_hyperparameters(h);

    const Kernel k(t, h.lengthscales, h.outputscale * ysd * ysd);  // original units
    const double m = ym + ysd * h.mean, noise = h.noise_variance * ysd * ysd;
    Matrix A = k.gram(X);
    A.diagonal().array() += noise;
    const Matrix Ainv = A.inverse();
    const Vector r = y.array() - m;
    Matrix Xs(1, 2);
    Xs << 0.3, 0.95;
    Vector bm, bv;
    gp.predict(Xs, bm, bv);
    for (Eigen::Index j = 0; j < 2; ++j) {
      const Vector ks = k.cross(X, Xs.col(j));
      const double mean = m + ks.dot(Ainv * r), var = k.variance() - ks.dot(Ainv * ks);
      const GpPrediction p = gp.predict(Xs.col(j));
      EXPECT_NEAR(p.mean, mean, 1e-12) << to_string(t);
      EXPECT_NEAR(p.variance, var, 1e-12) << to_string(t);
      EXPECT_NEAR(gp.predict(Xs.col(j), true).variance, var + noise, 1e-12);
      EXPECT_NEAR(bm[j], mean, 1e-12);
      EXPECT_NEAR(bv[j], var, 1e-12);
    }
    // Eq. 2.30 on the standardized outputs.
    Matrix As = A / (ysd * ysd);
    const Vector rs = r / ysd;
    const double lml = -0.5 * rs.dot(As.inverse() * rs) - 0.5 * std::log(As.determinant()) - 1.5 * std::log(2 * std::numbers::pi);
    EXPECT_NEAR(gp.log_marginal_likelihood(), lml, 1e-11);
    EXPECT_NEAR(gp.log_marginal_likelihood(gp.parameters(), nullptr), lml, 1e-11);
    // Joint covariance: diagonal = variances, off-diagonal from the formula.
    const Matrix S = gp.posterior_covariance(Xs);
    const Vector k0 = k.cross(X, Xs.col(0)), k1 = k.cross(X, Xs.col(1));
    EXPECT_NEAR(S(0, 1), k(Xs.col(0), Xs.col(1)) - k0.dot(Ainv * k1), 1e-12);
    EXPECT_NEAR(S(1, 1), bv[1], 1e-12);
  }
}

TEST(Gp, SetOutputsKeepsTheStandardizationAndMatchesTheDirectFormula) {
  // After set_outputs(y2) the posterior is the direct formula with y2 and y1's standardization
  // (output_mean, output_scale), the one a rank warp between refits relies on.
  Matrix X(1, 4);
  X << 0.1, 0.4, 0.6, 0.9;
  const Vector y1 = (Vector(4) << 1.0, 2.0, 4.0, -3.0).finished();
  const Vector y2 = (Vector(4) << 1.0, 2.0, 4.0, -0.5).finished();
  GaussianProcess gp(1);
  gp.set_data(X, y1);
  GpHyperparameters h;
  h.lengthscales = Vector::Constant(1, 0.3);
  h.outputscale = 1.2;
  h.noise_variance = 0.02;
  h.mean = -0.1;
  gp.set_hyperparameters(h);
  const double ym = gp.output_mean(), ysd = gp.output_scale();
  gp.set_outputs(y2);
  EXPECT_EQ(gp.output_mean(), ym);
  EXPECT_EQ(gp.output_scale(), ysd);
  EXPECT_EQ(gp.outputs(), y2);
  const Kernel k(KernelType::Matern52, h.lengthscales, h.outputscale * ysd * ysd);
  const double m = ym + ysd * h.mean;
  Matrix A = k.gram(X);
  A.diagonal().array() += h.noise_variance * ysd * ysd;
  const Vector r = y2.array() - m;
  for (double x : {0.25, 0.7, 0.95}) {
    const Vector xs = Vector::Constant(1, x);
    const Vector ks = k.cross(X, xs);
    EXPECT_NEAR(gp.predict(xs).mean, m + ks.dot(A.inverse() * r), 1e-12) << x;
  }
  EXPECT_THROW(gp.set_outputs(Vector::Zero(3)), InvalidArgument);
  EXPECT_THROW(gp.set_outputs(Vector::Constant(4, std::nan(""))), InvalidArgument);
}

TEST(Gp, LeaveOneOutResidualsEqualConditioningOnTheOtherPoints) {
  // Eq. 5.12 against the direct route: for each i, the posterior mean at x_i given the other
  // points, m + k_i^T A_{-i}^-1 (y_{-i} - m), with the same hyperparameters, in standardized units.
  Rng rng(7);
  const Matrix X = random_points(2, 9, rng);
  Vector y(9);
  for (Eigen::Index j = 0; j < 9; ++j) y[j] = std::sin(6 * X(0, j)) + X(1, j) * X(1, j) + 0.1 * rng.normal();
  GaussianProcess gp(2);
  gp.set_data(X, y);
  GpHyperparameters h;
  h.lengthscales = (Vector(2) << 0.3, 0.6).finished();
  h.outputscale = 1.3;
  h.noise_variance = 0.05;
  gp.set_hyperparameters(h);
  const Vector ys = gp.standardized_outputs();
  EXPECT_NEAR(ys.mean(), 0.0, 1e-12);
  const Kernel k(KernelType::Matern52, h.lengthscales, h.outputscale);  // standardized units
  for (double m : {0.0, -0.7}) {
    const Vector r = gp.leave_one_out_residuals(m);
    ASSERT_EQ(r.size(), 9);
    for (Eigen::Index i = 0; i < 9; ++i) {
      std::vector<Eigen::Index> others;
      for (Eigen::Index j = 0; j < 9; ++j)
        if (j != i) others.push_back(j);
      const Matrix Xo = X(Eigen::all, others);
      Matrix A = k.gram(Xo);
      A.diagonal().array() += h.noise_variance;
      const Vector ki = k.cross(Xo, X.col(i));
      const double mean = m + ki.dot(A.inverse() * (ys(others).array() - m).matrix());
      EXPECT_NEAR(r[i], ys[i] - mean, 1e-10) << "point " << i << ", mean " << m;
    }
  }
  GaussianProcess one(2);
  one.set_data(X.leftCols(1), y.head(1));
  EXPECT_EQ(one.leave_one_out_residuals(0.0).size(), 0);
}

TEST(Gp, TurboReferenceScalingUsesMedianAndPopulationSd) {
  // turbo_1.py: (fX - np.median(fX)) / fX.std(), the std 1 when below 1e-6.
  GpOptions opt;
  opt.output_scaling = OutputScaling::MedianPopulationSd;
  GaussianProcess gp(1, opt);
  Matrix X(1, 4);
  X << 0.1, 0.4, 0.6, 0.9;
  gp.set_data(X, (Vector(4) << 3.0, -1.0, 10.0, 2.0).finished());
  EXPECT_DOUBLE_EQ(gp.output_mean(), 2.5);  // even count: mean of the middle two
  EXPECT_NEAR(gp.output_scale(), std::sqrt((0.25 + 20.25 + 42.25 + 2.25) / 4.0), 1e-14);  // mean 3.5
  gp.add_point((Vector(1) << 0.2).finished(), 100.0);  // keeps the scaling until the next set_data/fit
  EXPECT_DOUBLE_EQ(gp.output_mean(), 2.5);
  gp.set_data(gp.inputs(), gp.outputs());
  EXPECT_DOUBLE_EQ(gp.output_mean(), 3.0);  // odd count: the middle value
  gp.set_data(X, Vector::Constant(4, 7.0));
  EXPECT_DOUBLE_EQ(gp.output_mean(), 7.0);
  EXPECT_DOUBLE_EQ(gp.output_scale(), 1.0);
}

TEST(Gp, PriorWithoutDataAndBadInput) {
  GaussianProcess gp(3);
  const GpPrediction p = gp.predict(Vector::Constant(3, 0.5));
  EXPECT_EQ(p.mean, 0.0);
  EXPECT_NEAR(p.variance, gp.hyperparameters().outputscale, 1e-15);
  Rng rng(1);
  EXPECT_NO_THROW(gp.fit(rng));
  const Matrix S = gp.sample_posterior(random_points(3, 4, rng), 3, rng);
  EXPECT_TRUE(S.allFinite());
  EXPECT_THROW(gp.predict(Vector::Zero(2)), InvalidArgument);
  EXPECT_THROW(gp.add_point(Vector::Zero(3), std::nan("")), InvalidArgument);
  EXPECT_THROW(gp.set_data(Matrix::Zero(3, 2), Vector::Zero(3)), InvalidArgument);
  EXPECT_THROW(GaussianProcess(0), InvalidArgument);
  GpOptions bad;
  bad.min_lengthscale = 0.0;
  EXPECT_THROW(GaussianProcess(2, bad), InvalidArgument);
}

TEST(Gp, DefaultPriorIsDimensionScaled) {
  // Initial lengthscales are the mode exp(mu - sigma^2) of LogNormal(sqrt2 + log(d)/2, sqrt3).
  for (Eigen::Index d : {1, 5, 20}) {
    const GaussianProcess gp(d);
    const double mode = std::exp(std::numbers::sqrt2 + 0.5 * std::log(static_cast<double>(d)) - 3.0);
    EXPECT_NEAR(gp.hyperparameters().lengthscales[0], mode, 1e-12);
    EXPECT_EQ(gp.kernel().type(), KernelType::Matern52);
  }
}

TEST(Gp, LogMarginalLikelihoodGradientMatchesFiniteDifferences) {
  for (KernelType t : kAllKernels) {
    for (int variant = 0; variant < 4; ++variant) {
      GpOptions opt;
      // 0, 2: learned mean; 1: the sample mean; 3: the lowest output (ConstantMean::Worst).
      opt.mean = variant == 1 ? ConstantMean::Sample : variant == 3 ? ConstantMean::Worst : ConstantMean::Learned;
      if (variant == 2) opt.fixed_noise_variance = 0.02;
      GaussianProcess gp = make_gp(t, 3, 20, 11 + static_cast<std::uint64_t>(variant), opt);
      Rng rng(100 + static_cast<std::uint64_t>(variant));
      Vector lo, hi;
      gp.parameter_bounds(lo, hi);
      ASSERT_EQ(lo.size(), gp.num_parameters());
      ASSERT_EQ(gp.num_parameters(), 3 + 1 + (variant == 2 ? 0 : 1) + (variant % 2 == 1 ? 0 : 1));
      for (int trial = 0; trial < 3; ++trial) {
        Vector theta(gp.num_parameters());
        theta.head(3) = (Vector(3) << -1.5, -0.5, 0.3).finished().array() + 0.3 * rng.uniform();
        theta[3] = 0.2 * rng.normal();
        if (variant != 2) theta[4] = std::log(0.05) + rng.normal();
        if (variant % 2 == 0) theta[theta.size() - 1] = 0.3 * rng.normal();
        for (bool prior : {false, true}) {
          Vector g;
          const double v = gp.log_marginal_likelihood(theta, &g, prior);
          EXPECT_EQ(v, gp.log_marginal_likelihood(theta, nullptr, prior));
          const Vector fd =
              numeric_gradient([&](const Vector& th) { return gp.log_marginal_likelihood(th, nullptr, prior); }, theta, 1e-5);
          expect_close(g, fd, 1e-5, 1e-6, to_string(t) + " variant " + std::to_string(variant) + (prior ? " +prior" : ""));
        }
      }
    }
  }
}

TEST(Gp, ARotatedFramesLikelihoodGradientMatchesFiniteDifferencesAndItsPosteriorIsTheRotatedPointsOne) {
  GpOptions opt;
  opt.input_rotation = rotation_2d(0.8);
  GaussianProcess gp = make_gp(KernelType::Matern52, 2, 15, 31, opt);
  const Vector theta = (Vector(5) << -1.2, -0.4, 0.1, std::log(0.03), 0.2).finished();  // lengthscales, s, noise, mean
  Vector g;
  gp.log_marginal_likelihood(theta, &g, true);
  const Vector fd = numeric_gradient([&](const Vector& th) { return gp.log_marginal_likelihood(th, nullptr, true); }, theta, 1e-5);
  expect_close(g, fd, 1e-5, 1e-6, "rotated frame");
  // The same data rotated, in a GP of the parameters' axes: the same posterior.
  GpOptions axes;
  GaussianProcess plain(2, axes);
  plain.set_data(opt.input_rotation * gp.inputs(), gp.outputs());
  gp.set_hyperparameters(gp.unpack(theta));
  plain.set_hyperparameters(gp.hyperparameters());
  const Vector x = (Vector(2) << 0.3, 0.7).finished();
  EXPECT_NEAR(gp.predict(x).mean, plain.predict(opt.input_rotation * x).mean, 1e-10);
  EXPECT_NEAR(gp.predict(x).variance, plain.predict(opt.input_rotation * x).variance, 1e-10);
  // Its posterior gradients are in the parameters' coordinates.
  const GpPredictionWithGradient p = gp.predict_with_gradient(x);
  expect_close(p.mean_gradient, numeric_gradient([&](const Vector& z) { return gp.predict(z).mean; }, x), 1e-5, 1e-7, "mean");
  // Setting the rotation again refactorizes: back to the axes, the plain GP of the same points.
  gp.set_input_rotation(Matrix());
  plain.set_data(gp.inputs(), gp.outputs());
  EXPECT_NEAR(gp.predict(x).mean, plain.predict(x).mean, 1e-10);
}

// ConstantMean::Worst (De Ath et al. 2020): far from the data the posterior mean is the lowest
// output, whatever the fit, and it follows the outputs; Sample: the outputs' mean.
TEST(Gp, AWorstMeanIsTheLowestOutputAndFollowsTheOutputs) {
  GpOptions opt;
  opt.mean = ConstantMean::Worst;
  GaussianProcess gp = make_gp(KernelType::Matern52, 2, 15, 5, opt);
  const Vector far = Vector::Constant(2, 50.0);  // kernel ~ 0 to every point: the prior mean
  const auto far_mean = [&] { return gp.predict(far).mean; };
  EXPECT_NEAR(far_mean(), gp.outputs().minCoeff(), 1e-9);
  GpHyperparameters h = gp.hyperparameters();
  h.mean = 3.0;  // a fixed mean is not a parameter: ignored
  gp.set_hyperparameters(h);
  EXPECT_NEAR(far_mean(), gp.outputs().minCoeff(), 1e-9);
  Rng rng(1);
  gp.fit(rng);
  EXPECT_EQ(gp.num_parameters(), 2 + 1 + 1);  // lengthscales, outputscale, noise
  EXPECT_NEAR(far_mean(), gp.outputs().minCoeff(), 1e-9);
  gp.add_point(Vector::Constant(2, 0.5), gp.outputs().minCoeff() - 4.0);
  EXPECT_NEAR(far_mean(), gp.outputs().minCoeff(), 1e-9);
  gp.set_outputs(gp.outputs().array() + 7.0);
  EXPECT_NEAR(far_mean(), gp.outputs().minCoeff(), 1e-9);
  // Learned from here: the fit moves it off the lowest output (towards the data's level).
  gp.set_constant_mean(ConstantMean::Learned);
  EXPECT_EQ(gp.num_parameters(), 2 + 1 + 1 + 1);
  gp.fit(rng);
  EXPECT_GT(far_mean(), gp.outputs().minCoeff() + 1.0);
  gp.set_constant_mean(ConstantMean::Worst);
  EXPECT_NEAR(far_mean(), gp.outputs().minCoeff(), 1e-9);
  opt.mean = ConstantMean::Sample;
  const GaussianProcess sample = make_gp(KernelType::Matern52, 2, 15, 5, opt);
  EXPECT_NEAR(sample.predict(far).mean, sample.outputs().mean(), 1e-9);
  // A margin puts it that many sample sds of the outputs below the lowest one.
  opt.mean = ConstantMean::Worst;
  opt.worst_margin = 0.5;
  const GaussianProcess below = make_gp(KernelType::Matern52, 2, 15, 5, opt);
  const Vector& y = below.outputs();
  const double sd = std::sqrt((y.array() - y.mean()).square().sum() / static_cast<double>(y.size() - 1));
  EXPECT_NEAR(below.predict(far).mean, y.minCoeff() - 0.5 * sd, 1e-9 * sd);
  opt.worst_margin = -1.0;
  EXPECT_THROW(GaussianProcess(2, opt), InvalidArgument);
}

TEST(Gp, RecoversKnownLengthscales) {
  // Draw f from a Matern-5/2 GP with lengthscales (0.1, 0.5) at 150 random points, small noise.
  const Eigen::Index n = 150;
  Rng rng(2024);
  const Matrix X = random_points(2, n, rng);
  const Kernel truth(KernelType::Matern52, (Vector(2) << 0.1, 0.5).finished(), 4.0);
  Matrix K = truth.gram(X);
  K.diagonal().array() += 1e-8;
  Matrix L;
  cholesky_with_jitter(K, L);
  const Vector f = L.triangularView<Eigen::Lower>() * rng.normal_vector(n);
  const Vector y = (f + 0.01 * rng.normal_vector(n)).array() + 5.0;

  GaussianProcess gp(2);
  gp.set_data(X, y);
  Rng fit_rng(1);
  gp.fit(fit_rng);
  const Vector l = gp.hyperparameters().lengthscales;
  EXPECT_GT(l[0], 0.1 / 1.5);
  EXPECT_LT(l[0], 0.1 * 1.5);
  EXPECT_GT(l[1], 0.5 / 1.5);
  EXPECT_LT(l[1], 0.5 * 1.5);
  // The fitted noise is small: 0.01^2 against an output variance of about 4.
  EXPECT_LT(gp.hyperparameters().noise_variance * gp.output_scale() * gp.output_scale(), 1e-2);
  // Fitting increased the log posterior over the initial prior-mode hyperparameters.
  GaussianProcess init(2);
  init.set_data(X, y);
  EXPECT_GT(gp.log_marginal_likelihood(gp.parameters(), nullptr, true),
            init.log_marginal_likelihood(init.parameters(), nullptr, true));
  // A refit from the optimum stays there (warm start) and is deterministic.
  GaussianProcess again = gp;
  Rng r1(9), r2(9);
  again.fit(r1);
  GaussianProcess again2 = gp;
  again2.fit(r2);
  EXPECT_EQ(again.parameters(), again2.parameters());
  EXPECT_NEAR(again.log_marginal_likelihood(), gp.log_marginal_likelihood(), 1e-3 * std::abs(gp.log_marginal_likelihood()));
}

TEST(Gp, AddPointEqualsFullRefactorization) {
  for (KernelType t : kAllKernels) {
    GaussianProcess gp = make_gp(t, 4, 12, 21);
    Rng rng(22);
    gp.fit(rng);
    for (int i = 0; i < 15; ++i) {
      Vector x = rng.uniform_vector(4);
      if (i == 7) x = gp.inputs().col(3);  // a duplicate point
      gp.add_point(x, 10.0 + 3.0 * smooth_function(x));
    }
    EXPECT_EQ(gp.size(), 27);
    GaussianProcess full = gp;
    full.refactorize();
    EXPECT_NEAR(gp.log_marginal_likelihood(), full.log_marginal_likelihood(), 1e-9 * std::abs(full.log_marginal_likelihood()));
    const Matrix Xs = random_points(4, 10, rng);
    Vector m1, v1, m2, v2;
    gp.predict(Xs, m1, v1);
    full.predict(Xs, m2, v2);
    expect_close(m1, m2, 1e-10, 1e-10, "mean");
    expect_close(v1, v2, 1e-8, 1e-12, "variance");
    // Same hyperparameters and standardization as before the additions.
    EXPECT_EQ(gp.hyperparameters().lengthscales, full.hyperparameters().lengthscales);
  }
}

TEST(Gp, AddPointOnDuplicateWithZeroNoiseFallsBackToJitter) {
  GpOptions opt;
  opt.fixed_noise_variance = 0.0;
  GaussianProcess gp(2, opt);
  gp.add_point((Vector(2) << 0.2, 0.3).finished(), 1.0);
  gp.add_point((Vector(2) << 0.7, 0.1).finished(), 2.0);
  gp.add_point((Vector(2) << 0.2, 0.3).finished(), 1.5);  // exact duplicate, no noise
  EXPECT_EQ(gp.size(), 3);
  EXPECT_GT(gp.jitter(), 0.0);
  // The first rung of the jitter ladder that works (1e-10 here), not one that smooths the data away.
  EXPECT_LE(gp.jitter(), 1e-6 * gp.hyperparameters().outputscale);
  // The jittered model is the one a full factorization of the same data gives (not an O(n^2)
  // extension through a near-zero pivot)...
  GaussianProcess full = gp;
  full.refactorize();
  EXPECT_EQ(full.jitter(), gp.jitter());
  for (const Vector& x : {Vector((Vector(2) << 0.2, 0.3).finished()), Vector((Vector(2) << 0.7, 0.1).finished()),
                          Vector((Vector(2) << 0.5, 0.5).finished())}) {
    const GpPrediction a = gp.predict(x), b = full.predict(x);
    EXPECT_NEAR(a.mean, b.mean, 1e-9);
    EXPECT_NEAR(a.variance, b.variance, 1e-9);
  }
  // ...and it still nearly interpolates: the duplicate's two values are averaged (1.25) with a
  // jitter-sized variance, the other point keeps its value.
  const GpPrediction p = gp.predict((Vector(2) << 0.2, 0.3).finished());
  EXPECT_NEAR(p.mean, 1.25, 1e-3);
  EXPECT_GE(p.variance, 0.0);
  EXPECT_LT(p.variance, 1e-4);
  const GpPrediction q = gp.predict((Vector(2) << 0.7, 0.1).finished());
  EXPECT_NEAR(q.mean, 2.0, 1e-3);
  EXPECT_LT(q.variance, 1e-4);
}

TEST(Gp, PosteriorGradientsMatchFiniteDifferences) {
  for (KernelType t : kAllKernels) {
    GaussianProcess gp = make_gp(t, 3, 25, 31);
    Rng rng(32);
    gp.fit(rng);
    for (bool noise : {false, true}) {
      for (int trial = 0; trial < 4; ++trial) {
        const Vector x = rng.uniform_vector(3);
        const GpPredictionWithGradient p = gp.predict_with_gradient(x, noise);
        const GpPrediction q = gp.predict(x, noise);
        EXPECT_NEAR(p.mean, q.mean, 1e-12 * std::abs(q.mean));
        EXPECT_NEAR(p.variance, q.variance, 1e-12);
        const Vector gm = numeric_gradient([&](const Vector& z) { return gp.predict(z, noise).mean; }, x);
        const Vector gv = numeric_gradient([&](const Vector& z) { return gp.predict(z, noise).variance; }, x);
        expect_close(p.mean_gradient, gm, 1e-5, 1e-7, "mean gradient " + to_string(t));
        expect_close(p.variance_gradient, gv, 1e-5, 1e-7, "variance gradient " + to_string(t));
      }
    }
    // Batch version agrees with the single-point one.
    const Matrix Xs = random_points(3, 5, rng);
    Vector m, v;
    Matrix gm, gv;
    gp.predict_with_gradient(Xs, m, v, gm, gv);
    for (Eigen::Index j = 0; j < 5; ++j) {
      const GpPredictionWithGradient p = gp.predict_with_gradient(Xs.col(j));
      EXPECT_EQ(m[j], p.mean);
      EXPECT_NEAR(v[j], p.variance, 1e-12 * (1 + p.variance));
      expect_close(gm.col(j), p.mean_gradient, 1e-10, 1e-12, "batch mean gradient " + to_string(t));
      EXPECT_EQ(gv.col(j), p.variance_gradient);
    }
  }
}

TEST(Gp, PosteriorSamplesHaveThePosteriorMoments) {
  GaussianProcess gp = make_gp(KernelType::Matern52, 2, 15, 41);
  Rng rng(42);
  gp.fit(rng);
  const Matrix Xs = random_points(2, 5, rng);
  const std::size_t ns = 40000;
  const Matrix S = gp.sample_posterior(Xs, ns, rng);
  ASSERT_EQ(S.rows(), 5);
  ASSERT_EQ(S.cols(), static_cast<Eigen::Index>(ns));
  Vector mean, var;
  gp.predict(Xs, mean, var);
  const Matrix C = gp.posterior_covariance(Xs);
  const Vector emp_mean = S.rowwise().mean();
  const Matrix centred = S.colwise() - emp_mean;
  const Matrix emp_cov = centred * centred.transpose() / static_cast<double>(ns - 1);
  for (Eigen::Index i = 0; i < 5; ++i) {
    const double sd = std::sqrt(var[i]);
    EXPECT_NEAR(emp_mean[i], mean[i], 5.0 * sd / std::sqrt(static_cast<double>(ns)) + 1e-9);
    for (Eigen::Index j = 0; j < 5; ++j)
      EXPECT_NEAR(emp_cov(i, j), C(i, j), 0.03 * std::sqrt(C(i, i) * C(j, j)) + 1e-12) << i << "," << j;
  }
  // Same rng state, same draws; candidates at data points and duplicates do not break it.
  Matrix Xd(2, 4);
  Xd << gp.inputs().col(0), gp.inputs().col(0), gp.inputs().col(1), Xs.col(0);
  Rng a(5), b(5);
  const Matrix Da = gp.sample_posterior(Xd, 10, a), Db = gp.sample_posterior(Xd, 10, b);
  EXPECT_EQ(Da, Db);
  EXPECT_TRUE(Da.allFinite());
}

TEST(Gp, DegenerateDataDoesNotCrash) {
  Rng rng(51);
  const auto check = [&](GaussianProcess& gp, const char* what) {
    Rng fit_rng(52);
    ASSERT_NO_THROW(gp.fit(fit_rng)) << what;
    EXPECT_TRUE(std::isfinite(gp.log_marginal_likelihood())) << what;
    for (int i = 0; i < 5; ++i) {
      const GpPredictionWithGradient p = gp.predict_with_gradient(rng.uniform_vector(gp.dim()));
      EXPECT_TRUE(std::isfinite(p.mean) && std::isfinite(p.variance) && p.variance >= 0.0) << what;
      EXPECT_TRUE(p.mean_gradient.allFinite() && p.variance_gradient.allFinite()) << what;
    }
    EXPECT_TRUE(gp.sample_posterior(random_points(gp.dim(), 6, rng), 4, rng).allFinite()) << what;
  };
  {  // one point
    GaussianProcess gp(20);
    gp.add_point(rng.uniform_vector(20), 3.0);
    check(gp, "one point");
    EXPECT_NEAR(gp.predict(gp.inputs().col(0)).mean, 3.0, 0.1);
  }
  {  // constant objective
    GaussianProcess gp(3);
    gp.set_data(random_points(3, 10, rng), Vector::Constant(10, 7.5));
    check(gp, "constant");
    EXPECT_NEAR(gp.predict(rng.uniform_vector(3)).mean, 7.5, 1e-6);
  }
  {  // all points identical, different outputs
    GaussianProcess gp(2);
    const Vector x = rng.uniform_vector(2);
    gp.set_data(x.replicate(1, 8), rng.normal_vector(8));
    check(gp, "duplicates");
  }
  {  // many duplicates with a zero fixed noise: needs jitter
    GpOptions opt;
    opt.fixed_noise_variance = 0.0;
    GaussianProcess gp(2, opt);
    Matrix X = random_points(2, 6, rng);
    X.col(4) = X.col(0);
    X.col(5) = X.col(0);
    gp.set_data(X, (Vector(6) << 1, 2, 3, 4, 1, 1).finished());
    check(gp, "duplicates, zero noise");
  }
  {  // a handful of points in 20-D does not collapse the lengthscales to the lower bound
    GaussianProcess gp(20);
    const Matrix X = random_points(20, 6, rng);
    Vector y(6);
    for (Eigen::Index j = 0; j < 6; ++j) y[j] = smooth_function(X.col(j));
    gp.set_data(X, y);
    check(gp, "20-D, 6 points");
    EXPECT_GT(gp.hyperparameters().lengthscales.minCoeff(), 0.1);
  }
}

TEST(Gp, FitOnARandomSubsetConditionsOnAllPoints) {
  GpOptions opt;
  opt.fit.max_points = 30;
  GaussianProcess gp = make_gp(KernelType::Matern52, 3, 80, 61, opt);
  Rng rng(62);
  gp.fit(rng);
  EXPECT_EQ(gp.last_fit().points, 30u);
  EXPECT_EQ(gp.size(), 80);
  EXPECT_GT(gp.last_fit().evaluations, 0u);
  EXPECT_TRUE(std::isfinite(gp.last_fit().log_posterior));
  // Conditioned on all 80 points: the mean nearly interpolates the (low-noise) data.
  for (Eigen::Index j = 0; j < 80; j += 7)
    EXPECT_NEAR(gp.predict(gp.inputs().col(j)).mean, gp.outputs()[j], 0.1 * gp.output_scale());
  GaussianProcess full = make_gp(KernelType::Matern52, 3, 80, 61);
  Rng rng2(62);
  full.fit(rng2);
  EXPECT_EQ(full.last_fit().points, 80u);
}
