#include "sim/cosim/dut.h"

#include <fmt/format.h>

#include <stdexcept>

namespace qacc::cosim {

// One factory per build (generated rtl_variant_<name>.cc files).
#define QACC_COSIM_VARIANT(name, config, traced, coverage, mutants, rows, cols, a, b, bias, rq, \
                           out, lut, d, outstanding)                                            \
  std::unique_ptr<Dut> MakeDut_##name(const DutVariant& variant, int64_t mutant,                \
                                      uint64_t power_on_seed, const ExtMemSettings& ext);
#include "rtl_variants.inc"
#undef QACC_COSIM_VARIANT

namespace {

using Factory = std::unique_ptr<Dut> (*)(const DutVariant&, int64_t, uint64_t, const ExtMemSettings&);

struct Entry {
  DutVariant variant;
  Factory factory;
};

const std::vector<Entry>& Entries() {
  static const std::vector<Entry> entries = {
#define QACC_COSIM_VARIANT(name, config, traced, coverage, mutants, rows, cols, a, b, bias, rq,  \
                           out, lut, d, outstanding)                                             \
  {{#name, config, traced != 0, coverage != 0, mutants, rows, cols, a, b, bias, rq, out, lut, d, \
    outstanding},                                                                                \
   &MakeDut_##name},
#include "rtl_variants.inc"
#undef QACC_COSIM_VARIANT
  };
  return entries;
}

bool Matches(const DutVariant& v, const arch::ArchConfig& c) {
  return v.rows == c.rows && v.cols == c.cols && v.a_depth == c.a_depth && v.b_depth == c.b_depth &&
         v.bias_depth == c.bias_depth && v.rq_depth == c.rq_depth && v.out_depth == c.out_depth &&
         v.lut_slots == c.lut_slots && v.data_bytes == c.mem_data_bytes &&
         v.max_outstanding == c.mem_max_outstanding;
}

}  // namespace

std::string DutVariant::Describe() const {
  return fmt::format("{} ({}x{}, A {}, B {}, bias {}, rq {}, out {}, {} LUT slots, D {}, {} reads)",
                     name, rows, cols, a_depth, b_depth, bias_depth, rq_depth, out_depth, lut_slots,
                     data_bytes, max_outstanding);
}

ExtMemSettings ExtMemSettingsOf(const arch::ArchConfig& config) {
  ExtMemSettings s;
  s.size_bytes = config.ext_mem_size_bytes;
  s.timing = model::ExtMemoryTimingOf(config);
  return s;
}

const std::vector<DutVariant>& DutVariants() {
  static const std::vector<DutVariant> variants = [] {
    std::vector<DutVariant> v;
    for (const Entry& e : Entries()) v.push_back(e.variant);
    return v;
  }();
  return variants;
}

const DutVariant& FindVariant(const arch::ArchConfig& config, bool traced) {
  std::string available;
  for (const Entry& e : Entries()) {
    if (Matches(e.variant, config) && e.variant.traced == traced) return e.variant;
    if (!e.variant.traced) available += (available.empty() ? "" : "; ") + e.variant.Describe();
  }
  throw std::invalid_argument(fmt::format(
      "--config: no Verilated qacc_top{} matches config '{}' ({}x{}, A {}, B {}, bias {}, rq {}, "
      "out {}, D {}, {} reads); RTL parameters are fixed at build time, available builds: {}",
      traced ? " with tracing" : "", config.name, config.rows, config.cols, config.a_depth,
      config.b_depth, config.bias_depth, config.rq_depth, config.out_depth, config.mem_data_bytes,
      config.mem_max_outstanding, available));
}

void CheckMutant(const DutVariant& variant, int64_t mutant) {
  if (mutant == 0) return;
  if (variant.mutants == 0) {
    throw std::invalid_argument(fmt::format(
        "--mutant: the RTL build {} is the design as written, not a mutant schemata; only 0 is allowed "
        "(qacc validate builds a schemata)", variant.name));
  }
  if (mutant < 0 || mutant > variant.mutants) {
    throw std::invalid_argument(fmt::format("--mutant: {} is out of range: the RTL build {} has mutants 1..{} "
                                            "(0: the design as written)", mutant, variant.name, variant.mutants));
  }
}

std::unique_ptr<Dut> MakeDut(const DutVariant& variant, int64_t mutant, uint64_t power_on_seed,
                             const ExtMemSettings& ext) {
  CheckMutant(variant, mutant);
  if (ext.timing.data_bytes != variant.data_bytes) {
    throw std::invalid_argument(fmt::format("external memory of {}-byte beats for the RTL build {}",
                                            ext.timing.data_bytes, variant.Describe()));
  }
  for (const Entry& e : Entries()) {
    if (e.variant.name == variant.name) return e.factory(variant, mutant, power_on_seed, ext);
  }
  throw std::logic_error("unknown RTL build " + variant.name);
}

}  // namespace qacc::cosim
