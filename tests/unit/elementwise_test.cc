// The built-in elementwise functions: registry, known values, and the float32 evaluators.
#include "golden/elementwise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace qacc::golden {
namespace {

double Eval(const std::string& name, double x, double alpha = kDefaultLeakyReluAlpha) {
  return GetElementwise(name, alpha)(x);
}

TEST(ElementwiseRegistry, ListsEveryBuiltInInOrder) {
  const std::vector<std::string> expected = {
      "sigmoid", "tanh", "gelu",     "gelu_tanh", "silu", "hardswish", "hardsigmoid", "mish",
      "elu",     "selu", "softplus", "exp",       "relu", "relu6",     "leaky_relu"};
  EXPECT_EQ(ElementwiseNames(), expected);
  EXPECT_EQ(ElementwiseChoices(),
            "sigmoid|tanh|gelu|gelu_tanh|silu|hardswish|hardsigmoid|mish|elu|selu|softplus|exp|"
            "relu|relu6|"
            "leaky_relu");
  for (const std::string& name : expected) {
    const auto f = FindElementwise(name);
    ASSERT_TRUE(f.has_value()) << name;
    EXPECT_EQ(f->name(), name);
    EXPECT_FALSE(f->formula().empty()) << name;
    EXPECT_EQ(f->takes_alpha(), name == "leaky_relu") << name;
  }
}

TEST(ElementwiseRegistry, UnknownNameListsTheValidOnes) {
  EXPECT_FALSE(FindElementwise("swish").has_value());
  EXPECT_FALSE(FindElementwise("Sigmoid").has_value());  // names are case-sensitive
  try {
    GetElementwise("swish");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'swish'"), std::string::npos) << message;
    EXPECT_NE(message.find("sigmoid|tanh|gelu"), std::string::npos) << message;
  }
}

TEST(ElementwiseRegistry, AlphaBelongsToLeakyReluOnly) {
  EXPECT_EQ(GetElementwise("leaky_relu").alpha(), 0.01);  // PyTorch's default negative slope
  EXPECT_EQ(GetElementwise("leaky_relu", 0.2).alpha(), 0.2);
  EXPECT_EQ(GetElementwise("sigmoid", 0.2).alpha(), 0.0);
  EXPECT_THROW(GetElementwise("leaky_relu", std::nan("")), std::invalid_argument);
  EXPECT_THROW(GetElementwise("leaky_relu", std::numeric_limits<double>::infinity()),
               std::invalid_argument);
}

TEST(ElementwiseValues, KnownPoints) {
  // Reference values from Python's math module in double (e.g. 0.5 * (1 + math.erf(1 /
  // math.sqrt(2)))), or exact by definition. EXPECT_DOUBLE_EQ allows 4 ulps.
  struct Case {
    const char* name;
    double x;
    double expected;
  };
  const Case cases[] = {
      {"sigmoid", 0.0, 0.5},
      {"sigmoid", 1.0, 0.7310585786300049},
      {"sigmoid", -1000.0, 0.0},
      {"sigmoid", 1000.0, 1.0},
      {"tanh", 0.0, 0.0},
      {"tanh", 1.0, 0.7615941559557649},
      {"gelu", 0.0, 0.0},
      {"gelu", 1.0, 0.8413447460685429},
      {"gelu", -1.0, -0.15865525393145707},
      {"gelu_tanh", 1.0, 0.8411919906082768},
      {"silu", 1.0, 0.7310585786300049},
      {"silu", -1.0, -0.2689414213699951},
      {"hardswish", -3.0, 0.0},
      {"hardswish", -4.0, 0.0},
      {"hardswish", 1.0, 4.0 / 6.0},
      {"hardswish", 3.0, 3.0},
      {"hardswish", 5.0, 5.0},
      {"hardsigmoid", -3.0, 0.0},
      {"hardsigmoid", 0.0, 0.5},
      {"hardsigmoid", 3.0, 1.0},
      {"hardsigmoid", 1.5, 0.75},
      {"mish", 1.0, 0.8650983882673103},
      {"mish", -1.0, -0.30340146137410895},
      {"elu", -1.0, -0.6321205588285577},
      {"elu", 2.0, 2.0},
      {"selu", 1.0, 1.0507009873554805},
      {"selu", -1.0, -1.1113307378125625},
      {"softplus", 0.0, 0.6931471805599453},
      {"softplus", 1.0, 1.3132616875182228},
      {"softplus", -30.0, 9.357622968839737e-14},
      {"softplus", 1000.0, 1000.0},  // log(1 + e^1000) without overflow
      {"exp", 0.0, 1.0},
      {"exp", 1.0, 2.718281828459045},
      {"relu", -2.0, 0.0},
      {"relu", 2.5, 2.5},
      {"relu6", 7.0, 6.0},
      {"relu6", -1.0, 0.0},
      {"relu6", 3.25, 3.25},
  };
  for (const Case& c : cases) {
    EXPECT_DOUBLE_EQ(Eval(c.name, c.x), c.expected) << c.name << "(" << c.x << ")";
  }
  EXPECT_EQ(Eval("leaky_relu", -2.0, 0.1), -0.2);
  EXPECT_EQ(Eval("leaky_relu", -2.0), -0.02);
  EXPECT_EQ(Eval("leaky_relu", 3.0, 0.1), 3.0);
}

TEST(ElementwiseFloat32, SeedFunctionsAreTheFloatLibmFormulas) {
  // Compat mode relies on these being exactly seed 000's float32 expressions.
  const Elementwise sigmoid = GetElementwise("sigmoid");
  const Elementwise tanh = GetElementwise("tanh");
  for (int i = -2000; i <= 2000; ++i) {
    const float x = static_cast<float>(i) * 0.0125f;
    const float expected_sigmoid = 1.0f / (1.0f + expf(-x));
    ASSERT_EQ(sigmoid.EvalFloat32(x), expected_sigmoid) << x;
    ASSERT_EQ(tanh.EvalFloat32(x), tanhf(x)) << x;
  }
}

TEST(ElementwiseFloat32, AgreesWithDoubleToFloatPrecision) {
  // The float32 evaluators must compute the same function: within a few float32 ulps of the double
  // value (absolute near 0, where cancellations in e.g. gelu make relative error meaningless).
  for (const std::string& name : ElementwiseNames()) {
    const Elementwise f = GetElementwise(name, 0.25);
    double worst = 0.0;
    for (int i = -1000; i <= 1000; ++i) {
      const float x = static_cast<float>(i) * 0.01f;
      const double exact = f(static_cast<double>(x));
      const double error = std::abs(static_cast<double>(f.EvalFloat32(x)) - exact);
      worst = std::max(worst, error / std::max(1.0, std::abs(exact)));
    }
    EXPECT_LT(worst, 4e-7) << name;
  }
}

}  // namespace
}  // namespace qacc::golden
