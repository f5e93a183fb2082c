#include "compiler/reference.h"

#include <algorithm>
#include <cstdint>
#include <random>

#include "compiler/residual.h"
#include "golden/add.h"
#include "golden/elementwise.h"
#include "golden/gemm.h"
#include "golden/progress.h"
#include "golden/requant.h"

namespace qacc::compiler {

namespace {

using golden::Matrix;

template <typename T>
Matrix<T> AsMatrix(const std::vector<uint8_t>& codes, int rows, int cols) {
  Matrix<T> m(rows, cols);
  for (size_t i = 0; i < codes.size(); ++i) m.data[i] = static_cast<T>(codes[i]);
  return m;
}

template <typename TA, typename TB>
Matrix<int32_t> Accumulate(const GemmLayer& l, const std::vector<uint8_t>& a, const LayerData& d) {
  return golden::Gemm(AsMatrix<TA>(a, l.m, l.k), AsMatrix<TB>(d.w, l.k, l.n),
                      l.bias ? d.bias : std::vector<int32_t>{}, l.a_zp, l.b_zp);
}

}  // namespace

std::vector<int32_t> ReferenceOutput(const Network& network, const std::vector<uint8_t>& x,
                                     const std::vector<LayerData>& data) {
  std::vector<uint8_t> a = x;
  std::vector<int32_t> y;
  std::vector<std::vector<int32_t>> kept(network.layers.size());  // outputs a residual adds
  for (size_t i = 0; i < network.layers.size(); ++i) {
    golden::ReportProgress("reference", "layers", i, network.layers.size());  // a sign of life
    const GemmLayer& l = network.layers[i];
    Matrix<int32_t> acc;
    if (l.a_unsigned) {
      acc = l.b_unsigned ? Accumulate<uint8_t, uint8_t>(l, a, data[i])
                         : Accumulate<uint8_t, int8_t>(l, a, data[i]);
    } else {
      acc = l.b_unsigned ? Accumulate<int8_t, uint8_t>(l, a, data[i])
                         : Accumulate<int8_t, int8_t>(l, a, data[i]);
    }
    y = std::move(acc.data);
    if (l.out_int32) break;
    golden::RequantParams p = LayerRequant(l);
    for (int m = 0; m < l.m; ++m) {
      for (int n = 0; n < l.n; ++n) {
        p.multiplier = l.per_channel ? data[i].channel_mult[size_t(n)] : l.mult;
        p.shift = l.per_channel ? data[i].channel_shift[size_t(n)] : l.shift;
        int32_t& v = y[size_t(m) * size_t(l.n) + size_t(n)];
        v = golden::RequantizeAccumulator(v, p);
      }
    }
    // The activation: golden's table of the layer's function, looked up by the requant code.
    if (UsesSlopeStage(l)) {  // golden's LeakyReLU on the code (requant.md 6.2)
      if (l.activation.form == "int8_slope") {  // seed 002's form
        const golden::Int8SlopeParams slope = LayerInt8Slope(l);
        for (int32_t& v : y) v = golden::Int8SlopeLeakyRelu(v, slope);
      } else {
        const golden::LeakyReluParams leaky = LayerLeakyRelu(l);
        for (int32_t& v : y) v = golden::LeakyRelu(v, leaky);
      }
    } else if (l.has_activation()) {
      const golden::Lut table = ActivationTable(l);
      for (int32_t& v : y) v = table.Lookup(v);
      if (l.out_bytes() == 2) break;  // int16 codes: the last layer's output as they are
    }
    // The stored byte, read back as the next layer's operand code or as the output.
    auto store = [&](bool is_unsigned) {
      a.resize(y.size());
      for (size_t j = 0; j < y.size(); ++j) {
        a[j] = uint8_t(uint32_t(y[j]));
        y[j] = is_unsigned ? int32_t(a[j]) : int32_t(int8_t(a[j]));
      }
    };
    store(l.code_unsigned());
    // The residual: golden's Add of the two layers' codes, clamped to the sum's codes (what the
    // ELTWISE's clamp holds), then its table.
    if (l.has_residual()) {
      const golden::AddParams params = ResidualAddParams(network, i);
      const std::vector<int32_t>& from = kept[size_t(ResidualFrom(network, i))];
      const int32_t lo = int32_t(params.y.qmin()), hi = int32_t(params.y.qmax());
      for (size_t j = 0; j < y.size(); ++j) {
        y[j] = std::clamp(golden::Add(y[j], from[j], params), lo, hi);
      }
      if (l.residual.has_activation()) {
        const golden::Lut table = ResidualActivationTable(l);
        for (int32_t& v : y) v = table.Lookup(v);
      }
      store(l.out_unsigned());
    }
    if (IsResidualSource(network, i)) kept[i] = y;
  }
  return y;
}

RandomValues MakeRandomValues(const Network& network, uint64_t seed) {
  std::mt19937_64 rng(seed);
  RandomValues v;
  const GemmLayer& first = network.layers.front();
  v.x.resize(size_t(first.m) * size_t(first.k));
  for (auto& b : v.x) b = uint8_t(rng());
  for (const GemmLayer& l : network.layers) {
    LayerData d;
    d.w.resize(size_t(l.k) * size_t(l.n));
    for (auto& b : d.w) b = uint8_t(rng());
    if (l.bias) {
      for (int n = 0; n < l.n; ++n) d.bias.push_back(int32_t(rng() % 20001) - 10000);
    }
    if (l.per_channel && l.requant == golden::RequantForm::kTflite) {
      for (int n = 0; n < l.n; ++n) {
        d.channel_mult.push_back(int32_t((uint32_t{1} << 30) + uint32_t(rng() % (1u << 30))));
        d.channel_shift.push_back(-int(6 + rng() % 9));
      }
    } else if (l.per_channel) {  // scales 2^-7 .. 2^-15 with a multiplier of the full width
      const uint32_t half = uint32_t{1} << (l.mult_bits - 2);
      for (int n = 0; n < l.n; ++n) {
        d.channel_mult.push_back(int32_t(half + uint32_t(rng() % half)));
        d.channel_shift.push_back(l.mult_bits - 1 + int(6 + rng() % 9));
      }
    }
    v.layers.push_back(std::move(d));
  }
  return v;
}

GemmLayer RandomLayer(std::mt19937& rng, const std::string& name, int m, int n, int k, bool last) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  GemmLayer l;
  l.name = name;
  l.m = m;
  l.n = n;
  l.k = k;
  l.a_unsigned = pick(0, 1);
  l.b_unsigned = pick(0, 1);
  l.a_zp = pick(-20, 20);
  l.b_zp = pick(-20, 20);
  l.bias = pick(0, 1);
  l.per_channel = pick(0, 1);
  l.single_rounding = pick(0, 1);
  l.out_int32 = last && pick(0, 3) == 0;
  l.mult = pick(1 << 30, INT32_MAX);
  l.shift = pick(-14, -6);
  if (pick(0, 3) == 0) {  // TPU-MLIR's form on a quarter of the layers, the same scales
    l.requant = golden::RequantForm::kTpuMlir;
    l.single_rounding = false;
    l.mult_bits = 8 << pick(0, 2);
    l.rshift_rounding = golden::tpu_mlir::kAllRoundings[size_t(pick(0, 6))];
    l.mult = pick(1 << (l.mult_bits - 2), int((int64_t{1} << (l.mult_bits - 1)) - 1));
    l.shift = l.mult_bits - 1 - l.shift;
  }
  l.zp_out = pick(-5, 5);
  if (pick(0, 1)) {
    l.clamp_min = 0;  // ReLU, uint8 codes
    l.clamp_max = 255;
  }
  // A fused activation on a third of the int8 layers (lut.md 10.4).
  if (!l.out_int32 && pick(0, 2) == 0) {
    const std::vector<std::string>& names = golden::ElementwiseNames();
    l.activation.function = names[size_t(pick(0, int(names.size()) - 1))];
    l.activation.in_scale = 6.0 / pick(16, 127);
    l.activation.out_unsigned = pick(0, 1);
    if (last && pick(0, 1)) l.activation.out_bits = 16;      // int16 codes (lut.md 10.6)
    if (l.clamp_min >= 0) l.zp_out = std::max(l.zp_out, 0);  // a uint8 input's zero point
    if (pick(0, 1)) {
      l.activation.out_scale = 4.0 / pick(16, 127);
      l.activation.out_zp = l.activation.out_unsigned ? pick(0, 64) : pick(-16, 16);
    }
  }
  return l;
}

void RandomResidual(const std::function<int(int, int)>& pick, GemmLayer& from, GemmLayer& layer) {
  for (GemmLayer* l : {&from, &layer}) {
    if (!l->has_activation() && l->clamp_min >= 0) l->zp_out = std::max(l->zp_out, 0);
  }
  Residual& r = layer.residual;
  r = Residual{};
  r.from = from.name;
  r.form = from.out_zero_point() == 0 && pick(0, 1) ? golden::AddForm::kSeedSymmetric
                                                    : golden::AddForm::kTfliteAsymmetric;
  const bool seed = r.form == golden::AddForm::kSeedSymmetric;
  if (seed) {  // every zero point 0 (golden::MakeAddParams)
    (layer.has_activation() ? layer.activation.out_zp : layer.zp_out) = 0;
    r.rounding = golden::kAllRoundingModes[size_t(pick(0, 4))];
    r.overflow =
        pick(0, 1) ? golden::IntermediateOverflow::kWrap : golden::IntermediateOverflow::kSaturate;
  }
  r.scale = pick(1, 8) / 64.0;
  r.from_scale = pick(1, 8) / 64.0;
  // About the sum's range: some sums saturate, few round to one code.
  r.out_scale = (r.scale + r.from_scale) * pick(70, 200) / 100.0;
  r.out_unsigned = pick(0, 3) == 0;
  if (!seed) r.out_zp = r.out_unsigned ? pick(0, 64) : pick(-16, 16);
  if (pick(0, 2) == 0) {
    const std::vector<std::string>& names = golden::ElementwiseNames();
    r.activation.function = names[size_t(pick(0, int(names.size()) - 1))];
    r.activation.out_unsigned = pick(0, 1);
    if (pick(0, 1)) {
      r.activation.out_scale = 4.0 / pick(16, 127);
      r.activation.out_zp = r.activation.out_unsigned ? pick(0, 64) : pick(-16, 16);
    }
  }
}

}  // namespace qacc::compiler
