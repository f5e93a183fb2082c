// Built-in elementwise (activation) functions, looked up by name, for lookup tables.
//
// Each function has a double evaluator (the exact golden path) and a float32 evaluator built from
// the float libm functions (expf, tanhf, erff, ...), used by LutMode::kSeedCompat to reproduce seed
// 000's PyTorch float32 arithmetic. Formulas follow PyTorch's definitions; docs/lut.md lists them.
#ifndef QACC_GOLDEN_ELEMENTWISE_H_
#define QACC_GOLDEN_ELEMENTWISE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qacc::golden {

// PyTorch's default negative slope of leaky_relu.
inline constexpr double kDefaultLeakyReluAlpha = 0.01;

// SELU constants (Klambauer et al. 2017, as in PyTorch): selu(x) = kSeluScale * (x > 0 ? x :
// kSeluAlpha * (e^x - 1)).
inline constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
inline constexpr double kSeluScale = 1.0507009873554804934193349852946;

// A built-in function bound to its parameter. Only leaky_relu takes one (alpha, the negative
// slope); the others ignore `alpha`, which is then 0.
class Elementwise {
 public:
  using DoubleFn = double (*)(double x, double alpha);
  using FloatFn = float (*)(float x, float alpha);

  Elementwise(std::string_view name, std::string_view formula, DoubleFn f, FloatFn f32,
              bool takes_alpha, double alpha);

  const std::string& name() const { return name_; }
  // The definition in plain text, e.g. "1 / (1 + exp(-x))".
  const std::string& formula() const { return formula_; }
  bool takes_alpha() const { return takes_alpha_; }
  double alpha() const { return alpha_; }

  // f(x) in double: the exact golden path.
  double operator()(double x) const { return f_(x, alpha_); }
  // f(x) evaluated entirely in float32 with the float libm functions (see docs/lut.md, compat
  // mode).
  float EvalFloat32(float x) const { return f32_(x, static_cast<float>(alpha_)); }

 private:
  std::string name_;
  std::string formula_;
  DoubleFn f_;
  FloatFn f32_;
  bool takes_alpha_;
  double alpha_;
};

// Names of the built-in functions, in registry order: sigmoid, tanh, gelu, gelu_tanh, silu,
// hardswish, hardsigmoid, mish, elu, selu, softplus, exp, relu, relu6, leaky_relu.
const std::vector<std::string>& ElementwiseNames();

// "sigmoid|tanh|...", for error messages and --help.
std::string ElementwiseChoices();

// The built-in function `name`; `alpha` is leaky_relu's negative slope (ignored by the others).
// nullopt for an unknown name.
std::optional<Elementwise> FindElementwise(std::string_view name,
                                           double alpha = kDefaultLeakyReluAlpha);

// As FindElementwise, but throws std::invalid_argument listing the valid names for an unknown name,
// and for a non-finite alpha.
Elementwise GetElementwise(std::string_view name, double alpha = kDefaultLeakyReluAlpha);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_ELEMENTWISE_H_
