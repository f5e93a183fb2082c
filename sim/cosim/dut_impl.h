// Dut on one Verilated qacc_top class (included only by the generated rtl_variant_<name>.cc files).
#ifndef QACC_SIM_COSIM_DUT_IMPL_H_
#define QACC_SIM_COSIM_DUT_IMPL_H_

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "sim/cosim/axi_bridge.h"
#include "sim/cosim/dut.h"
#include "sim/cosim/monitor_sample.h"
#include "sim/testgen/rng.h"
#include "verilated.h"
#include "verilated_cov.h"
#include "verilated_fst_c.h"

namespace qacc::cosim {

template <typename VTop, bool kTraced, bool kCoverage>
class DutImpl final : public Dut {
 public:
  DutImpl(const DutVariant& variant, int64_t mutant, uint64_t power_on_seed, const ExtMemSettings& ext)
      : variant_(variant),
        context_(std::make_unique<VerilatedContext>()),
        memory_(ext.size_bytes, ext.timing),
        bridge_(memory_, ext.timing.data_bytes) {
    if constexpr (kTraced) context_->traceEverOn(true);
    // Verilated with --x-initial unique: the constructor draws every variable's power-on value from
    // the context's generator (mode 2: random; 0: zeros). Verilator takes a non-zero int seed.
    // Coverage builds power on with zeros, so that a toggle counts a change the design made, not the
    // power-on draw (which would toggle nearly every bit once).
    if (power_on_seed != 0 && !kCoverage) {
      context_->randReset(2);
      context_->randSeed(static_cast<int>(sim::Rng(power_on_seed).Next() & 0x7FFFFFFF) | 1);
    }
    // A mutant schemata reads its selector with $value$plusargs in an initial block (docs/validate.md);
    // Verilator aborts a plusargs read without command arguments, so every build gets them.
    const std::string plusarg = "+qacc_mutant=" + std::to_string(mutant);
    const char* argv[] = {"qacc", plusarg.c_str()};
    context_->commandArgs(2, argv);
    top_ = std::make_unique<VTop>(context_.get(), "qacc_top");
    // mon_dma_be_o has a bit per byte of the widest SRAM word: qacc_top's WordBytesMax and
    // DmaPortBytes, both from the spec's SRAM list (Verilator rounds a port up to whole words).
    const int be_bits = int(sizeof(top_->mon_dma_be_o)) * 8,
              port_bytes = DmaPortBytes(variant.rows, variant.cols);
    if (be_bits < port_bytes || be_bits >= port_bytes + 32) {
      throw std::logic_error("RTL build " + variant.name + ": mon_dma_be_o has " +
                             std::to_string(be_bits) + " bits, not the widest SRAM word's " +
                             std::to_string(port_bytes) + " bytes");
    }
    auto& root = *top_->rootp;
    ZeroWords(root.qacc_top__DOT__u_a_sram__DOT__u_sram__DOT__mem_q);
    ZeroWords(root.qacc_top__DOT__u_b_sram__DOT__u_sram__DOT__mem_q);
    ZeroWords(root.qacc_top__DOT__u_bias_sram__DOT__u_sram__DOT__mem_q);
    ZeroWords(root.qacc_top__DOT__u_rq_sram__DOT__u_sram__DOT__mem_q);
    ZeroWords(root.qacc_top__DOT__u_out_sram__DOT__u_sram__DOT__mem_q);
    ZeroWords(root.qacc_top__DOT__u_lut_sram__DOT__mem_q);  // every copy
    top_->clk_i = 0;
    top_->rst_ni = 1;
    // Settle with reset released, so that the first SetReset(true) is a falling edge of rst_ni that
    // clears the control flops at once, not only at the first rising clock edge.
    top_->eval();
  }
  ~DutImpl() override {
    CloseTrace();
    top_->final();
  }

  const DutVariant& variant() const override { return variant_; }
  void SetReset(bool asserted) override { top_->rst_ni = asserted ? 0 : 1; }
  void PulseResetWithoutClock() override {
    top_->clk_i = 0;
    top_->rst_ni = 0;
    top_->eval();
    top_->rst_ni = 1;
    top_->eval();
    // The assertions' past samples (Verilator variables, random at power-on like the flops) have seen
    // no clock edge yet: the first edge checks nothing.
    mute_assertions_ = true;
  }
  void SetApb(const ApbPins& pins) override {
    top_->apb_psel_i = pins.psel;
    top_->apb_penable_i = pins.penable;
    top_->apb_pwrite_i = pins.pwrite;
    top_->apb_paddr_i = pins.paddr;
    top_->apb_pwdata_i = pins.pwdata;
    top_->apb_pstrb_i = pins.pstrb;
  }

  void Cycle(int64_t cycle, RtlSample& s) override {
    VTop& top = *top_;
    top.clk_i = 0;
    bridge_.BeforeEval(top);
    top.eval();
    if constexpr (kTraced) {
      if (tracing_) trace_->dump(static_cast<uint64_t>(cycle) * kPeriodPs);
    }
    SampleOutputs(top, variant_.rows, variant_.cols, s);
    bridge_.AfterEval(top);
    s.axi = bridge_.master();
    s.axi_in = bridge_.slave();
    top.clk_i = 1;
    if (mute_assertions_) context_->assertOn(false);
    top.eval();
    if (mute_assertions_) {
      context_->assertOn(true);
      mute_assertions_ = false;
    }
    if constexpr (kTraced) {
      if (tracing_) trace_->dump(static_cast<uint64_t>(cycle) * kPeriodPs + kPeriodPs / 2);
    }
  }

  void BindThread() override { Verilated::threadContextp(context_.get()); }

  model::ExtMemory& ext_memory() override { return memory_; }
  const model::AxiMasterOut& axi_master() const override { return bridge_.master(); }

  int SramCopies(arch::Region region) const override {
    return region == arch::Region::kLut ? (variant_.cols + 1) / 2 : 1;
  }

  void ReadSram(arch::Region region, int copy, std::vector<uint8_t>& image) const override {
    const auto& root = *top_->rootp;
    if (copy < 0 || copy >= SramCopies(region)) {
      throw std::logic_error("Dut::ReadSram: no copy " + std::to_string(copy));
    }
    switch (region) {
      case arch::Region::kA:
        return CopyWords(root.qacc_top__DOT__u_a_sram__DOT__u_sram__DOT__mem_q, image);
      case arch::Region::kB:
        return CopyWords(root.qacc_top__DOT__u_b_sram__DOT__u_sram__DOT__mem_q, image);
      case arch::Region::kBias:
        return CopyWords(root.qacc_top__DOT__u_bias_sram__DOT__u_sram__DOT__mem_q, image);
      case arch::Region::kRq:
        return CopyWords(root.qacc_top__DOT__u_rq_sram__DOT__u_sram__DOT__mem_q, image);
      case arch::Region::kOut:
        return CopyWords(root.qacc_top__DOT__u_out_sram__DOT__u_sram__DOT__mem_q, image);
      case arch::Region::kLut:
        return CopyWords(root.qacc_top__DOT__u_lut_sram__DOT__mem_q[size_t(copy)], image);
      default:
        throw std::logic_error("Dut::ReadSram: region has no SRAM");
    }
  }

  void OpenTrace(const std::string& path) override {
    if constexpr (kTraced) {
      trace_ = std::make_unique<VerilatedFstC>();
      top_->trace(trace_.get(), 99);
      trace_->open(path.c_str());
      if (!trace_->isOpen()) {
        trace_.reset();
        throw std::runtime_error("cannot open " + path + " for writing");
      }
    } else {
      throw std::logic_error("RTL build " + variant_.name + " has no tracing (--trace-fst)");
    }
  }
  void SetTracing(bool on) override { tracing_ = on && trace_ != nullptr; }
  void CloseTrace() override {
    if constexpr (kTraced) {
      if (trace_) {
        trace_->close();
        trace_.reset();
      }
    }
    tracing_ = false;
  }

  void WriteCoverage(const std::string& path) const override {
    if constexpr (kCoverage) {
      context_->coveragep()->write(path.c_str());
    } else {
      throw std::logic_error("RTL build " + variant_.name + " has no coverage (--coverage)");
    }
  }

 private:
  // An SRAM array (Verilator keeps words of up to 64 bits as integers, wider ones as VlWide) as
  // its window image: word w, byte j at w * word_bytes + j (lane 0 in the lowest bytes).
  template <typename Array>
  static void CopyWords(const Array& mem, std::vector<uint8_t>& image) {
    const size_t depth = sizeof(mem) / sizeof(mem[0]);
    const size_t word_bytes = image.size() / depth;
    for (size_t w = 0; w < depth; ++w) {
      for (size_t j = 0; j < word_bytes; j += 4) {
        const uint32_t v = PortWord(mem[w], static_cast<int>(j / 4));
        for (size_t b = 0; b < 4 && j + b < word_bytes; ++b) {
          image[w * word_bytes + j + b] = static_cast<uint8_t>(v >> (8 * b));
        }
      }
    }
  }

  template <typename Array>
  static void ZeroWords(Array& mem) {
    const size_t depth = sizeof(mem) / sizeof(mem[0]);
    for (size_t w = 0; w < depth; ++w) mem[w] = {};
  }

  static constexpr uint64_t kPeriodPs = 1000;  // Verilator's default time unit is 1 ps

  DutVariant variant_;
  std::unique_ptr<VerilatedContext> context_;
  model::ExtMemory memory_;
  AxiBridge bridge_;
  std::unique_ptr<VTop> top_;
  // The FST writer only in traced builds: an untraced variant must not need Verilator's FST runtime
  // (a build without traced variants does not link it).
  struct NoTrace {};
  std::unique_ptr<std::conditional_t<kTraced, VerilatedFstC, NoTrace>> trace_;
  bool tracing_ = false;
  bool mute_assertions_ = false;
};

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_DUT_IMPL_H_
