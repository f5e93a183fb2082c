// The layer compiler (compiler, docs/data_movement.md 16): every compiled program runs on the
// golden executor without error, is race free, and leaves in external memory exactly the result of
// the layers computed directly on whole matrices (reference.h: golden::Gemm and
// RequantizeAccumulator, no tiling), for
// random shapes on every config, with double buffering and chaining on and off, and on SRAMs small
// enough to force every chunking path. Layers that cannot fit are refused with the message the
// spec promises.
#include "compiler/compiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "compiler/ext_image.h"
#include "compiler/network.h"
#include "compiler/reference.h"
#include "compiler/residual.h"
#include "golden/add.h"
#include "golden/lut_unit.h"
#include "golden/program.h"
#include "model/arch.h"
#include "sim/build_paths.h"

namespace qacc::compiler {
namespace {

struct Outcome {
  CompiledProgram program;
  LaunchesResult result;
  std::vector<int32_t> got, want;
  std::vector<golden::Race> races;
};

Outcome CompileAndRun(const arch::ArchConfig& config, const Network& net,
                      const CompileOptions& options, std::mt19937& rng) {
  Outcome o;
  o.program = Compile(config, net, options);
  const golden::AccelGeometry geometry = GeometryOf(config);
  golden::MachineState state(geometry, o.program.ext_bytes);
  const RandomValues values = MakeRandomValues(net, rng());
  WriteInputs(o.program, net, values.x, values.layers, state);
  o.races =
      RaceCheckLaunches(geometry, o.program.descriptors, o.program.q_base, o.program.launches);
  o.result = RunLaunches(geometry, o.program.q_base, o.program.launches, state);
  o.got = ReadOutput(o.program, net, state);
  o.want = ReferenceOutput(net, values.x, values.layers);
  return o;
}

void ExpectCorrect(const Outcome& o, const std::string& what) {
  ASSERT_EQ(o.result.error, golden::ProgramError::kNone)
      << what << ": " << golden::ProgramErrorName(o.result.error) << " at descriptor "
      << o.result.error_index;
  EXPECT_EQ(o.result.retired, int64_t(o.program.descriptors.size())) << what;
  EXPECT_EQ(o.result.launches_run, int(o.program.launches.size())) << what;
  EXPECT_TRUE(o.races.empty()) << what << ": " << o.races.size() << " races, the first between "
                               << o.races[0].first << " and " << o.races[0].second;
  ASSERT_EQ(o.got.size(), o.want.size()) << what;
  for (size_t i = 0; i < o.got.size(); ++i) {
    ASSERT_EQ(o.got[i], o.want[i]) << what << ": element " << i;
  }
}

arch::ArchConfig Config(const std::string& name) {
  return arch::LoadArchConfig(std::string(QACC_SOURCE_DIR) + "/configs/" + name + ".json");
}

// SRAMs a few panels deep, so that layers of a few dozen rows and columns need every kind of
// chunking: A and B streamed, bias/rq limiting the B chunk, the output slots limiting both.
arch::ArchConfig Tiny(int rows, int cols) {
  arch::ArchConfig c;
  c.name = "tiny";
  c.rows = rows;
  c.cols = cols;
  c.a_depth = 128;
  c.b_depth = 128;
  c.bias_depth = 4;
  c.rq_depth = 4;
  c.out_depth = 16;
  return c;
}

// ParseNetwork's message for `text` (source "net.json"), or "no error".
std::string ParseError(const std::string& text) {
  try {
    ParseNetwork(text, "net.json");
  } catch (const std::invalid_argument& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

TEST(Compiler, OneLayerOnEveryConfigMatchesGolden) {
  std::mt19937 rng(18);
  for (const char* name : {"default", "rect_4x16", "tall_16x4"}) {
    const arch::ArchConfig config = Config(name);
    for (int trial = 0; trial < 6; ++trial) {
      Network net;
      net.layers.push_back(RandomLayer(rng, "fc", 1 + int(rng() % 70), 1 + int(rng() % 70),
                                       1 + int(rng() % 90), true));
      for (bool db : {true, false}) {
        const Outcome o = CompileAndRun(config, net, {db, true}, rng);
        ExpectCorrect(
            o, std::string(name) + (db ? " double-buffered " : " single ") + std::to_string(trial));
      }
    }
  }
}

TEST(Compiler, SmallSramsForceEveryChunking) {
  std::mt19937 rng(1818);
  for (auto [r, c] : {std::pair{4, 4}, std::pair{8, 4}, std::pair{4, 8}}) {
    const arch::ArchConfig config = Tiny(r, c);
    for (int trial = 0; trial < 25; ++trial) {
      Network net;
      const int k = 1 + int(rng() % 40);
      net.layers.push_back(
          RandomLayer(rng, "fc", 1 + int(rng() % 60), 1 + int(rng() % 60), k, true));
      for (bool db : {true, false}) {
        const Outcome o = CompileAndRun(config, net, {db, true}, rng);
        ExpectCorrect(o, "tiny " + std::to_string(r) + "x" + std::to_string(c) + " trial " +
                             std::to_string(trial) + (db ? " db" : ""));
        const LayerPlan& p = o.program.layers[0];
        EXPECT_EQ(p.steps, p.a_chunks * p.b_chunks);
      }
    }
  }
}

TEST(Compiler, ChainsMatchGoldenOnChipAndThroughExternalMemory) {
  std::mt19937 rng(2018);
  int on_chip = 0, through_ext = 0;
  for (const arch::ArchConfig& config : {Config("default"), Tiny(4, 4), Tiny(8, 4)}) {
    for (int trial = 0; trial < 12; ++trial) {
      Network net;
      const int layers = 2 + int(rng() % 2);
      const int m = 1 + int(rng() % 40);
      int k = 1 + int(rng() % 30);
      for (int i = 0; i < layers; ++i) {
        const int n = 1 + int(rng() % 30);
        net.layers.push_back(RandomLayer(rng, "l" + std::to_string(i), m, n, k, i + 1 == layers));
        k = n;
      }
      for (bool chain : {true, false}) {
        for (bool db : {true, false}) {
          const Outcome o = CompileAndRun(config, net, {db, chain}, rng);
          ExpectCorrect(o, config.name + " chain trial " + std::to_string(trial));
          for (const LayerPlan& p : o.program.layers) {
            if (!chain) {
              EXPECT_FALSE(p.output_on_chip);
            }
            on_chip += p.output_on_chip;
          }
          through_ext +=
              o.program.moves > 0 && o.program.stores > 0 && !o.program.layers[0].output_on_chip;
        }
      }
    }
  }
  // Both routes were taken.
  EXPECT_GT(on_chip, 0);
  EXPECT_GT(through_ext, 0);
}

// Fused activations (lut.md 10.4): every layer's table loaded into slot layer mod S, each GEMM
// with ACT = LUT, against the reference (golden's Lut of each layer's function on golden's GEMM
// and requant). With one slot every layer reloads it after the previous layer's last GEMM, which
// the tokens must order (no race).
TEST(Compiler, FusedActivationsMatchTheReference) {
  std::mt19937 rng(4141);
  const std::vector<std::string>& names = golden::ElementwiseNames();
  int tables = 0;
  for (int slots : {4, 1}) {
    for (arch::ArchConfig config : {Config("default"), Tiny(4, 4)}) {
      config.lut_slots = slots;
      for (int trial = 0; trial < 8; ++trial) {
        Network net;
        const int m = 1 + int(rng() % 40), layers = 2 + int(rng() % 4);
        int k = 1 + int(rng() % 30);
        for (int i = 0; i < layers; ++i) {
          const int n = 1 + int(rng() % 30);
          GemmLayer l = RandomLayer(rng, "l" + std::to_string(i), m, n, k, false);
          l.activation.function = names[size_t(trial * layers + i) % names.size()];
          // Odd trials store the last layer's int16 codes (the int16 layout, STORE's 2C unit).
          if (i + 1 == layers && trial % 2 == 1) l.activation.out_bits = 16;
          l.activation.in_scale = 0.05 + 0.01 * (rng() % 10);
          l.zp_out = l.clamp_min < 0 ? int32_t(rng() % 11) - 5 : int32_t(rng() % 6);
          net.layers.push_back(l);
          k = n;
        }
        for (bool chain : {true, false}) {
          const Outcome o = CompileAndRun(config, net, {true, chain}, rng);
          ExpectCorrect(o, config.name + " " + std::to_string(slots) + " slots trial " +
                               std::to_string(trial));
          for (const TensorPlacement& t : o.program.tensors) {
            tables += t.kind == TensorPlacement::Kind::kTable;
          }
        }
      }
    }
  }
  EXPECT_GT(tables, 100);
}

// LeakyReLU on the slope stage (requant.md 6.2): unit "auto" and "slope" lower it to a SET of the
// stage's registers before the layer's GEMMs and no table; the output equals golden's LeakyRelu of
// the layer description (ReferenceOutput), for any alpha, on-chip chaining or not.
TEST(Compiler, LeakyReluOnTheSlopeStageMatchesTheReference) {
  std::mt19937 rng(4242);
  int slope_layers = 0;
  for (arch::ArchConfig config : {Config("default"), Tiny(4, 4)}) {
    for (int trial = 0; trial < 10; ++trial) {
      Network net;
      const int m = 1 + int(rng() % 40), layers = 1 + int(rng() % 3);
      int k = 1 + int(rng() % 30);
      int expected_sets = 0;
      for (int i = 0; i < layers; ++i) {
        const int n = 1 + int(rng() % 30);
        GemmLayer l = RandomLayer(rng, "l" + std::to_string(i), m, n, k, false);
        l.activation.function = "leaky_relu";
        l.activation.alpha = std::uniform_real_distribution<double>(-1.5, 1.5)(rng);
        l.activation.unit = (i + trial) % 3 == 0 ? "lut" : (i + trial) % 3 == 1 ? "slope" : "auto";
        l.activation.in_scale = 0.05 + 0.01 * (rng() % 10);
        l.zp_out = l.clamp_min < 0 ? int32_t(rng() % 11) - 5 : int32_t(rng() % 6);
        expected_sets += l.activation.unit != "lut";
        net.layers.push_back(l);
        k = n;
      }
      for (bool chain : {true, false}) {
        const Outcome o = CompileAndRun(config, net, {true, chain}, rng);
        ExpectCorrect(o, config.name + " trial " + std::to_string(trial));
        int sets = 0;
        for (const golden::Descriptor& d : o.program.descriptors) {
          sets += golden::SetsSlope(d);
        }
        EXPECT_EQ(sets, expected_sets);
        for (size_t i = 0; i < net.layers.size(); ++i) {
          const bool slope = net.layers[i].activation.unit != "lut";
          EXPECT_EQ(o.program.layers[i].activation_unit, slope ? "slope" : "lut");
          slope_layers += slope;
          bool table = false;
          for (const TensorPlacement& t : o.program.tensors) {
            table |= t.name == net.layers[i].name + ".act";
          }
          EXPECT_EQ(table, !slope) << net.layers[i].name;
        }
      }
    }
  }
  EXPECT_GT(slope_layers, 20);
}

// TPU-MLIR's requantization (requant.md 6.1): layers of every width and rounding, per tensor and
// per channel, compiled to GEMMs in that form, give what golden computes from the layer
// description; one layer is also checked against TPU-MLIR's applyMultiplierAndRShift applied here
// directly.
TEST(Compiler, TpuMlirRequantMatchesTheReference) {
  std::mt19937 rng(6002);
  int tpu_gemms = 0;
  for (arch::ArchConfig config : {Config("default"), Tiny(4, 4)}) {
    for (int trial = 0; trial < 12; ++trial) {
      Network net;
      const int m = 1 + int(rng() % 40), layers = 1 + int(rng() % 3);
      int k = 1 + int(rng() % 30);
      for (int i = 0; i < layers; ++i) {
        const int n = 1 + int(rng() % 30);
        GemmLayer l = RandomLayer(rng, "l" + std::to_string(i), m, n, k, i + 1 == layers);
        l.requant = golden::RequantForm::kTpuMlir;
        l.single_rounding = false;
        l.mult_bits = 8 << (trial % 3);
        l.rshift_rounding = golden::tpu_mlir::kAllRoundings[size_t(trial) % 7];
        SetLayerScale(l, std::ldexp(1.0 + double(rng() % 1000) / 1000, -7 - int(rng() % 8)));
        net.layers.push_back(l);
        k = n;
      }
      const Outcome o = CompileAndRun(config, net, {true, trial % 2 == 0}, rng);
      ExpectCorrect(o, config.name + " trial " + std::to_string(trial));
      for (const golden::Descriptor& d : o.program.descriptors) {
        if (golden::DecodeHeader(d).op != uint32_t(golden::Op::kGemm)) continue;
        const uint32_t mode = golden::DecodeGemm(d).mode;
        if (mode & arch::kModeOutRaw) continue;
        ++tpu_gemms;
        EXPECT_TRUE(mode & arch::kModeRqForm);
        EXPECT_EQ(arch::MultWidthBits((mode & arch::kModeMultWidthMask) >> arch::kModeMultWidthLsb),
                  8 << (trial % 3));
        EXPECT_EQ((mode & arch::kModeRshiftRoundMask) >> arch::kModeRshiftRoundLsb,
                  uint32_t(golden::tpu_mlir::kAllRoundings[size_t(trial) % 7]));
      }
    }
  }
  EXPECT_GT(tpu_gemms, 20);

  // One per-tensor layer against TPU-MLIR's own function, no compiler in between.
  Network net = ParseNetwork(
      R"({"layers": [{"m": 5, "n": 7, "k": 9, "requant": "tpu-mlir", "scale": 0.0031,
                      "mult_bits": 16, "rshift_rounding": "half_to_even", "zp_out": 3}]})");
  const GemmLayer& l = net.layers[0];
  const RandomValues values = MakeRandomValues(net, 7);
  const std::vector<int32_t> got = ReferenceOutput(net, values.x, values.layers);
  const golden::tpu_mlir::RShiftMultiplier q =
      golden::tpu_mlir::RShiftAndMultiplierFromQScale(0.0031, 32767);
  EXPECT_EQ(l.mult, q.multiplier);
  EXPECT_EQ(l.shift, q.rshift);
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 7; ++c) {
      int64_t acc = 0;
      for (int j = 0; j < 9; ++j) {
        acc += int64_t(int8_t(values.x[size_t(r * 9 + j)])) *
               int8_t(values.layers[0].w[size_t(j * 7 + c)]);
      }
      const int64_t v = golden::tpu_mlir::ApplyMultiplierAndRShift(
                            acc, q.multiplier, q.rshift, golden::tpu_mlir::Rounding::kHalfToEven) +
                        3;
      EXPECT_EQ(got[size_t(r * 7 + c)], std::clamp<int64_t>(v, -128, 127)) << r << "," << c;
    }
  }
}

// Seed 002's LeakyReLU (activation.form "int8_slope"): the SET holds golden's SlopeFromInt8Slope of
// the layer, and the output is golden's Int8SlopeLeakyRelu of the requant codes, after either
// requant form.
TEST(Compiler, Int8SlopeLeakyReluMatchesTheReference) {
  std::mt19937 rng(2002);
  int layers_checked = 0;
  for (arch::ArchConfig config : {Config("default"), Tiny(4, 4)}) {
    for (int trial = 0; trial < 10; ++trial) {
      Network net;
      const int m = 1 + int(rng() % 40), layers = 1 + int(rng() % 3);
      int k = 1 + int(rng() % 30);
      for (int i = 0; i < layers; ++i) {
        GemmLayer l = RandomLayer(rng, "l" + std::to_string(i), m, 1 + int(rng() % 30), k, false);
        l.activation = Activation{};
        l.activation.function = "leaky_relu";
        l.activation.form = "int8_slope";
        l.activation.alpha = std::uniform_real_distribution<double>(-3, 3)(rng);
        l.activation.in_scale = 0.05;
        l.activation.out_scale = trial % 2 ? 0.05 : 0;  // the input's scale either way
        l.activation.out_unsigned = rng() % 4 == 0;
        l.activation.out_zp =
            l.activation.out_unsigned ? int32_t(rng() % 20) : int32_t(rng() % 9) - 4;
        l.zp_out = l.clamp_min < 0 ? int32_t(rng() % 11) - 5 : int32_t(rng() % 6);
        net.layers.push_back(l);
        k = l.n;
      }
      const Outcome o = CompileAndRun(config, net, {true, trial % 3 != 0}, rng);
      ExpectCorrect(o, config.name + " trial " + std::to_string(trial));
      size_t layer = 0;
      for (const golden::Descriptor& d : o.program.descriptors) {
        if (!golden::SetsSlope(d)) continue;
        ASSERT_LT(layer, net.layers.size());
        const golden::SetFields set = golden::DecodeSet(d);
        const golden::SlopeRegisters want = golden::EncodeSlopeRegisters(
            golden::SlopeFromInt8Slope(LayerInt8Slope(net.layers[layer])));
        for (size_t r = 0; r < want.size(); ++r)
          EXPECT_EQ(set.value[r], want[r]) << layer << " " << r;
        ++layer;
      }
      EXPECT_EQ(layer, net.layers.size());
      layers_checked += int(layer);
    }
  }
  EXPECT_GT(layers_checked, 30);
  // Refusals name the layer and the field.
  GemmLayer l;
  l.name = "act";
  l.activation.function = "leaky_relu";
  l.activation.form = "int8_slope";
  l.activation.in_scale = 0.05;
  l.activation.out_scale = 0.1;
  auto error = [&] {
    try {
      UsesSlopeStage(l);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(
      error(),
      "layer 'act': activation.out_scale = 0.1 is not 0 or in_scale = 0.05: the int8_slope form "
      "keeps the input's scale");
  l.activation.out_scale = 0;
  l.activation.alpha = 130;
  EXPECT_EQ(error().substr(0, 40), "layer 'act': activation (int8_slope): al");
  l.activation.alpha = 0.1;
  l.activation.unit = "lut";
  EXPECT_EQ(error(),
            "layer 'act': activation.form = \"int8_slope\" runs on the slope stage, not with unit "
            "\"lut\"");
  l.activation.unit = "auto";
  l.activation.function = "gelu";
  EXPECT_EQ(error(),
            "layer 'act': activation.unit = \"slope\" computes leaky_relu only, not 'gelu'");
  // The key in a file; a residual's table has no form.
  EXPECT_EQ(ParseError(R"({"layers": [{"m": 1, "n": 1, "k": 1, "activation":
      {"function": "leaky_relu", "in_scale": 0.1, "form": "int8"}}]})"),
            "net.json: layers[0].activation.form must be \"q31\" or \"int8_slope\"");
  EXPECT_EQ(ParseError(R"({"layers": [{"name": "a", "m": 2, "n": 2, "k": 2},
      {"name": "b", "n": 2, "residual": {"from": "a", "scale": 0.1, "from_scale": 0.1,
       "out_scale": 0.2, "activation": {"function": "leaky_relu", "form": "int8_slope"}}}]})"),
            "net.json: layer 'b': residual.activation.form: a table after the add has no form (the "
            "slope stage's)");
}

// "slope" computes leaky_relu with 8-bit codes only; "auto" falls back to the table otherwise.
TEST(Compiler, SlopeUnitRefusalsNameTheLayer) {
  GemmLayer l;
  l.name = "act";
  l.activation.function = "gelu";
  l.activation.in_scale = 0.05;
  l.activation.unit = "auto";
  EXPECT_FALSE(UsesSlopeStage(l));
  l.activation.unit = "slope";
  try {
    UsesSlopeStage(l);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("layer 'act'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("leaky_relu only"), std::string::npos) << e.what();
  }
  l.activation.function = "leaky_relu";
  EXPECT_TRUE(UsesSlopeStage(l));
  l.activation.out_bits = 16;
  l.activation.unit = "auto";
  EXPECT_FALSE(UsesSlopeStage(l));
  EXPECT_NE(ParseError(R"({"layers": [{"m": 2, "n": 2, "k": 2, "activation":
      {"function": "leaky_relu", "in_scale": 0.1, "unit": "table"}}]})")
                .find("activation.unit must be"),
            std::string::npos);
}

TEST(Compiler, ChainedIntermediateNeverTouchesExternalMemory) {
  std::mt19937 rng(7);
  Network net;
  net.layers.push_back(RandomLayer(rng, "fc1", 16, 24, 32, false));
  net.layers.push_back(RandomLayer(rng, "fc2", 16, 8, 24, true));
  const Outcome o = CompileAndRun(Config("default"), net, {true, true}, rng);
  ExpectCorrect(o, "fc1 -> fc2");
  ASSERT_TRUE(o.program.layers[0].output_on_chip);
  EXPECT_TRUE(o.program.layers[1].input_on_chip);
  // Only the input, the weights (and bias/rq) are loaded, only the final output is stored.
  for (const TensorPlacement& t : o.program.tensors) {
    EXPECT_NE(t.kind, TensorPlacement::Kind::kIntermediate) << t.name;
  }
  EXPECT_GT(o.program.moves, 0);
}

TEST(Compiler, BertFfnLayerSplitsOverTheDefaultSrams) {
  // The shape of a BERT-base FFN layer at sequence 128 (docs/data_movement.md 16); values are
  // random, the program is checked whole against the matrices.
  std::mt19937 rng(128);
  Network net;
  net.layers.push_back(RandomLayer(rng, "ffn1", 128, 3072, 768, true));
  net.layers[0].out_int32 = false;
  const Outcome o = CompileAndRun(Config("default"), net, {true, true}, rng);
  ExpectCorrect(o, "128 x 768 x 3072");
  const LayerPlan& p = o.program.layers[0];
  EXPECT_GT(p.steps, 1);
  EXPECT_FALSE(p.a_resident && p.b_resident);
}

TEST(Compiler, RefusesLayersThatCannotBeSplit) {
  arch::ArchConfig config = Config("default");
  Network net;
  GemmLayer l;
  l.name = "wide";
  l.m = 8;
  l.n = 8;
  l.k = 9000;
  net.layers.push_back(l);
  try {
    Compile(config, net);
    FAIL() << "K = 9000 compiled";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "layer 'wide': K = 9000 exceeds the 8192 A SRAM words available (one panel of K "
              "words must fit; K is never split)");
  }
  config.b_depth = 4096;
  net.layers[0].k = 5000;
  try {
    Compile(config, net);
    FAIL() << "K = 5000 compiled with B depth 4096";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "layer 'wide': K = 5000 exceeds the B SRAM depth 4096 (one panel of K words must "
              "fit; K is never split)");
  }
}

// K at an SRAM's depth fits only with one slot per operand: double buffering is turned off for
// that layer (and said why), the program still computes the layer, and a layer that fits
// double-buffered keeps it.
TEST(Compiler, FallsBackToOneSlotWhereOnlyThatFits) {
  std::mt19937 rng(8192);
  const arch::ArchConfig config = Config("default");
  struct Case {
    int m, n, k;
    std::string because;  // the reason's beginning; empty: double-buffered
  };
  for (const Case& c :
       {Case{9, 8, 8192,
             "layer 'gemm': 2 A slots of one panel (K = 8192 words each) do not fit in the 8192 "
             "A SRAM words available"},
        Case{8, 9, 8192,
             "layer 'gemm': 2 B slots of one column of tiles do not fit: each needs 8192 B words"},
        Case{17, 17, 4096, ""}}) {
    Network net = GemmNetwork(c.m, c.n, c.k);
    net.layers[0] = RandomLayer(rng, "gemm", c.m, c.n, c.k, true);
    const std::string what =
        std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k);
    const Outcome o = CompileAndRun(config, net, {true, true}, rng);
    ExpectCorrect(o, what);
    const LayerPlan& p = o.program.layers[0];
    // The B message goes on with the bias and rq words of the random layer's mode.
    EXPECT_EQ(p.single_buffered_because.substr(0, c.because.size()), c.because) << what;
    EXPECT_EQ(p.single_buffered_because.empty(), c.because.empty()) << what;
    if (!c.because.empty()) {
      EXPECT_LE(std::max({p.a_slots, p.b_slots, p.out_slots}), 1) << what;
    } else {
      EXPECT_EQ(p.out_slots, 2) << what;
    }
  }
}

// When one slot does not fit either, the message names that limit.
TEST(Compiler, RefusalsNameTheLimitOfOneSlot) {
  arch::ArchConfig config = Tiny(8, 8);
  config.out_depth = 1;  // an int8 tile needs R / 4 = 2 output words
  try {
    Compile(config, GemmNetwork(8, 8, 8));
    FAIL() << "compiled with out depth 1";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "layer 'gemm': 1 output slot of one tile do not fit: each needs 2 output words (out "
              "depth 1)");
  }
}

// ---- Residual adds (lut.md 10.5, data_movement.md 16.4)

// Every output zero point of `l` 0, as the seed-symmetric form needs (golden::MakeAddParams).
void ZeroOutputZeroPoints(GemmLayer& l) {
  l.zp_out = 0;
  l.activation.out_zp = 0;
  l.residual.out_zp = 0;
  l.residual.activation.out_zp = 0;
}

// A residual of `form` on `layer` adding `from`'s output, with a table after the add when
// `lookup`; the other fields drawn as RandomResidual draws them.
void SetResidual(std::mt19937& rng, GemmLayer& from, GemmLayer& layer, golden::AddForm form,
                 bool lookup) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  RandomResidual(pick, from, layer);
  Residual& r = layer.residual;
  r.form = form;
  if (form == golden::AddForm::kSeedSymmetric) {
    ZeroOutputZeroPoints(from);
    ZeroOutputZeroPoints(layer);
    r.rounding = golden::kAllRoundingModes[size_t(pick(0, 4))];
    r.overflow =
        pick(0, 1) ? golden::IntermediateOverflow::kWrap : golden::IntermediateOverflow::kSaturate;
  }
  if (!lookup) {
    r.activation = Activation{};
  } else if (!r.has_activation()) {
    r.activation.function = "tanh";
  }
}

// fc1 -> fc2 -> fc3 (+ fc1) -> fc4 (+ fc3): a skip over one layer and one from the layer just
// before, of M x N; fc4's residual of the other form, without a table.
Network ResidualNetwork(std::mt19937& rng, int m, int n, int k, golden::AddForm form, bool lookup) {
  Network net;
  net.name = "residual";
  const int n2 = 1 + int(rng() % 30);
  net.layers.push_back(RandomLayer(rng, "fc1", m, n, k, false));
  net.layers.push_back(RandomLayer(rng, "fc2", m, n2, n, false));
  net.layers.push_back(RandomLayer(rng, "fc3", m, n, n2, false));
  net.layers.push_back(RandomLayer(rng, "fc4", m, n, n, true));
  net.layers[3].out_int32 = false;
  net.layers[3].activation.out_bits = 8;
  SetResidual(rng, net.layers[0], net.layers[2], form, lookup);
  const golden::AddForm other = form == golden::AddForm::kSeedSymmetric
                                    ? golden::AddForm::kTfliteAsymmetric
                                    : golden::AddForm::kSeedSymmetric;
  SetResidual(rng, net.layers[2], net.layers[3], other, false);
  return net;
}

// Both forms, with and without the table after the add, on every config (and one LUT slot,
// which every table is reloaded into), chained and through external memory, double-buffered
// and not, in launches of any length: golden's run equals the reference element for element and
// is race free. Each residual layer has one in-place ELTWISE per GEMM and its source a tensor of
// tiles.
TEST(Compiler, ResidualAddsMatchTheReference) {
  std::mt19937 rng(1005);
  int eltwises = 0;
  for (const char* name : {"default", "rect_4x16", "tall_16x4"}) {
    for (int slots : {4, 1}) {
      arch::ArchConfig config = Config(name);
      config.lut_slots = slots;
      for (golden::AddForm form : golden::kAllAddForms) {
        for (bool lookup : {false, true}) {
          Network net = ResidualNetwork(rng, 1 + int(rng() % 40), 1 + int(rng() % 40),
                                        1 + int(rng() % 30), form, lookup);
          if (slots == 1) {  // one table per layer (ResidualRefusalsNameTheLimit)
            GemmLayer& l = net.layers[2];
            l.activation = Activation{};
            if (l.clamp_min >= 0) l.zp_out = std::max(l.zp_out, 0);
          }
          for (bool chain : {true, false}) {
            for (bool db : {true, false}) {
              CompileOptions options{db, chain};
              if (!db) options.max_launch_descriptors = 1 + uint32_t(rng() % 8);
              const std::string what = std::string(name) + " " + std::to_string(slots) + " slots " +
                                       std::string(golden::AddFormName(form)) +
                                       (lookup ? " lookup" : "") + (chain ? " chain" : "") +
                                       (db ? " db" : "");
              const Outcome o = CompileAndRun(config, net, options, rng);
              ExpectCorrect(o, what);
              int gemms_with_residual = 0;
              for (const LayerPlan& p : o.program.layers) {
                gemms_with_residual += p.name == "fc3" || p.name == "fc4" ? p.steps : 0;
              }
              EXPECT_EQ(o.program.eltwises, gemms_with_residual) << what;
              for (const golden::Descriptor& d : o.program.descriptors) {
                if (golden::DecodeHeader(d).op != uint32_t(golden::Op::kEltwise)) continue;
                const golden::EltwiseFields f = golden::DecodeEltwise(d);
                EXPECT_EQ(f.dst, f.src_a) << what;  // in place
              }
              EXPECT_EQ(o.program.tensor("fc1.res").kind, TensorPlacement::Kind::kResidual);
              EXPECT_EQ(o.program.tensor("fc3.res").layout, TensorPlacement::Layout::kTiles);
              EXPECT_EQ(lookup, std::any_of(o.program.tensors.begin(), o.program.tensors.end(),
                                            [](const TensorPlacement& t) {
                                              return t.name == "fc3.res_act";
                                            }))
                  << what;
              eltwises += int(o.program.eltwises);
              if (::testing::Test::HasFailure()) return;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(eltwises, 100);
}

// On SRAMs a few tiles deep, the residual layer's blocks (two out slots per stream: its own and the
// earlier output's) are chunked otherwise than its source's, whose tiles it reads by (mb, nb).
TEST(Compiler, ResidualTilesMatchAcrossDifferentChunkings) {
  std::mt19937 rng(1006);
  int differ = 0;
  for (auto [r, c] : {std::pair{4, 4}, std::pair{8, 4}, std::pair{4, 8}}) {
    const arch::ArchConfig config = Tiny(r, c);
    for (int trial = 0; trial < 8; ++trial) {
      const golden::AddForm form = golden::kAllAddForms[size_t(trial % 2)];
      const Network net = ResidualNetwork(rng, 1 + int(rng() % 50), 1 + int(rng() % 50),
                                          1 + int(rng() % 30), form, trial % 4 < 2);
      for (bool db : {true, false}) {
        const Outcome o = CompileAndRun(config, net, {db, true}, rng);
        ExpectCorrect(o, "tiny " + std::to_string(r) + "x" + std::to_string(c) + " trial " +
                             std::to_string(trial) + (db ? " db" : ""));
        const LayerPlan& from = o.program.layers[0];
        const LayerPlan& with = o.program.layers[2];
        differ += from.a_panels_per_chunk != with.a_panels_per_chunk ||
                  from.b_panels_per_chunk != with.b_panels_per_chunk;
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
  EXPECT_GT(differ, 10);
}

// The compiler's own limits: a table after the add beside the layer's own needs two LUT slots;
// an output tile with its residual slot must fit the out SRAM.
TEST(Compiler, ResidualRefusalsNameTheLimit) {
  std::mt19937 rng(1007);
  Network net = ResidualNetwork(rng, 8, 8, 8, golden::AddForm::kTfliteAsymmetric, true);
  net.layers[2].activation.function = "gelu";
  net.layers[2].activation.in_scale = 0.05;
  net.layers[2].activation.out_zp = 0;
  net.layers[2].zp_out = 0;
  net.layers[2].clamp_min = -128;
  net.layers[2].clamp_max = 127;
  arch::ArchConfig config = Config("default");
  config.lut_slots = 1;
  try {
    Compile(config, net);
    FAIL() << "two tables in one slot compiled";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "layer 'fc3': its activation and its residual's need two LUT slots at once "
              "(lut.slots = 1)");
  }
  config.lut_slots = 2;
  EXPECT_NO_THROW(Compile(config, net));
  config = Tiny(8, 8);
  config.out_depth = 2;  // one int8 tile: R / 4 = 2 words, no room for the earlier output's
  try {
    Compile(config, net);
    FAIL() << "compiled with out depth 2";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "layer 'fc3': 1 output slot and 1 residual slot of one tile do not fit: each needs "
              "2 output words (out depth 2)");
  }
}

TEST(Network, ResidualParsesAndNamesTheField) {
  const Network net = ParseNetwork(
      R"({"layers": [{"name": "fc1", "m": 4, "n": 6, "k": 5, "zp_out": 2},
                     {"name": "fc2", "n": 6, "clamp_min": 0, "clamp_max": 255},
                     {"name": "fc3", "n": 6,
                      "residual": {"from": "fc1", "scale": 0.05, "from_scale": 0.04,
                                   "out_scale": 0.08, "out_zp": 3, "out_unsigned": true,
                                   "activation": {"function": "gelu", "out_scale": 0.02}}},
                     {"name": "fc4", "n": 6,
                      "residual": {"from": "fc3", "scale": 0.1, "from_scale": 0.02,
                                   "out_scale": 0.1, "form": "seed-symmetric",
                                   "rounding": "floor", "overflow": "wrap"}}]})");
  const Residual& r = net.layers[2].residual;
  EXPECT_EQ(r.from, "fc1");
  EXPECT_EQ(r.form, golden::AddForm::kTfliteAsymmetric);
  EXPECT_EQ(r.out_zp, 3);
  EXPECT_TRUE(net.layers[2].out_unsigned() == false);  // the table's output, int8
  EXPECT_FALSE(net.layers[2].code_unsigned());
  EXPECT_EQ(ResidualFrom(net, 2), 0);
  const golden::AddParams p = ResidualAddParams(net, 2);
  EXPECT_EQ(p.a.zero_point, 0);  // fc3's own requant codes
  EXPECT_EQ(p.b.zero_point, 2);  // fc1's
  EXPECT_FALSE(p.y.is_signed);
  EXPECT_EQ(ResidualActivationTable(net.layers[2]).in().zero_point, 3);
  const Residual& s = net.layers[3].residual;
  EXPECT_EQ(s.form, golden::AddForm::kSeedSymmetric);
  EXPECT_EQ(s.rounding, golden::RoundingMode::kFloor);
  EXPECT_EQ(s.overflow, golden::IntermediateOverflow::kWrap);
  EXPECT_EQ(ResidualAddParams(net, 3).seed.rounding, golden::RoundingMode::kFloor);

  auto error = [](const std::string& residual, const std::string& more = "") {
    return ParseError(R"({"layers": [{"name": "a", "m": 4, "n": 6, "k": 5},
                                      {"name": "b", "n": 6)" +
                      more + R"(, "residual": )" + residual + R"(}]})");
  };
  const std::string ok = R"("scale": 0.05, "from_scale": 0.05, "out_scale": 0.1)";
  EXPECT_EQ(error(R"({"from": "a", )" + ok + "}"), "no error");
  EXPECT_EQ(error(R"({"from": "z", )" + ok + "}"),
            "net.json: layer 'b': residual.from = 'z' is not a layer of the network");
  EXPECT_EQ(error(R"({"from": "b", )" + ok + "}"),
            "net.json: layer 'b': residual.from = 'b' is this layer: a residual adds an earlier "
            "layer's output");
  EXPECT_EQ(ParseError(R"({"layers": [{"name": "a", "m": 4, "n": 6, "k": 5,
                                       "residual": {"from": "b", )" +
                       ok + R"(}}, {"name": "b", "n": 6}]})"),
            "net.json: layer 'a': residual.from = 'b' is a later layer: a residual adds an "
            "earlier layer's output");
  EXPECT_EQ(ParseError(R"({"layers": [{"name": "a", "m": 4, "n": 6, "k": 5},
                                       {"name": "b", "n": 7, "residual": {"from": "a", )" +
                       ok + R"(}}]})"),
            "net.json: layer 'b': residual.from = 'a': its output is 4 x 6, this layer's 4 x 7 "
            "(the add is elementwise)");
  EXPECT_EQ(error(R"({"from": "a", )" + ok + "}", R"(, "out_int32": true)"),
            "net.json: layer 'b': residual: not with out_int32 (the add takes int8 codes)");
  EXPECT_EQ(error(R"({"from": "a", )" + ok + "}",
                  R"(, "activation": {"function": "tanh", "in_scale": 1, "out_bits": 16})"),
            "net.json: layer 'b': residual: not with activation.out_bits = 16 (the add takes "
            "int8 codes)");
  EXPECT_EQ(error(R"({"from": "a", "form": "seed-symmetric", )" + ok + "}", R"(, "zp_out": 4)"),
            "net.json: layer 'b': residual.form = seed-symmetric needs zero points 0: this "
            "layer's output zero point (zp_out) is 4");
  EXPECT_EQ(error(R"({"from": "a", "form": "seed-symmetric", "out_zp": 1, )" + ok + "}"),
            "net.json: layer 'b': residual.form = seed-symmetric needs residual.out_zp = 0, not 1");
  EXPECT_EQ(error(R"({"from": "a", "scale": 0, "from_scale": 0.05, "out_scale": 0.1})"),
            "net.json: layer 'b': residual.scale = 0 must be positive and finite");
  EXPECT_EQ(error(R"({"from": "a", "scale": 0.05, "from_scale": -1, "out_scale": 0.1})"),
            "net.json: layer 'b': residual.from_scale = -1 must be positive and finite");
  EXPECT_EQ(error(R"({"from": "a", "scale": 0.05, "from_scale": 0.05})"),
            "net.json: layers[1].residual.out_scale is missing");
  EXPECT_EQ(error(R"({"from": "a", "out_zp": 200, )" + ok + "}"),
            "net.json: layer 'b': residual.out_zp = 200 is outside the sum's int8 codes' "
            "-128..127");
  EXPECT_EQ(error(R"({"from": "a", "form": "sum", )" + ok + "}"),
            "net.json: layers[1].residual.form = 'sum' is not one of seed-symmetric|tflite");
  EXPECT_EQ(error(R"({"from": "a", "rounding": "floor", )" + ok + "}"),
            "net.json: layers[1].residual.rounding is for form seed-symmetric only");
  EXPECT_EQ(error(R"({"from": "a", "form": "seed-symmetric", "overflow": "clip", )" + ok + "}"),
            "net.json: layers[1].residual.overflow = 'clip' is not one of saturate|wrap");
  EXPECT_EQ(error(R"({"from": "a", "form": "seed-symmetric", "scale": 20, "from_scale": 0.05,
                      "out_scale": 0.1})")
                .substr(0, 75),
            "net.json: layer 'b': residual: a.scale / y.scale: scale: 200 is out of rang");
  EXPECT_EQ(
      error(R"({"from": "a", "scale": 0.05, "from_scale": 0.05, "out_scale": 1e-9})").substr(0, 44),
      "net.json: layer 'b': residual: y.scale: 1e-0");
  EXPECT_EQ(
      error(R"({"from": "a", "activation": {"function": "tanh", "in_scale": 1}, )" + ok + "}"),
      "net.json: layers[1].residual.activation.in_scale is not used: the table's input is "
      "the sum, of scale residual.out_scale");
  EXPECT_EQ(
      error(R"({"from": "a", "activation": {"function": "tanh", "out_bits": 16}, )" + ok + "}"),
      "net.json: layer 'b': residual.activation.out_bits = 16 is not 8: the table's codes "
      "replace the sum in place (int8)");
  EXPECT_EQ(error(R"({"from": "a", "tile": 1, )" + ok + "}").substr(0, 50),
            "net.json: unknown key 'layers[1].residual.tile' (e");
}

// ---- Launches (data_movement.md 14.4)

golden::Descriptor WithTokens(golden::Descriptor d, bool wait, bool signal) {
  d[15] |= (wait ? 1u << 8 : 0u) | (signal ? 1u << 9 : 0u);
  return d;
}

// CutPoints against hand-counted tokens: a cut is legal only where every SIGNAL given so far has
// been taken, in both directions.
TEST(Launches, CutPointsAreWhereNoTokenIsOutstanding) {
  const golden::Descriptor load = golden::EncodeDma(golden::Op::kLoad, {}, {});
  const golden::Descriptor store = golden::EncodeDma(golden::Op::kStore, {}, {});
  const golden::Descriptor gemm = golden::EncodeGemm({}, {});
  const std::vector<golden::Descriptor> program = {
      WithTokens(load, false, true),   // 0: d2c 1
      WithTokens(load, false, false),  // 1
      WithTokens(gemm, true, true),    // 2: takes d2c, gives c2d
      WithTokens(gemm, false, false),  // 3
      WithTokens(store, true, false),  // 4: takes c2d
      WithTokens(gemm, false, false),  // 5
      WithTokens(load, false, true),   // 6: d2c 1 until the end
      WithTokens(gemm, false, false),  // 7
  };
  // The end of the program ends its last launch whatever it holds.
  EXPECT_EQ(CutPoints(program),
            (std::vector<bool>{true, false, false, false, false, true, true, false, true}));
}

// A program cut into launches of any length computes the same result: each launch is race free
// and ends without error, every boundary is a cut point, and only the last launch is short.
TEST(Launches, AnyLaunchLengthGivesTheSameResult) {
  std::mt19937 rng(144);
  int split = 0;
  for (const auto& config : {Tiny(4, 4), Tiny(8, 4), Config("default")}) {
    for (int trial = 0; trial < 6; ++trial) {
      Network net;
      const int layers = 1 + int(rng() % 3);
      int k = 1 + int(rng() % 40);
      for (int i = 0; i < layers; ++i) {
        const int n = 1 + int(rng() % 50);
        net.layers.push_back(
            RandomLayer(rng, "l" + std::to_string(i), 1 + int(rng() % 60), n, k, i + 1 == layers));
        if (i > 0) net.layers[size_t(i)].m = net.layers[0].m;
        k = n;
      }
      for (uint32_t max : {1u, 2u, 3u, 7u, 1u + uint32_t(rng() % 40)}) {
        CompileOptions options{trial % 2 == 0, trial % 3 != 0};
        options.max_launch_descriptors = max;
        const std::string what =
            config.name + " trial " + std::to_string(trial) + " max " + std::to_string(max);
        const Outcome o = CompileAndRun(config, net, options, rng);
        ExpectCorrect(o, what);
        const std::vector<bool> cut = CutPoints(o.program.descriptors);
        uint32_t next = 0;
        for (size_t l = 0; l < o.program.launches.size(); ++l) {
          const Launch& launch = o.program.launches[l];
          EXPECT_EQ(launch.first, next) << what;
          EXPECT_TRUE(cut[launch.first]) << what << ": launch " << l;
          EXPECT_EQ(launch.count, l + 1 == o.program.launches.size()
                                      ? o.program.descriptors.size() - launch.first
                                      : max)
              << what;
          EXPECT_LE(launch.count, max) << what;
          next += launch.count;
        }
        EXPECT_EQ(next, o.program.descriptors.size()) << what;
        split += o.program.launches.size() > 1;
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
  EXPECT_GT(split, 50);
}

// The limit itself: a GEMM with 65 535 descriptors is one launch, one with 65 536 is two (the
// second of one descriptor), and both compute the layer. M = 8 p rows at K = N = 8 on the default
// config gives p STOREs, ceil(p / 512) A loads and GEMMs and one B load.
TEST(Launches, AtTheQCountLimit) {
  const arch::ArchConfig config = Config("default");
  std::mt19937 rng(65535);
  for (const int descriptors : {65535, 65536}) {
    int lo = 65000, hi = 65600;  // row panels; the count grows with them
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (Compile(config, GemmNetwork(8 * mid, 8, 8)).descriptors.size() < size_t(descriptors)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    Network net = GemmNetwork(8 * lo, 8, 8);
    const Outcome o = CompileAndRun(config, net, {}, rng);
    ASSERT_EQ(o.program.descriptors.size(), size_t(descriptors)) << "M = " << 8 * lo;
    ExpectCorrect(o, std::to_string(descriptors) + " descriptors");
    if (descriptors == 65535) {
      ASSERT_EQ(o.program.launches.size(), 1u);
    } else {
      ASSERT_EQ(o.program.launches.size(), 2u);
      EXPECT_EQ(o.program.launches[1].first, 65535u);
      EXPECT_EQ(o.program.launches[1].count, 1u);
    }
  }
  CompileOptions options;
  for (uint32_t bad : {0u, 65536u}) {
    options.max_launch_descriptors = bad;
    EXPECT_THROW(Compile(config, GemmNetwork(8, 8, 8), options), std::invalid_argument) << bad;
  }
}

TEST(Network, ParseAndValidateNameTheField) {
  const Network net = ParseNetwork(
      R"({"name": "mlp", "layers": [{"name": "fc1", "m": 4, "n": 6, "k": 5, "scale": 0.5},
                                    {"name": "fc2", "n": 3, "out_int32": true}]})");
  ASSERT_EQ(net.layers.size(), 2u);
  EXPECT_EQ(net.layers[1].m, 4);
  EXPECT_EQ(net.layers[1].k, 6);
  EXPECT_EQ(net.layers[0].mult, 1 << 30);
  EXPECT_EQ(net.layers[0].shift, 0);
  auto error = [](const char* text) {
    try {
      ParseNetwork(text, "net.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(R"({"layers": [{"m": 0, "n": 1, "k": 1}]})"),
            "net.json: layers[0].m = 0 is outside 1..1048576");
  // Dimensions are never guessed: the first layer gives m, n and k, every layer its n.
  EXPECT_EQ(error(R"({"layers": [{"name": "fc1", "n": 4, "k": 5}]})"),
            "net.json: layers[0] ('fc1'): m is missing; the first layer gives m, n and k");
  EXPECT_EQ(error(R"({"layers": [{"m": 4, "n": 4}]})"),
            "net.json: layers[0] ('layer0'): k is missing; the first layer gives m, n and k");
  EXPECT_EQ(error(R"({"layers": [{"m": 4, "n": 4, "k": 2}, {"name": "b", "k": 4}]})"),
            "net.json: layers[1] ('b'): n is missing; every layer gives its n (output columns)");
  EXPECT_EQ(error(R"({"layers": [{"m": 1, "n": 1, "k": 1, "tile": 3}]})").substr(0, 35),
            "net.json: unknown key 'layers[0].ti");
  EXPECT_EQ(error(R"({"layers": [{"name": "a", "m": 2, "n": 3, "k": 1},
                                 {"name": "b", "k": 4, "n": 1}]})"),
            "net.json: layer 'b': k = 4 does not match the previous layer's n = 3");
  EXPECT_EQ(error(R"({"layers": [{"name": "a", "m": 2, "n": 3, "k": 1, "out_int32": true},
                                 {"name": "b", "n": 1}]})"),
            "net.json: layer 'a': out_int32 is allowed on the last layer only (the next layer "
            "reads int8)");
  EXPECT_EQ(error(R"({"layers": [{"m": 1, "n": 1, "k": 1, "mult": 5}]})"),
            "net.json: layer 'layer0': mult = 5 is outside 0 or 1073741824..2147483647");
  EXPECT_EQ(error(R"({"layers": []})"), "net.json: network: layers is empty");
  // Activations (lut.md 10.4).
  const Network act = ParseNetwork(
      R"({"layers": [{"name": "fc1", "m": 4, "n": 6, "k": 5, "clamp_min": 0, "clamp_max": 255,
                      "activation": {"function": "gelu", "in_scale": 0.05, "out_scale": 0.02,
                                     "out_zp": 3, "out_unsigned": true}}]})");
  EXPECT_EQ(act.layers[0].activation.function, "gelu");
  EXPECT_TRUE(act.layers[0].out_unsigned());
  EXPECT_EQ(ActivationTable(act.layers[0]).out().zero_point, 3);
  EXPECT_EQ(error(R"({"layers": [{"m": 1, "n": 1, "k": 1,
                                  "activation": {"function": "swish", "in_scale": 1}}]})")
                .substr(0, 68),
            "net.json: layer 'layer0': activation.function = 'swish' is not one o");
  EXPECT_EQ(error(R"({"layers": [{"m": 1, "n": 1, "k": 1, "activation": {"function": "tanh"}}]})"),
            "net.json: layers[0].activation.in_scale is missing (the requant code's scale)");
  EXPECT_EQ(error(R"({"layers": [{"m": 1, "n": 1, "k": 1, "clamp_max": 200,
                                  "activation": {"function": "tanh", "in_scale": 1}}]})"),
            "net.json: layer 'layer0': clamp_max = 200 is above 127: the activation's input is "
            "an int8 code");
  EXPECT_EQ(error(R"({"layers": [{"m": 1, "n": 1, "k": 1, "out_int32": true,
                                  "activation": {"function": "tanh", "in_scale": 1}}]})"),
            "net.json: layer 'layer0': an activation takes a requant code, not out_int32");
  EXPECT_EQ(error(R"({"layers": [{"m": 1, "n": 1, "k": 1,
                                  "activation": {"function": "tanh", "in_scale": 1, "out_zp": 2}}]})"),
            "net.json: layer 'layer0': activation.out_zp must be 0 with a derived out_scale "
            "(symmetric)");
  EXPECT_EQ(error(R"({"layers": [{"name": "a", "m": 1, "n": 1, "k": 1,
                                  "activation": {"function": "tanh", "in_scale": 1, "out_bits": 16}},
                                 {"name": "b", "n": 1}]})"),
            "net.json: layer 'a': activation.out_bits = 16 is allowed on the last layer only (the "
            "next layer reads int8)");
  EXPECT_EQ(error(R"({"layers": [{"m": 1, "n": 1, "k": 1,
                                  "activation": {"function": "tanh", "in_scale": 1, "out_bits": 12}}]})"),
            "net.json: layers[0].activation.out_bits = 12 is not 8 or 16");
}

// TPU-MLIR's requantization in a layer: its scale derived as TPU-MLIR derives it, its keys, their
// ranges, and the other form's keys refused.
TEST(Network, TpuMlirRequantParsesAndNamesTheField) {
  auto layer = [](const std::string& keys) {
    return ParseNetwork(R"({"layers": [{"m": 1, "n": 1, "k": 1, "requant": "tpu-mlir", )" + keys +
                        "}]}")
        .layers[0];
  };
  // The examples of golden/tpu_mlir.h: 0.3 is 76 >> 8 and 0.99 is 126 >> 7 with 8 bits.
  EXPECT_EQ(layer(R"("scale": 0.3)").mult, 76);
  EXPECT_EQ(layer(R"("scale": 0.3)").shift, 8);
  EXPECT_EQ(layer(R"("scale": 0.99)").mult, 126);
  const GemmLayer wide = layer(R"("scale": 0.3, "mult_bits": 32, "rshift_rounding": "down")");
  EXPECT_EQ(wide.mult, golden::tpu_mlir::RShiftAndMultiplierFromQScale(0.3, INT32_MAX).multiplier);
  EXPECT_EQ(wide.rshift_rounding, golden::tpu_mlir::Rounding::kDown);
  // The defaults: scale 0.5 as TPU-MLIR derives it for the width, half_up.
  const GemmLayer def = layer(R"("mult_bits": 16)");
  EXPECT_EQ(def.mult, 1 << 14);
  EXPECT_EQ(def.shift, 15);
  EXPECT_EQ(def.rshift_rounding, golden::tpu_mlir::Rounding::kHalfUp);
  EXPECT_EQ(layer(R"("mult": -128, "rshift": 63)").mult, -128);
  const std::string head = R"({"layers": [{"m": 1, "n": 1, "k": 1, )";
  auto error = [&](const std::string& keys) { return ParseError(head + keys + "}]}"); };
  EXPECT_EQ(error(R"("requant": "tpu-mlir", "mult": 128, "rshift": 3)"),
            "net.json: layer 'layer0': mult = 128 is outside -128..127");
  EXPECT_EQ(error(R"("requant": "tpu-mlir", "mult": -32769, "mult_bits": 16)"),
            "net.json: layer 'layer0': mult = -32769 is outside -32768..32767");
  EXPECT_EQ(error(R"("requant": "tpu-mlir", "rshift": 64)"),
            "net.json: layers[0].rshift = 64 is outside 0..63");
  EXPECT_EQ(error(R"("requant": "tpu-mlir", "mult_bits": 12)"),
            "net.json: layer 'layer0': mult_bits = 12 is not 8, 16 or 32");
  EXPECT_EQ(error(R"("requant": "tpu-mlir", "rshift_rounding": "odd")").substr(0, 58),
            "net.json: layers[0].rshift_rounding must be one of half_aw");
  EXPECT_EQ(error(R"("requant": "tpu", "scale": 0.5)"),
            "net.json: layers[0].requant must be \"tflite\" or \"tpu-mlir\"");
  EXPECT_EQ(error(R"("requant": "tpu-mlir", "shift": 3)"),
            "net.json: layers[0].shift is TFLite's: not with requant \"tpu-mlir\"");
  EXPECT_EQ(error(R"("requant": "tpu-mlir", "single_rounding": true)"),
            "net.json: layers[0].single_rounding is TFLite's: not with requant \"tpu-mlir\"");
  EXPECT_EQ(error(R"("rshift": 3)"),
            "net.json: layers[0].rshift is TPU-MLIR's: not with requant \"tflite\"");
  EXPECT_EQ(error(R"("requant": "tpu-mlir", "scale": 0.5, "rshift": 3)"),
            "net.json: layers[0]: give either scale or mult and rshift, not both");
  EXPECT_EQ(error(R"("requant": "tpu-mlir", "scale": -0.5)"),
            "net.json: layers[0].scale: -0.5 is not a finite scale >= 0");
}

}  // namespace
}  // namespace qacc::compiler
