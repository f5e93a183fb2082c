// `--compat seed` lookup tables (LutMode::kSeedCompat) against an independent float32 emulation of
// the original Python, over every format the original accepts.
//
// The emulation below is written from seed 000's code, not from golden/: its project's
// _SymmetryQuantTable.__init__ (the article prints the single-width _SymmetryQuant, the special
// case input_bit = output_bit, both signed) on top of utils.QuantConfig:
//
//   QuantConfig(bit, narrow, unsign, amax=None, scale=None):
//     assert unsign is False when bit > 8;  assert any((amax, scale))
//     quant_min = 0 if unsign else (-(1 << (bit-1)) + 1 if narrow else -(1 << (bit-1)))
//     quant_max = (1 << bit) - 1 if unsign else (1 << (bit-1)) - 1
//     scale     = scale if scale else amax / quant_max
//     range     = torch.arange(quant_min, quant_max + 1, dtype)      int8 / uint8 for bit <= 8
//     quantize(x)   = torch.clamp(x / scale, quant_min, quant_max).to(dtype)
//     dequantize(x) = x * scale
//   _SymmetryQuantTable(func, input_bit, input_amax, input_unsign, output_bit, output_amax=None,
//                       output_unsign=False, narrow=False):
//     assert input_bit <= 8
//     input_qconfig = QuantConfig(input_bit, narrow, input_unsign, amax=input_amax)
//     input_float   = input_qconfig.dequantize(input_qconfig.range)
//     output_float  = func(input_float)
//     output_amax   = output_amax if output_amax else torch.absolute(output_float).max()
//     output_qconfig = QuantConfig(output_bit, narrow, output_unsign, amax=output_amax)
//     output_quant  = output_qconfig.quantize(output_float)
//     table = output_quant if input_unsign else
//             cat(output_quant[index:], output_quant[:index]), index = qmax if narrow else qmax + 1
//     forward(x) = table[x]                                            (Python negative indexing)
//
// PyTorch's float32 rules give each step: an int tensor times a Python float is float32(q) *
// float32(scale); a float32 tensor divided by a Python float divides by float32(scale); a derived
// amax is a float32 tensor, so its scale is float32(amax) / float32(quant_max) in float32; clamp
// bounds are float32; .to(int) truncates toward zero. The emulation uses nothing of golden/; the
// tests call only the API under test (golden/lut.h: SeedCompatSpec, BuildLut, GetElementwise for
// f).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/lut.h"
#include "tests/unit/seed_emulation.h"

namespace qacc::golden {
namespace {

using testing::PyQuantConfig;

// ---- The emulation ------------------------------------------------------------------------------

enum class PyFunc { kSigmoid, kTanh };

// torch.sigmoid / torch.tanh on a float32 tensor, with the float libm functions (the float
// overloads of std::exp and std::tanh are expf and tanhf).
float PyEval(PyFunc func, float x) {
  return func == PyFunc::kSigmoid ? 1.0f / (1.0f + std::exp(-x)) : std::tanh(x);
}

struct PyTable {
  float in_scale = 0.0f;
  float out_scale = 0.0f;
  std::vector<int64_t> table;  // the rotated Python table, indexed as forward() indexes it
  int64_t Forward(int64_t q) const {
    const auto size = static_cast<int64_t>(table.size());
    return table[static_cast<size_t>(q < 0 ? q + size : q)];  // Python's table[-k]
  }
};

// _SymmetryQuantTable.__init__; nullopt where the original raises (an assert, or amax 0).
std::optional<PyTable> PySymmetryQuantTable(PyFunc func, int input_bit, double input_amax,
                                            bool input_unsign, int output_bit,
                                            std::optional<double> output_amax, bool output_unsign,
                                            bool narrow) {
  if (input_bit > 8) return std::nullopt;
  if (output_bit > 8 && output_unsign) return std::nullopt;  // QuantConfig's assert
  const PyQuantConfig in{input_bit, narrow, input_unsign};
  const PyQuantConfig out{output_bit, narrow, output_unsign};
  PyTable t;
  t.in_scale = static_cast<float>(input_amax / static_cast<double>(in.quant_max()));
  std::vector<float> output_float;
  for (int64_t q = in.quant_min(); q <= in.quant_max(); ++q) {
    output_float.push_back(PyEval(func, static_cast<float>(q) * t.in_scale));
  }
  if (output_amax) {
    t.out_scale = static_cast<float>(*output_amax / static_cast<double>(out.quant_max()));
  } else {
    float amax = 0.0f;
    for (float v : output_float) amax = std::max(amax, std::fabs(v));
    if (amax == 0.0f) return std::nullopt;  // assert any((amax, scale))
    t.out_scale = amax / static_cast<float>(out.quant_max());
  }
  std::vector<int64_t> output_quant;
  for (float v : output_float) {
    const float clamped = std::min(std::max(v / t.out_scale, static_cast<float>(out.quant_min())),
                                   static_cast<float>(out.quant_max()));
    output_quant.push_back(static_cast<int64_t>(std::trunc(clamped)));
  }
  if (input_unsign) {
    t.table = output_quant;
  } else {
    const auto index = static_cast<size_t>(narrow ? in.quant_max() : in.quant_max() + 1);
    t.table.assign(output_quant.begin() + static_cast<std::ptrdiff_t>(index), output_quant.end());
    t.table.insert(t.table.end(), output_quant.begin(),
                   output_quant.begin() + static_cast<std::ptrdiff_t>(index));
  }
  return t;
}

// ---- The grid -----------------------------------------------------------------------------------

// Every format the original accepts within qacc's widths (input 2..8, output 2..16): input signed
// or unsigned, output signed (2..16 bits) or unsigned (2..8 bits), narrow or not.
constexpr int kFormats = 7 * 2 * (15 + 7) * 2;  // 616
const double kInAmax[] = {0.05, 0.3, 1.0, 2.5, 4.0, 8.0, 12.0};
const std::optional<double> kOutAmax[] = {std::nullopt, 0.25, 0.5,
                                          0.9,          1.0,  2.0};  // nullopt: derived
const PyFunc kFuncs[] = {PyFunc::kSigmoid, PyFunc::kTanh};
constexpr int kConfigurations = kFormats * 7 * 6 * 2;  // 51744

std::string Describe(PyFunc func, int in_bits, bool in_unsigned, double in_amax, int out_bits,
                     bool out_unsigned, std::optional<double> out_amax, bool narrow) {
  return std::string(func == PyFunc::kSigmoid ? "sigmoid" : "tanh") + " in " +
         (in_unsigned ? "u" : "s") + std::to_string(in_bits) + " amax " + std::to_string(in_amax) +
         " out " + (out_unsigned ? "u" : "s") + std::to_string(out_bits) + " amax " +
         (out_amax ? std::to_string(*out_amax) : "derived") + (narrow ? " narrow" : "");
}

TEST(SeedCompatLut, EveryAcceptedFormatMatchesTheFloat32Emulation) {
  int configurations = 0;
  int formats = 0;
  int64_t entries = 0;
  int failures = 0;
  for (int in_bits = 2; in_bits <= 8; ++in_bits) {
    for (bool in_unsigned : {false, true}) {
      for (int out_bits = 2; out_bits <= 16; ++out_bits) {
        for (bool out_unsigned : {false, true}) {
          if (out_unsigned && out_bits > 8) continue;  // rejected: see the next test
          for (bool narrow : {false, true}) {
            ++formats;
            for (PyFunc func : kFuncs) {
              const Elementwise f = GetElementwise(func == PyFunc::kSigmoid ? "sigmoid" : "tanh");
              for (double in_amax : kInAmax) {
                for (std::optional<double> out_amax : kOutAmax) {
                  const std::string where = Describe(func, in_bits, in_unsigned, in_amax, out_bits,
                                                     out_unsigned, out_amax, narrow);
                  const std::optional<PyTable> want =
                      PySymmetryQuantTable(func, in_bits, in_amax, in_unsigned, out_bits, out_amax,
                                           out_unsigned, narrow);
                  ASSERT_TRUE(want.has_value()) << where;
                  SeedLutParams params;
                  params.in_bits = in_bits;
                  params.in_amax = in_amax;
                  params.in_unsigned = in_unsigned;
                  params.out_bits = out_bits;
                  params.out_amax = out_amax;
                  params.out_unsigned = out_unsigned;
                  params.narrow = narrow;
                  const Lut lut = BuildLut(f, SeedCompatSpec(params));
                  ++configurations;
                  ASSERT_EQ(static_cast<float>(lut.in().scale), want->in_scale) << where;
                  ASSERT_EQ(static_cast<float>(lut.out().scale), want->out_scale) << where;
                  ASSERT_EQ(lut.out().bits, out_bits) << where;
                  ASSERT_EQ(lut.out().is_signed, !out_unsigned) << where;
                  ASSERT_EQ(lut.entries_by_value().size(), want->table.size()) << where;
                  // Every code of the original's input range, read through the hardware address.
                  const PyQuantConfig in{in_bits, narrow, in_unsigned};
                  for (int64_t q = in.quant_min(); q <= in.quant_max(); ++q, ++entries) {
                    if (lut.Lookup(q) != want->Forward(q) && ++failures <= 10) {
                      ADD_FAILURE() << where << " q " << q << ": " << lut.Lookup(q)
                                    << ", the original " << want->Forward(q);
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(formats, kFormats);
  EXPECT_EQ(configurations, kConfigurations);
  std::printf(
      "lut --compat seed: %d formats x %zu input amax x %zu output amax x %zu functions = "
      "%d configurations, %lld entries, all equal to the float32 emulation\n",
      formats, std::size(kInAmax), std::size(kOutAmax), std::size(kFuncs), configurations,
      static_cast<long long>(entries));
}

TEST(SeedCompatLut, RejectsWhatTheOriginalRejects) {
  // QuantConfig asserts a signed spec above 8 bits: an unsigned output has 2..8 bits.
  for (int out_bits = 9; out_bits <= 16; ++out_bits) {
    ASSERT_FALSE(
        PySymmetryQuantTable(PyFunc::kSigmoid, 8, 8.0, false, out_bits, std::nullopt, true, false)
            .has_value());
    SeedLutParams params;
    params.out_bits = out_bits;
    params.out_unsigned = true;
    try {
      SeedCompatSpec(params);
      ADD_FAILURE() << "unsigned " << out_bits << "-bit output accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("out.bits: " + std::to_string(out_bits) +
                                                " is out of range, allowed 2..8 for an unsigned",
                                            0),
                0u)
          << e.what();
    }
    // The LutSpec route (BuildLut in compat mode) rejects it too.
    LutSpec spec = SeedCompatSpec(SeedLutParams{});
    spec.out.is_signed = false;
    spec.out.bits = out_bits;
    EXPECT_THROW(BuildLut(GetElementwise("sigmoid"), spec), std::invalid_argument);
  }
  SeedLutParams params;
  params.in_bits = 9;
  EXPECT_THROW(SeedCompatSpec(params), std::invalid_argument);
  params = SeedLutParams{};
  params.out_bits = 17;
  EXPECT_THROW(SeedCompatSpec(params), std::invalid_argument);
  params = SeedLutParams{};
  params.out_amax = 0.0;
  EXPECT_THROW(SeedCompatSpec(params), std::invalid_argument);
  params = SeedLutParams{};
  params.in_amax = 1e-60;  // 0 in float32
  EXPECT_THROW(SeedCompatSpec(params), std::invalid_argument);
}

TEST(SeedCompatLut, NarrowHasNoEffectOnAnUnsignedSpec) {
  // QuantConfig: quant_min = 0 for an unsigned spec whatever narrow says. Compat mode accepts
  // narrow there (quant.h would reject it) and builds the same table; the signed spec is narrowed.
  const Elementwise tanh = GetElementwise("tanh");
  for (bool in_unsigned : {false, true}) {
    for (bool out_unsigned : {false, true}) {
      SeedLutParams params;
      params.in_bits = 5;
      params.in_amax = 3.0;
      params.in_unsigned = in_unsigned;
      params.out_bits = 7;
      params.out_unsigned = out_unsigned;
      const Lut wide = BuildLut(tanh, SeedCompatSpec(params));
      params.narrow = true;
      const Lut narrow = BuildLut(tanh, SeedCompatSpec(params));
      EXPECT_EQ(narrow.in().narrow, !in_unsigned);
      EXPECT_EQ(narrow.out().narrow, !out_unsigned);
      EXPECT_EQ(narrow.in().qmin(), in_unsigned ? 0 : -15);
      EXPECT_EQ(narrow.out().qmin(), out_unsigned ? 0 : -63);
      if (in_unsigned && out_unsigned) {
        EXPECT_EQ(narrow.entries_by_address(), wide.entries_by_address());
      }
    }
  }
  // A LutSpec built by hand with narrow on an unsigned spec is accepted in compat mode only.
  LutSpec spec = SeedCompatSpec(SeedLutParams{});
  spec.in.is_signed = false;
  spec.in.narrow = true;
  spec.in.scale = 8.0 / 255;
  spec.out.is_signed = false;
  spec.out.narrow = true;
  const Lut lut = BuildLut(GetElementwise("sigmoid"), spec);
  EXPECT_FALSE(lut.in().narrow);
  EXPECT_EQ(lut.in().qmin(), 0);
  EXPECT_EQ(lut.entries_by_value().size(), 256u);
  spec.mode = LutMode::kExact;
  EXPECT_THROW(BuildLut(GetElementwise("sigmoid"), spec), std::invalid_argument);
}

TEST(SeedCompatLut, TheArticleSingleWidthFormIsTheSignedSameWidthCase) {
  // _SymmetryQuant(func, input_amax, bit, narrow, output_amax), as the article prints it.
  const Elementwise sigmoid = GetElementwise("sigmoid");
  for (int bits = 2; bits <= 8; ++bits) {
    for (bool narrow : {false, true}) {
      for (std::optional<double> out_amax : {std::optional<double>(), std::optional<double>(0.7)}) {
        SeedLutParams params;
        params.in_bits = bits;
        params.in_amax = 6.0;
        params.out_bits = bits;
        params.out_amax = out_amax;
        params.narrow = narrow;
        EXPECT_EQ(
            BuildLut(sigmoid, SeedCompatSpec(6.0, bits, narrow, out_amax)).entries_by_address(),
            BuildLut(sigmoid, SeedCompatSpec(params)).entries_by_address())
            << bits;
      }
    }
  }
}

TEST(SeedCompatLut, HandDerivedUnsignedAndWidened) {
  // Unsigned 4-bit input, amax 4: x = q * float32(4 / 15); sigmoid into an unsigned 8-bit output
  // with a derived amax sigmoid(4) = 0.98201376 (float32): scale = 0.98201376f / 255 =
  // 0.003851034f. q = 0: trunc(0.5 / 0.003851034) = trunc(129.836) = 129 (exact mode would round to
  // 130).
  SeedLutParams params;
  params.in_bits = 4;
  params.in_amax = 4.0;
  params.in_unsigned = true;
  params.out_bits = 8;
  params.out_unsigned = true;
  const Lut lut = BuildLut(GetElementwise("sigmoid"), SeedCompatSpec(params));
  EXPECT_EQ(lut.Lookup(0), 129);
  EXPECT_EQ(lut.Lookup(15), 255);  // the derived amax itself
  // Signed 4-bit input, 12-bit signed output, given amax 1: tanh(7 * float32(2 / 7)) = tanh(2)
  // = 0.9640276; / float32(1 / 2047) = 1973.36 -> 1973.
  params = SeedLutParams{};
  params.in_bits = 4;
  params.in_amax = 2.0;
  params.out_bits = 12;
  params.out_amax = 1.0;
  const Lut wide = BuildLut(GetElementwise("tanh"), SeedCompatSpec(params));
  EXPECT_EQ(wide.Lookup(7), 1973);
  EXPECT_EQ(wide.Lookup(-7), -1973);
  EXPECT_EQ(wide.entry_bits(), 12);
}

}  // namespace
}  // namespace qacc::golden
