#include "compiler/network.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "compiler/residual.h"
#include "golden/gemm.h"
#include "golden/requant.h"
#include "model/arch.h"

namespace qacc::compiler {

namespace {

constexpr int kMaxDim = int(arch::kMaxDim);  // K: one command's CMD_K field

[[noreturn]] void Fail(const GemmLayer& l, const std::string& what) {
  throw std::invalid_argument(fmt::format("layer '{}': {}", l.name, what));
}

void CheckRange(const GemmLayer& l, const char* field, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    Fail(l, fmt::format("{} = {} is outside {}..{}", field, value, lo, hi));
  }
}

// "activation": {"function": "gelu", "in_scale": 0.05, "out_scale": 0.02, "out_zp": 0,
// "out_unsigned": false, "alpha": 0.01}; out_scale absent: derived.
Activation ParseActivation(const nlohmann::json& j, const std::string& at,
                           const std::function<std::invalid_argument(const std::string&)>& fail) {
  if (!j.is_object()) throw fail(at + " must be an object");
  Activation a;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::json& value = it.value();
    const std::string where = at + "." + key;
    auto number = [&]() {
      if (!value.is_number()) throw fail(where + " must be a number");
      return value.get<double>();
    };
    if (key == "function") {
      if (!value.is_string()) throw fail(where + " must be a string");
      a.function = value.get<std::string>();
    } else if (key == "alpha") {
      a.alpha = number();
    } else if (key == "in_scale") {
      a.in_scale = number();
    } else if (key == "out_scale") {
      a.out_scale = number();
    } else if (key == "out_zp") {
      if (!value.is_number_integer()) throw fail(where + " must be an integer");
      const int64_t v = value.get<int64_t>();
      if (v < -32768 || v > 65535) {
        throw fail(fmt::format("{} = {} is outside -32768..65535", where, v));
      }
      a.out_zp = int32_t(v);
    } else if (key == "out_unsigned") {
      if (!value.is_boolean()) throw fail(where + " must be true or false");
      a.out_unsigned = value.get<bool>();
    } else if (key == "unit") {
      if (!value.is_string() || (value != "auto" && value != "lut" && value != "slope")) {
        throw fail(where + " must be \"auto\", \"lut\" or \"slope\"");
      }
      a.unit = value.get<std::string>();
    } else if (key == "form") {
      if (!value.is_string() || (value != "q31" && value != "int8_slope")) {
        throw fail(where + " must be \"q31\" or \"int8_slope\"");
      }
      a.form = value.get<std::string>();
    } else if (key == "out_bits") {
      if (!value.is_number_integer()) throw fail(where + " must be an integer");
      const int64_t v = value.get<int64_t>();
      if (v != 8 && v != 16) throw fail(fmt::format("{} = {} is not 8 or 16", where, v));
      a.out_bits = int(v);
    } else {
      throw fail(
          fmt::format("unknown key '{}' (expected function, in_scale, out_scale, out_zp, "
                      "out_unsigned, out_bits, unit, form, alpha)",
                      where));
    }
  }
  if (a.function.empty()) throw fail(at + ".function is missing");
  return a;
}

// "residual": {"from": "fc1", "scale": 0.05, "from_scale": 0.04, "out_scale": 0.08, "out_zp": 0,
// "out_unsigned": false, "form": "tflite", "rounding": "half_up", "overflow": "saturate",
// "activation": {...}}; rounding and overflow with form seed-symmetric only.
Residual ParseResidual(const nlohmann::json& j, const std::string& at,
                       const std::function<std::invalid_argument(const std::string&)>& fail) {
  if (!j.is_object()) throw fail(at + " must be an object");
  Residual r;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::json& value = it.value();
    const std::string where = at + "." + key;
    auto number = [&]() {
      if (!value.is_number()) throw fail(where + " must be a number");
      return value.get<double>();
    };
    auto name = [&]() {
      if (!value.is_string()) throw fail(where + " must be a string");
      return value.get<std::string>();
    };
    if (key == "from") {
      r.from = name();
      if (r.from.empty()) throw fail(where + " must name an earlier layer");
    } else if (key == "scale") {
      r.scale = number();
    } else if (key == "from_scale") {
      r.from_scale = number();
    } else if (key == "out_scale") {
      r.out_scale = number();
    } else if (key == "out_zp") {
      if (!value.is_number_integer()) throw fail(where + " must be an integer");
      const int64_t v = value.get<int64_t>();
      if (v < -128 || v > 255) throw fail(fmt::format("{} = {} is outside -128..255", where, v));
      r.out_zp = int32_t(v);
    } else if (key == "out_unsigned") {
      if (!value.is_boolean()) throw fail(where + " must be true or false");
      r.out_unsigned = value.get<bool>();
    } else if (key == "form") {
      const std::optional<golden::AddForm> form = golden::ParseAddForm(name());
      if (!form) {
        throw fail(fmt::format("{} = '{}' is not one of {}", where, value.get<std::string>(),
                               golden::AddFormChoices()));
      }
      r.form = *form;
    } else if (key == "rounding") {
      const std::optional<golden::RoundingMode> mode = golden::ParseRoundingMode(name());
      if (!mode) {
        throw fail(fmt::format("{} = '{}' is not one of {}", where, value.get<std::string>(),
                               golden::RoundingModeChoices()));
      }
      r.rounding = *mode;
    } else if (key == "overflow") {
      const std::string v = name();
      if (v == golden::IntermediateOverflowName(golden::IntermediateOverflow::kSaturate)) {
        r.overflow = golden::IntermediateOverflow::kSaturate;
      } else if (v == golden::IntermediateOverflowName(golden::IntermediateOverflow::kWrap)) {
        r.overflow = golden::IntermediateOverflow::kWrap;
      } else {
        throw fail(fmt::format("{} = '{}' is not one of saturate|wrap", where, v));
      }
    } else if (key == "activation") {
      if (value.is_object() && value.contains("in_scale")) {
        throw fail(where +
                   ".in_scale is not used: the table's input is the sum, of scale "
                   "residual.out_scale");
      }
      r.activation = ParseActivation(value, where, fail);
    } else {
      throw fail(
          fmt::format("unknown key '{}' (expected from, scale, from_scale, out_scale, out_zp, "
                      "out_unsigned, form, rounding, overflow, activation)",
                      where));
    }
  }
  for (const char* key : {"from", "scale", "from_scale", "out_scale"}) {
    if (!j.contains(key)) throw fail(fmt::format("{}.{} is missing", at, key));
  }
  // The seed form's own fields: refused with the other, which has no such choice.
  if (r.form != golden::AddForm::kSeedSymmetric) {
    for (const char* key : {"rounding", "overflow"}) {
      if (j.contains(key)) {
        throw fail(fmt::format("{}.{} is for form {} only", at, key,
                               golden::AddFormName(golden::AddForm::kSeedSymmetric)));
      }
    }
  }
  return r;
}

}  // namespace

golden::Lut ActivationTable(const GemmLayer& l, const Activation& a, const std::string& field,
                            const golden::QuantSpec& in) {
  const std::optional<golden::Elementwise> f = golden::FindElementwise(a.function, a.alpha);
  if (!f) {
    Fail(l, fmt::format("{}.function = '{}' is not one of {}", field, a.function,
                        golden::ElementwiseChoices()));
  }
  if (!(in.scale > 0) || !std::isfinite(in.scale)) {
    Fail(l, fmt::format("{}.in_scale = {} must be positive and finite", field, in.scale));
  }
  if (!(a.out_scale >= 0) || !std::isfinite(a.out_scale)) {
    Fail(l, fmt::format("{}.out_scale = {} must be 0 (derived) or positive", field, a.out_scale));
  }
  golden::LutSpec spec;
  spec.in = in;
  spec.in.bits = arch::kLutMaxInBits;  // the 8-bit code, all of its bits address the table
  if (a.out_bits != 8 && a.out_bits != 16) {
    Fail(l, fmt::format("{}.out_bits = {} is not 8 or 16", field, a.out_bits));
  }
  spec.out.bits = a.out_bits;
  spec.out.is_signed = !a.out_unsigned;
  spec.out.scale = a.out_scale;
  spec.out.zero_point = a.out_zp;
  spec.derive_out = a.out_scale == 0;
  if (spec.derive_out && a.out_zp != 0) {
    Fail(l, field + ".out_zp must be 0 with a derived out_scale (symmetric)");
  }
  try {
    return golden::BuildLut(*f, spec);
  } catch (const std::invalid_argument& e) {
    Fail(l, fmt::format("{}: {}", field, e.what()));
  }
}

namespace {

// The activation's input: the requant code, 8 bits of the clamp's signedness, zero point zp_out and
// scale in_scale. Throws for a clamp or zero point outside the code.
golden::QuantSpec ActivationInput(const GemmLayer& l) {
  if (!l.has_activation()) Fail(l, "has no activation");
  golden::QuantSpec in;
  in.is_signed = l.clamp_min < 0;
  in.scale = l.activation.in_scale;
  in.zero_point = l.zp_out;
  // The table reads the requant code as an 8-bit code of one signedness: the clamp keeps it there.
  const int32_t lo = in.is_signed ? -128 : 0, hi = in.is_signed ? 127 : 255;
  if (l.clamp_max > hi) {
    Fail(l, fmt::format("clamp_max = {} is above {}: the activation's input is an {} code",
                        l.clamp_max, hi, in.is_signed ? "int8" : "uint8"));
  }
  if (l.zp_out < lo || l.zp_out > hi) {
    Fail(l, fmt::format("zp_out = {} is outside {}..{}: the activation's input zero point",
                        l.zp_out, lo, hi));
  }
  return in;
}

// The slope stage's functions compute leaky_relu into 8-bit codes.
void CheckSlopeActivation(const GemmLayer& l) {
  if (l.activation.function != "leaky_relu") {
    Fail(l, fmt::format("activation.unit = \"slope\" computes leaky_relu only, not '{}'",
                        l.activation.function));
  }
  if (l.activation.out_bits != 8) Fail(l, "activation.unit = \"slope\" writes 8-bit codes only");
}

bool IsInt8Slope(const GemmLayer& l) { return l.activation.form == "int8_slope"; }

}  // namespace

golden::Lut ActivationTable(const GemmLayer& l) {
  if (IsInt8Slope(l)) Fail(l, "activation.form = \"int8_slope\" has no table");
  return ActivationTable(l, l.activation, "activation", ActivationInput(l));
}

golden::LeakyReluParams LayerLeakyRelu(const GemmLayer& l) {
  const golden::Lut table = ActivationTable(l);  // the input and output specs, checked
  CheckSlopeActivation(l);
  const golden::QuantSpec in = ActivationInput(l);
  try {  // the rounding of the layer's TFLite form (double after a TPU-MLIR layer)
    return golden::MakeLeakyReluParams(in, table.out(), l.activation.alpha,
                                       LayerRequant(l).rounding);
  } catch (const std::invalid_argument& e) {
    Fail(l, fmt::format("activation on the slope stage: {}", e.what()));
  }
}

golden::RequantParams LayerRequant(const GemmLayer& l) {
  golden::RequantParams p;
  p.form = l.requant;
  p.multiplier = l.mult;
  p.shift = l.shift;
  p.rounding = l.single_rounding ? golden::RequantRounding::kSingleRounding
                                 : golden::RequantRounding::kDoubleRounding;
  p.mult_bits = l.mult_bits;
  p.rshift_rounding = l.rshift_rounding;
  p.output_zero_point = l.zp_out;
  p.clamp_min = l.clamp_min;
  p.clamp_max = l.clamp_max;
  return p;
}

void SetLayerScale(GemmLayer& l, double scale) {
  if (l.requant == golden::RequantForm::kTflite) {
    const golden::QuantizedMultiplier q = golden::QuantizeMultiplier(scale);
    l.mult = q.multiplier;
    l.shift = q.shift;
    return;
  }
  // TPU-MLIR's derivation maps a negative or non-finite scale to (0, 0) without a word: refuse it.
  if (!(scale >= 0) || !std::isfinite(scale)) {
    throw std::invalid_argument(fmt::format("{} is not a finite scale >= 0", scale));
  }
  if (l.mult_bits != 8 && l.mult_bits != 16 && l.mult_bits != 32) {
    throw std::invalid_argument(fmt::format("mult_bits = {} is not 8, 16 or 32", l.mult_bits));
  }
  const golden::tpu_mlir::RShiftMultiplier q =
      golden::tpu_mlir::RShiftAndMultiplierFromQScale(scale, (int64_t{1} << (l.mult_bits - 1)) - 1);
  l.mult = int32_t(q.multiplier);
  l.shift = q.rshift;
}

golden::Int8SlopeParams LayerInt8Slope(const GemmLayer& l) {
  const golden::QuantSpec in = ActivationInput(l);
  CheckSlopeActivation(l);
  const Activation& a = l.activation;
  if (!(a.out_scale == 0 || a.out_scale == a.in_scale)) {
    Fail(l, fmt::format("activation.out_scale = {} is not 0 or in_scale = {}: the int8_slope form "
                        "keeps the input's scale",
                        a.out_scale, a.in_scale));
  }
  golden::QuantSpec out;
  out.is_signed = !a.out_unsigned;
  out.scale = in.scale;
  out.zero_point = a.out_zp;
  try {
    golden::ValidateQuantSpec(out);
    return golden::MakeInt8SlopeLeakyReluParams(in, out, a.alpha);
  } catch (const std::invalid_argument& e) {
    Fail(l, fmt::format("activation (int8_slope): {}", e.what()));
  }
}

golden::SlopeStageParams LayerSlope(const GemmLayer& l) {
  return IsInt8Slope(l) ? golden::SlopeFromInt8Slope(LayerInt8Slope(l))
                        : golden::SlopeFromLeakyRelu(LayerLeakyRelu(l));
}

bool UsesSlopeStage(const GemmLayer& l) {
  if (l.has_activation() && IsInt8Slope(l)) {
    if (l.activation.unit == "lut") {
      Fail(l, "activation.form = \"int8_slope\" runs on the slope stage, not with unit \"lut\"");
    }
    LayerInt8Slope(l);  // throws what the form cannot compute
    return true;
  }
  if (!l.has_activation() || l.activation.unit == "lut") return false;
  if (l.activation.unit == "slope") {
    LayerLeakyRelu(l);  // throws what the stage cannot compute
    return true;
  }
  if (l.activation.function != "leaky_relu" || l.activation.out_bits != 8) return false;
  try {
    LayerLeakyRelu(l);
  } catch (const std::invalid_argument&) {
    return false;  // a ratio beyond the Q31 form: the table
  }
  return true;
}

Network GemmNetwork(int m, int n, int k) {
  Network network;
  GemmLayer layer;
  layer.m = m;
  layer.n = n;
  layer.k = k;
  layer.shift = -10;
  network.name = "gemm_" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  network.layers.push_back(layer);
  ValidateNetwork(network);
  return network;
}

void ValidateNetwork(const Network& network) {
  if (network.layers.empty()) throw std::invalid_argument("network: layers is empty");
  std::set<std::string> names;
  for (size_t i = 0; i < network.layers.size(); ++i) {
    const GemmLayer& l = network.layers[i];
    if (l.name.empty()) throw std::invalid_argument(fmt::format("layer {}: name is empty", i));
    if (!names.insert(l.name).second) Fail(l, "name is used by an earlier layer");
    CheckRange(l, "m", l.m, 1, kMaxRowsOrCols);
    CheckRange(l, "n", l.n, 1, kMaxRowsOrCols);
    CheckRange(l, "k", l.k, 1, kMaxDim);
    CheckRange(l, "a_zp", l.a_zp, golden::kMinOperandZeroPoint, golden::kMaxOperandZeroPoint);
    CheckRange(l, "b_zp", l.b_zp, golden::kMinOperandZeroPoint, golden::kMaxOperandZeroPoint);
    if (i > 0) {
      const GemmLayer& prev = network.layers[i - 1];
      if (l.m != prev.m) {
        Fail(l, fmt::format("m = {} does not match the previous layer's m = {}", l.m, prev.m));
      }
      if (l.k != prev.n) {
        Fail(l, fmt::format("k = {} does not match the previous layer's n = {}", l.k, prev.n));
      }
    }
    if (l.out_int32) {
      if (i + 1 != network.layers.size()) {
        Fail(l, "out_int32 is allowed on the last layer only (the next layer reads int8)");
      }
      if (l.has_residual()) Fail(l, "residual: not with out_int32 (the add takes int8 codes)");
      if (l.has_activation()) Fail(l, "an activation takes a requant code, not out_int32");
      continue;  // no requantization
    }
    if (l.requant == golden::RequantForm::kTflite) {
      CheckRange(l, "shift", l.shift, golden::kMinQuantizedShift, golden::kMaxQuantizedShift);
      if (!l.per_channel && l.mult != 0 && l.mult < (int32_t{1} << 30)) {
        Fail(l,
             fmt::format("mult = {} is outside 0 or {}..{}", l.mult, int32_t{1} << 30, INT32_MAX));
      }
    } else {
      if (l.mult_bits != 8 && l.mult_bits != 16 && l.mult_bits != 32) {
        Fail(l, fmt::format("mult_bits = {} is not 8, 16 or 32", l.mult_bits));
      }
      if (l.single_rounding) Fail(l, "single_rounding is TFLite's: not with requant \"tpu-mlir\"");
      CheckRange(l, "rshift", l.shift, 0, golden::kMaxRequantRshift);
      if (!l.per_channel) {
        const int64_t bound = int64_t{1} << (l.mult_bits - 1);
        CheckRange(l, "mult", l.mult, -bound, bound - 1);
      }
    }
    CheckRange(l, "clamp_min", l.clamp_min, -128, 255);
    CheckRange(l, "clamp_max", l.clamp_max, -128, 255);
    if (l.clamp_min > l.clamp_max) {
      Fail(l, fmt::format("clamp_min = {} is above clamp_max = {}", l.clamp_min, l.clamp_max));
    }
    if (l.has_activation()) {
      if (!IsInt8Slope(l)) ActivationTable(l);  // throws for illegal fields
      UsesSlopeStage(l);                        // and for a slope the stage cannot compute
      if (l.activation.out_bits == 16 && i + 1 != network.layers.size()) {
        Fail(l,
             "activation.out_bits = 16 is allowed on the last layer only (the next layer reads "
             "int8)");
      }
    }
    if (l.has_residual()) {
      if (l.residual.has_activation() && l.residual.activation.form != "q31") {
        Fail(l, "residual.activation.form: a table after the add has no form (the slope stage's)");
      }
      ValidateResidual(network, i);
    }
  }
}

Network ParseNetwork(std::string_view json_text, std::string_view source) {
  using nlohmann::json;
  const std::function<std::invalid_argument(const std::string&)> fail =
      [&](const std::string& what) {
        return std::invalid_argument(fmt::format("{}: {}", source, what));
      };
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw fail(fmt::format("not valid JSON ({})", e.what()));
  }
  if (!doc.is_object()) throw fail("the document must be a JSON object");
  Network network;
  for (const auto& [key, value] : doc.items()) {
    if (key == "name") {
      if (!value.is_string()) throw fail("name must be a string");
      network.name = value.get<std::string>();
    } else if (key != "layers") {
      throw fail(fmt::format("unknown key '{}' (expected name, layers)", key));
    }
  }
  if (!doc.contains("layers") || !doc["layers"].is_array()) {
    throw fail("layers must be an array of layer objects");
  }
  for (size_t i = 0; i < doc["layers"].size(); ++i) {
    const json& j = doc["layers"][i];
    const std::string where = fmt::format("layers[{}]", i);
    if (!j.is_object()) throw fail(where + " must be an object");
    GemmLayer l;
    l.name = fmt::format("layer{}", i);
    if (i > 0) {
      l.m = network.layers.back().m;
      l.k = network.layers.back().n;
    }
    std::optional<double> scale;
    bool has_mult = false, has_shift = false, has_rshift = false;
    bool has_m = false, has_n = false, has_k = false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      // Named references, not a structured binding: C++17 lambdas cannot capture those.
      const std::string& key = it.key();
      const json& value = it.value();
      const std::string at = where + "." + key;
      auto integer = [&](int64_t lo, int64_t hi) {
        if (!value.is_number_integer()) throw fail(at + " must be an integer");
        const int64_t v = value.is_number_unsigned() && value.get<uint64_t>() > uint64_t(INT64_MAX)
                              ? INT64_MAX
                              : value.get<int64_t>();
        if (v < lo || v > hi) throw fail(fmt::format("{} = {} is outside {}..{}", at, v, lo, hi));
        return v;
      };
      auto boolean = [&]() {
        if (!value.is_boolean()) throw fail(at + " must be true or false");
        return value.get<bool>();
      };
      if (key == "name") {
        if (!value.is_string() || value.get<std::string>().empty()) {
          throw fail(at + " must be a non-empty string");
        }
        l.name = value.get<std::string>();
      } else if (key == "m") {
        l.m = int(integer(1, kMaxRowsOrCols));
        has_m = true;
      } else if (key == "n") {
        l.n = int(integer(1, kMaxRowsOrCols));
        has_n = true;
      } else if (key == "k") {
        l.k = int(integer(1, kMaxDim));
        has_k = true;
      } else if (key == "a_unsigned") {
        l.a_unsigned = boolean();
      } else if (key == "b_unsigned") {
        l.b_unsigned = boolean();
      } else if (key == "a_zp") {
        l.a_zp = int32_t(integer(-128, 255));
      } else if (key == "b_zp") {
        l.b_zp = int32_t(integer(-128, 255));
      } else if (key == "bias") {
        l.bias = boolean();
      } else if (key == "per_channel") {
        l.per_channel = boolean();
      } else if (key == "single_rounding") {
        l.single_rounding = boolean();
      } else if (key == "out_int32") {
        l.out_int32 = boolean();
      } else if (key == "requant") {
        const std::string form = value.is_string() ? value.get<std::string>() : "";
        if (form != "tflite" && form != "tpu-mlir") {
          throw fail(at + " must be \"tflite\" or \"tpu-mlir\"");
        }
        l.requant = form == "tflite" ? golden::RequantForm::kTflite : golden::RequantForm::kTpuMlir;
      } else if (key == "mult_bits") {
        l.mult_bits = int(integer(8, 32));
      } else if (key == "rshift_rounding") {
        const auto mode = value.is_string()
                              ? golden::tpu_mlir::ParseRounding(value.get<std::string>())
                              : std::nullopt;
        if (!mode) {
          throw fail(fmt::format("{} must be one of {}", at, golden::tpu_mlir::RoundingChoices()));
        }
        l.rshift_rounding = *mode;
      } else if (key == "mult") {
        l.mult = int32_t(integer(INT32_MIN, INT32_MAX));
        has_mult = true;
      } else if (key == "shift") {
        l.shift = int(integer(-31, 30));
        has_shift = true;
      } else if (key == "rshift") {
        l.shift = int(integer(0, golden::kMaxRequantRshift));
        has_rshift = true;
      } else if (key == "scale") {
        if (!value.is_number()) throw fail(at + " must be a number");
        scale = value.get<double>();
      } else if (key == "zp_out") {
        l.zp_out = int32_t(integer(INT32_MIN, INT32_MAX));
      } else if (key == "clamp_min") {
        l.clamp_min = int32_t(integer(INT32_MIN, INT32_MAX));
      } else if (key == "clamp_max") {
        l.clamp_max = int32_t(integer(INT32_MIN, INT32_MAX));
      } else if (key == "activation") {
        l.activation = ParseActivation(value, at, fail);
        if (!value.contains("in_scale")) {
          throw fail(at + ".in_scale is missing (the requant code's scale)");
        }
      } else if (key == "residual") {
        l.residual = ParseResidual(value, at, fail);
      } else {
        throw fail(fmt::format(
            "unknown key '{}' (expected name, m, n, k, a_unsigned, b_unsigned, a_zp, b_zp, bias, "
            "per_channel, requant, single_rounding, mult_bits, rshift_rounding, out_int32, mult, "
            "shift, rshift, scale, zp_out, clamp_min, clamp_max, activation, residual)",
            at));
      }
    }
    // Dimensions are never guessed: the first layer gives all three, a later one its N (its M and
    // K are the previous layer's M and N, and may be repeated).
    const std::string layer = fmt::format("{} ('{}')", where, l.name);
    if (i == 0 && !(has_m && has_k)) {
      throw fail(fmt::format("{}: {} is missing; the first layer gives m, n and k", layer,
                             has_m ? "k" : "m"));
    }
    if (!has_n) {
      throw fail(fmt::format("{}: n is missing; every layer gives its n (output columns)", layer));
    }
    // The form's keys: TFLite's shift and single_rounding, TPU-MLIR's rshift, mult_bits and
    // rshift_rounding; a key of the other form is an error, not ignored.
    const bool tpu = l.requant == golden::RequantForm::kTpuMlir;
    const std::vector<const char*> other_keys =
        tpu ? std::vector<const char*>{"shift", "single_rounding"}
            : std::vector<const char*>{"rshift", "mult_bits", "rshift_rounding"};
    for (const char* key : other_keys) {
      if (j.contains(key)) {
        throw fail(fmt::format("{}.{} is {}'s: not with requant \"{}\"", where, key,
                               tpu ? "TFLite" : "TPU-MLIR", tpu ? "tpu-mlir" : "tflite"));
      }
    }
    if (tpu) {  // the defaults are scale 0.5 as TPU-MLIR derives it, as TFLite's are 0.5 in Q31
      if (!has_mult) l.mult = int32_t{1} << std::clamp(l.mult_bits - 2, 0, 30);
      if (!has_rshift) l.shift = l.mult_bits - 1;
    }
    if (scale && (has_mult || has_shift || has_rshift)) {
      throw fail(fmt::format("{}: give either scale or mult and {}, not both", where,
                             tpu ? "rshift" : "shift"));
    }
    if (scale) {
      try {
        SetLayerScale(l, *scale);
      } catch (const std::invalid_argument& e) {
        throw fail(fmt::format("{}.scale: {}", where, e.what()));
      }
    }
    network.layers.push_back(l);
  }
  try {
    ValidateNetwork(network);
  } catch (const std::invalid_argument& e) {
    throw fail(e.what());
  }
  return network;
}

}  // namespace qacc::compiler
