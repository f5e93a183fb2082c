#include "golden/elementwise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace qacc::golden {

namespace {

// Each function is written once as a template over double and float: instantiated with float, every
// operation (including the std:: overloads, which resolve to expf, tanhf, erff, ...) stays in
// float32. `alpha` is the negative slope of leaky_relu and unused elsewhere.

template <typename T>
T Relu6(T x) {
  return std::min(std::max(x, T{0}), T{6});
}

template <typename T>
T Softplus(T x) {
  // log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow for large x, no cancellation for very
  // negative x.
  return std::max(x, T{0}) + std::log1p(std::exp(-std::abs(x)));
}

template <typename T>
T Sigmoid(T x, T /*alpha*/) {
  return T{1} / (T{1} + std::exp(-x));  // seed 000's float32 form: 1 / (1 + expf(-x))
}

template <typename T>
T Tanh(T x, T /*alpha*/) {
  return std::tanh(x);
}

template <typename T>
T Gelu(T x, T /*alpha*/) {
  const T sqrt_half = T(0.70710678118654752440);  // 1 / sqrt(2), as PyTorch's M_SQRT1_2
  return T(0.5) * x * (T{1} + std::erf(x * sqrt_half));
}

template <typename T>
T GeluTanh(T x, T /*alpha*/) {
  const T sqrt_2_over_pi = T(0.79788456080286535588);  // sqrt(2 / pi)
  const T inner = sqrt_2_over_pi * (x + T(0.044715) * x * x * x);
  return T(0.5) * x * (T{1} + std::tanh(inner));
}

template <typename T>
T Silu(T x, T /*alpha*/) {
  return x / (T{1} + std::exp(-x));
}

template <typename T>
T Hardswish(T x, T /*alpha*/) {
  return x * Relu6(x + T{3}) / T{6};
}

template <typename T>
T Hardsigmoid(T x, T /*alpha*/) {
  return Relu6(x + T{3}) / T{6};
}

template <typename T>
T Mish(T x, T /*alpha*/) {
  return x * std::tanh(Softplus(x));
}

template <typename T>
T Elu(T x, T /*alpha*/) {
  return x > T{0} ? x : std::expm1(x);
}

template <typename T>
T Selu(T x, T /*alpha*/) {
  return T(kSeluScale) * (x > T{0} ? x : T(kSeluAlpha) * std::expm1(x));
}

template <typename T>
T SoftplusFn(T x, T /*alpha*/) {
  return Softplus(x);
}

template <typename T>
T Exp(T x, T /*alpha*/) {
  return std::exp(x);
}

template <typename T>
T Relu(T x, T /*alpha*/) {
  return x > T{0} ? x : T{0};
}

template <typename T>
T Relu6Fn(T x, T /*alpha*/) {
  return Relu6(x);
}

template <typename T>
T LeakyRelu(T x, T alpha) {
  return x >= T{0} ? x : alpha * x;
}

struct Entry {
  const char* name;
  const char* formula;
  Elementwise::DoubleFn f;
  Elementwise::FloatFn f32;
  bool takes_alpha;
};

const Entry kEntries[] = {
    {"sigmoid", "1 / (1 + exp(-x))", &Sigmoid<double>, &Sigmoid<float>, false},
    {"tanh", "tanh(x)", &Tanh<double>, &Tanh<float>, false},
    {"gelu", "0.5 * x * (1 + erf(x / sqrt(2)))", &Gelu<double>, &Gelu<float>, false},
    {"gelu_tanh", "0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))", &GeluTanh<double>,
     &GeluTanh<float>, false},
    {"silu", "x / (1 + exp(-x))", &Silu<double>, &Silu<float>, false},
    {"hardswish", "x * relu6(x + 3) / 6", &Hardswish<double>, &Hardswish<float>, false},
    {"hardsigmoid", "relu6(x + 3) / 6", &Hardsigmoid<double>, &Hardsigmoid<float>, false},
    {"mish", "x * tanh(softplus(x))", &Mish<double>, &Mish<float>, false},
    {"elu", "x > 0 ? x : exp(x) - 1", &Elu<double>, &Elu<float>, false},
    {"selu", "1.0507009873554805 * (x > 0 ? x : 1.6732632423543772 * (exp(x) - 1))", &Selu<double>,
     &Selu<float>, false},
    {"softplus", "log(1 + exp(x))", &SoftplusFn<double>, &SoftplusFn<float>, false},
    {"exp", "exp(x)", &Exp<double>, &Exp<float>, false},
    {"relu", "max(x, 0)", &Relu<double>, &Relu<float>, false},
    {"relu6", "min(max(x, 0), 6)", &Relu6Fn<double>, &Relu6Fn<float>, false},
    {"leaky_relu", "x >= 0 ? x : alpha * x", &LeakyRelu<double>, &LeakyRelu<float>, true},
};

}  // namespace

Elementwise::Elementwise(std::string_view name, std::string_view formula, DoubleFn f, FloatFn f32,
                         bool takes_alpha, double alpha)
    : name_(name),
      formula_(formula),
      f_(f),
      f32_(f32),
      takes_alpha_(takes_alpha),
      alpha_(takes_alpha ? alpha : 0.0) {}

const std::vector<std::string>& ElementwiseNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Entry& entry : kEntries) out.emplace_back(entry.name);
    return out;
  }();
  return names;
}

std::string ElementwiseChoices() {
  std::string out;
  for (const std::string& name : ElementwiseNames()) {
    if (!out.empty()) out += '|';
    out += name;
  }
  return out;
}

std::optional<Elementwise> FindElementwise(std::string_view name, double alpha) {
  for (const Entry& entry : kEntries) {
    if (name == entry.name) {
      return Elementwise(entry.name, entry.formula, entry.f, entry.f32, entry.takes_alpha, alpha);
    }
  }
  return std::nullopt;
}

Elementwise GetElementwise(std::string_view name, double alpha) {
  std::optional<Elementwise> found = FindElementwise(name, alpha);
  if (!found) {
    throw std::invalid_argument(
        fmt::format("function: '{}' is unknown, valid: {}", name, ElementwiseChoices()));
  }
  if (found->takes_alpha() && !std::isfinite(alpha)) {
    throw std::invalid_argument(fmt::format("alpha: {} is not allowed, must be finite", alpha));
  }
  return *found;
}

}  // namespace qacc::golden
