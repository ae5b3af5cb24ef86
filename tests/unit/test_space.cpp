#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "optimist/core/rng.hpp"
#include "optimist/core/discrete_domain.hpp"
#include "optimist/core/space.hpp"

using namespace optimist;

namespace {
Space mixed_space() {
  Space s;
  s.add_continuous("lr", 1e-5, 1e-1, true)
      .add_continuous("momentum", 0.0, 0.99)
      .add_integer("layers", 1, 4)
      .add_categorical("activation", {"relu", "tanh", "sigmoid"});
  return s;
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Space, RoundTripContinuousAndLog) {
  const Space s = mixed_space();
  Rng rng(1);
  for (int k = 0; k < 1000; ++k) {
    Vector u = rng.uniform_vector(4);
    Vector x = s.to_user(u);
    ASSERT_NO_THROW(s.validate(x));
    Vector back = s.to_unit(x);
    EXPECT_NEAR(back[0], u[0], 1e-12);
    EXPECT_NEAR(back[1], u[1], 1e-12);
    // Discrete coordinates come back exactly (as the center of their interval); continuous ones to
    // rounding (with FMA contraction, as under -march=native, not always bit for bit).
    const Vector again = s.to_user(back);
    EXPECT_NEAR(again[0], x[0], 1e-12 * std::abs(x[0]));
    EXPECT_NEAR(again[1], x[1], 1e-12 * std::abs(x[1]));
    EXPECT_EQ(again[2], x[2]);
    EXPECT_EQ(again[3], x[3]);
  }
}

TEST(Space, LogScaleIsGeometric) {
  Space s;
  s.add_continuous("c", 1e-4, 1.0, true);
  EXPECT_NEAR(s.to_user(Vector::Constant(1, 0.5))[0], 1e-2, 1e-15);
  EXPECT_NEAR(s.to_user(Vector::Constant(1, 0.25))[0], 1e-3, 1e-15);
  EXPECT_DOUBLE_EQ(s.to_user(Vector::Constant(1, 0.0))[0], 1e-4);
  EXPECT_DOUBLE_EQ(s.to_user(Vector::Constant(1, 1.0))[0], 1.0);
}

TEST(Space, IntegerEqualLengthIntervals) {
  Space s;
  s.add_integer("k", -2, 1);  // 4 values, intervals of length 1/4
  auto at = [&](double u) { return s.to_user(Vector::Constant(1, u))[0]; };
  EXPECT_EQ(at(0.0), -2);
  EXPECT_EQ(at(0.2499), -2);
  EXPECT_EQ(at(0.25), -1);
  EXPECT_EQ(at(0.74), 0);
  EXPECT_EQ(at(0.75), 1);
  EXPECT_EQ(at(1.0), 1);
  EXPECT_DOUBLE_EQ(s.to_unit(Vector::Constant(1, -1))[0], 0.375);
  EXPECT_THROW(s.validate(Vector::Constant(1, 0.5)), InvalidArgument);
  // Every value equally likely from uniform unit draws.
  Rng rng(3);
  std::vector<int> counts(4, 0);
  for (int k = 0; k < 40000; ++k) counts[static_cast<int>(at(rng.uniform()) + 2)]++;
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
}

TEST(Space, CategoricalMapping) {
  const Space s = mixed_space();
  Vector x(4);
  x << 1e-3, 0.5, 3, 2;
  const nlohmann::json j = s.point_to_json(x);
  EXPECT_EQ(j[3], "sigmoid");
  EXPECT_EQ(j[2], 3);
  EXPECT_EQ(s.point_from_json(j), x);
  nlohmann::json by_name = {{"lr", 1e-3}, {"momentum", 0.5}, {"layers", 3}, {"activation", "sigmoid"}};
  EXPECT_EQ(s.point_from_json(by_name), x);
  EXPECT_NE(error_of([&] { s.point_from_json({1e-3, 0.5, 3, "gelu"}); }).find("gelu"), std::string::npos);
  EXPECT_NEAR(s.to_unit(x)[3], 5.0 / 6.0, 1e-15);
}

TEST(Space, InvalidDefinitionsNameTheParameter) {
  EXPECT_NE(error_of([] { Space().add_continuous("a", 1.0, 1.0); }).find("'a'"), std::string::npos);
  EXPECT_NE(error_of([] { Space().add_continuous("b", 2.0, 1.0); }).find("'b'"), std::string::npos);
  EXPECT_NE(error_of([] { Space().add_continuous("c", 0.0, 1.0, true); }).find("'c'"), std::string::npos);
  EXPECT_NE(error_of([] { Space().add_continuous("c2", -1.0, 1.0, true); }).find("positive"), std::string::npos);
  EXPECT_NE(error_of([] { Space().add_continuous("d", 0.0, NAN); }).find("'d'"), std::string::npos);
  EXPECT_NE(error_of([] { Space().add_integer("e", 3, 2); }).find("'e'"), std::string::npos);
  EXPECT_NE(error_of([] { Space().add_categorical("f", {}); }).find("'f'"), std::string::npos);
  EXPECT_NE(error_of([] { Space().add_categorical("g", {"x", "x"}); }).find("duplicate choice"), std::string::npos);
  EXPECT_NE(error_of([] { Space().add_continuous("h", 0, 1).add_integer("h", 0, 1); }).find("duplicate name"), std::string::npos);
  EXPECT_NO_THROW(Space().add_integer("single", 2, 2));
}

// Ranges that pass "finite and lower < upper" but that no algorithm can search: each once ended a
// run with "no free point left" or "non-finite coordinates" after evaluations were paid for.
TEST(Space, DegenerateContinuousRangesAreRejectedUpFront) {
  const auto error = [](double lo, double hi, bool log = false) {
    return error_of([&] { Space().add_continuous("x", lo, hi, log); });
  };
  EXPECT_NE(error(-1e308, 1e308).find("width of [-1e+308, 1e+308] overflows"), std::string::npos) << error(-1e308, 1e308);
  EXPECT_NE(error(1.0, std::nextafter(1.0, 2.0)).find("hold only 2 distinct"), std::string::npos);
  EXPECT_NE(error(0.0, 5e-324).find("too close to zero"), std::string::npos);
  EXPECT_NE(error(5e-324, 1e-323, true).find("too close to zero"), std::string::npos);
  EXPECT_NE(error(-1.0, std::nextafter(-1.0, 0.0)).find("hold only 2 distinct"), std::string::npos);
  EXPECT_NE(error(-0.0, 0.0).find("empty or inverted"), std::string::npos);
  // Exactly 2^20 values (from 1 to 1 + (2^20 - 1) ulps) is the smallest range accepted; one fewer is not.
  const double ulp = std::nextafter(1.0, 2.0) - 1.0;
  EXPECT_EQ(error(1.0, 1.0 + (1 << 20) * ulp - ulp), "");
  EXPECT_NE(error(1.0, 1.0 + (1 << 20) * ulp - 2 * ulp).find("hold only 1048575 distinct"), std::string::npos);
  EXPECT_EQ(error(-8e307, 8e307), "");
  EXPECT_EQ(error(3e-308, 1e-300, true), "");
}

TEST(Space, NamesAreIndexedInLargeSpaces) {
  const Space s = Space::box(30, 0.0, 1.0);
  EXPECT_EQ(s.index_of("x1"), 0u);
  EXPECT_EQ(s.index_of("x30"), 29u);
  const std::string message = error_of([&] { (void)s.index_of("x31"); });
  EXPECT_NE(message.find("unknown parameter 'x31'"), std::string::npos) << message;
  EXPECT_NE(message.find("x20, ... (30 in all)"), std::string::npos) << message;
  EXPECT_EQ(message.find("x21"), std::string::npos) << message;
  Space copy = s;  // the index travels with a copy
  EXPECT_NE(error_of([&] { copy.add_continuous("x7", 0, 1); }).find("duplicate name"), std::string::npos);
  EXPECT_EQ(copy.add_continuous("extra", 0, 1).index_of("extra"), 30u);
}

TEST(Space, ValidateRejectsBadPoints) {
  const Space s = mixed_space();
  Vector x(4);
  x << 1e-3, 0.5, 3, 2;
  EXPECT_NO_THROW(s.validate(x));
  EXPECT_NE(error_of([&] { s.validate(Vector::Zero(3)); }).find("dimension 3"), std::string::npos);
  Vector bad = x;
  bad[1] = 1.5;
  EXPECT_NE(error_of([&] { s.validate(bad); }).find("momentum"), std::string::npos);
  bad = x;
  bad[0] = NAN;
  EXPECT_NE(error_of([&] { s.validate(bad); }).find("lr"), std::string::npos);
  bad = x;
  bad[3] = 3;
  EXPECT_NE(error_of([&] { s.validate(bad); }).find("activation"), std::string::npos);
}

// Log-scale integers (stop 60): value v owns [v - 1/2, v + 1/2] of the log scale of
// [lower - 1/2, upper + 1/2] and is represented by log v.
TEST(Space, LogScaleIntegersOwnEqualSharesOfLogSpace) {
  Space s;
  s.add_integer("width", 1, 1000, /*log_scale=*/true);
  const Parameter& p = s[0];
  const double span = std::log(1000.5) - std::log(0.5);
  EXPECT_NEAR(p.cell_center(0), (std::log(1.0) - std::log(0.5)) / span, 1e-15);
  EXPECT_NEAR(p.cell_center(999), (std::log(1000.0) - std::log(0.5)) / span, 1e-15);
  // Value 1 owns [0, log(3)/span): about 14%; 1000 owns log(1000.5/999.5)/span.
  EXPECT_EQ(p.cell_index(0.0), 0u);
  EXPECT_EQ(p.cell_index(std::log(3.0) / span - 1e-9), 0u);
  EXPECT_EQ(p.cell_index(std::log(3.0) / span + 1e-9), 1u);
  EXPECT_EQ(p.cell_index(1.0), 999u);
  for (std::size_t j = 0; j < 1000; ++j) {
    ASSERT_EQ(p.cell_index(p.cell_center(j)), j);
    const Vector x = Vector::Constant(1, 1.0 + static_cast<double>(j));
    ASSERT_EQ(s.to_user(s.to_unit(x))[0], x[0]);
    ASSERT_EQ(s.snap_unit(s.to_unit(x))[0], s.to_unit(x)[0]);
  }
  EXPECT_EQ(s.finite_size(), std::optional<std::uint64_t>(1000));
  // The discrete domain sees the same cells: centres inside [lo, hi], in order.
  const DiscreteDomain dom(s);
  const auto [first, last] = dom.index_range(0, p.cell_center(9) - 1e-12, p.cell_center(99) + 1e-12);
  EXPECT_EQ(first, 9u);
  EXPECT_EQ(last, 99u);
  EXPECT_EQ(dom.count(Vector::Zero(1), Vector::Ones(1)), 1000u);
  // Written to and read from JSON; ordinary integers keep their equal cells.
  EXPECT_EQ(s.to_json()["parameters"][0]["log"], true);
  EXPECT_EQ(Space::from_json(s.to_json()).to_json(), s.to_json());
  Space linear;
  linear.add_integer("n", 1, 4);
  EXPECT_DOUBLE_EQ(linear[0].cell_center(1), 0.375);
  EXPECT_EQ(linear[0].cell_index(0.49), 1u);
  // Bounds the log scale cannot take are named.
  EXPECT_NE(error_of([] { Space().add_integer("w", 0, 8, true); }).find("parameter 'w': a log-scale integer needs lower >= 1, got lower = 0"),
            std::string::npos);
  EXPECT_NE(error_of([] { Space().add_integer("w", 1, (1LL << 40) + 1, true); }).find("needs upper <= 2^40"), std::string::npos);
}

TEST(Space, JsonRoundTrip) {
  const Space s = mixed_space();
  const Space t = Space::from_json(s.to_json());
  EXPECT_EQ(t.to_json(), s.to_json());
  EXPECT_THROW(Space::from_json(nlohmann::json::parse(R"([{"name":"a","type":"weird"}])")), InvalidArgument);
  EXPECT_THROW(Space::from_json(nlohmann::json::parse(R"([{"name":"a","lower":"x","upper":1}])")), InvalidArgument);
  EXPECT_THROW(Space::from_json(nlohmann::json::array()), InvalidArgument);
  // Keys of another kind of parameter, or typos, are named rather than ignored.
  const auto error = [](const char* text) {
    return error_of([&] { Space::from_json(nlohmann::json::parse(text)); });
  };
  EXPECT_NE(error(R"([{"name":"c","type":"categorical","choices":["a"],"log":true}])")
                .find("parameter 'c': unknown key 'log' (type categorical takes: choices, condition, name, type)"),
            std::string::npos);
  EXPECT_NE(error(R"([{"name":"x","lower":0,"upper":1,"lgo":true}])").find("unknown key 'lgo'"), std::string::npos);
  // A misspelled type is named, not the keys of the type it was taken for ("unknown key 'choices'").
  EXPECT_NE(error(R"([{"name":"x","type":"cat","choices":["a","b"]}])").find("parameter 'x': unknown type 'cat'; valid: continuous"),
            std::string::npos);
  EXPECT_NE(error(R"([{"name":"c","type":"categorical","choices":["a"],"lower":0}])").find("unknown key 'lower'"),
            std::string::npos);
  // So are top-level keys: "paramters" next to "parameters" was ignored.
  EXPECT_EQ(error(R"({"parameters":[{"name":"x","lower":0,"upper":1}],"paramters":[{"name":"y","lower":0,"upper":1}]})"),
            "unknown top-level key 'paramters' (did you mean 'parameters'?) in the space; it takes only 'parameters', the list of parameters");
  EXPECT_EQ(error(R"({"params":[]})"), "unknown top-level key 'params' in the space; it takes only 'parameters', the list of parameters");
  // Values of the wrong type or missing keys are named in the user's terms, not the JSON library's.
  for (const auto& [text, says] : std::vector<std::pair<const char*, std::string>>{
           {R"([{"name":"a","lower":"0","upper":1}])", "parameter 'a': 'lower' must be a number, got \"0\""},
           {R"([{"name":"a","lower":0}])", "parameter 'a': needs 'upper'"},
           {R"([{"name":"n","type":"integer","upper":3}])", "parameter 'n': needs 'lower'"},
           {R"([{"name":"a","lower":1,"upper":9,"log":"false"}])", "parameter 'a': 'log' must be true or false, got \"false\""},
           {R"([{"name":"a","type":3}])", "parameter 'a': 'type' must be a string"},
           {R"([{"name":"c","type":"categorical"}])", "parameter 'c': needs 'choices'"},
           {R"([{"name":"c","type":"categorical","choices":"ab"}])", "'choices' must be an array of strings"},
           {R"([{"name":"c","type":"categorical","choices":[16,32]}])", "choices must be strings, got 16 (write \"16\""}}) {
    const std::string e = error(text);
    EXPECT_NE(e.find(says), std::string::npos) << text << ": " << e;
    EXPECT_EQ(e.find("json.exception"), std::string::npos) << text << ": " << e;
  }
}

// snap_unit refuses what to_unit(to_user(u)) refuses: a point of another size (it wrote past the
// end) or a NaN (an integer's NaN became the value 3).
TEST(Space, SnapUnitRefusesMalformedPoints) {
  const Space s = mixed_space();
  EXPECT_THROW(s.snap_unit(Vector::Constant(2, 0.5)), InvalidArgument);
  EXPECT_THROW(s.snap_unit(Vector::Constant(9, 0.5)), InvalidArgument);
  Vector u = Vector::Constant(4, 0.5);
  u[2] = std::nan("");
  EXPECT_NE(error_of([&] { s.snap_unit(u); }).find("unit coordinate is not finite"), std::string::npos);
}

TEST(Space, SnapUnitIsIdempotentAndMatchesRoundTrip) {
  const Space s = mixed_space();
  Rng rng(5);
  for (int k = 0; k < 200; ++k) {
    Vector u = rng.uniform_vector(4);
    Vector snapped = s.snap_unit(u);
    EXPECT_EQ(s.snap_unit(snapped), snapped);
    EXPECT_EQ(s.to_user(snapped), s.to_user(u));
    EXPECT_NEAR((s.to_unit(s.to_user(u)) - snapped).norm(), 0.0, 1e-12);
  }
}
