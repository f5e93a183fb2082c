#include "sim/cosim/program_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "compiler/compiler.h"
#include "model/descriptor.h"
#include "model/srams.h"

namespace qacc::cosim {

namespace {

// An rq SRAM image in golden's form: its undefined bits 0.
void NormalizeRq(std::vector<uint8_t>& rq) {
  for (size_t at = 0; at < rq.size(); ++at) rq[at] &= SramDefinedBits(arch::Region::kRq, at);
}

// The first differing byte of two images and how many differ; empty when equal.
std::string Difference(const std::vector<uint8_t>& want, const std::vector<uint8_t>& got,
                       size_t* first) {
  if (want.size() != got.size()) return fmt::format("sizes {} and {}", want.size(), got.size());
  if (std::memcmp(want.data(), got.data(), want.size()) == 0) return {};  // the common case, fast
  const auto it = std::mismatch(want.begin(), want.end(), got.begin());
  if (it.first == want.end()) return {};
  *first = size_t(it.first - want.begin());
  size_t count = 0;
  for (size_t i = *first; i < want.size(); ++i) count += want[i] != got[i];
  return fmt::format("{} bytes differ", count);
}

std::string Difference(const golden::MemoryImage& want, const golden::MemoryImage& got,
                       size_t* first) {
  if (want.size() != got.size()) return fmt::format("sizes {} and {}", want.size(), got.size());
  uint64_t count = 0;
  const std::optional<uint64_t> at = golden::FirstDifference(want, got, &count);
  if (!at) return {};
  *first = size_t(*at);
  return fmt::format("{} bytes differ", count);
}

}  // namespace

golden::MachineState GoldenState(const arch::ArchConfig& config, const model::AccelState& state) {
  golden::MachineState g(compiler::GeometryOf(config), 0);
  for (const arch::SramInfo& s : arch::kSrams) g.sram(s.id) = state.srams().image(s.id);
  NormalizeRq(g.rq);
  g.ext = state.ext_memory().image();
  const auto& slope = state.command_registers().slope_regs;
  for (size_t i = 0; i < slope.size(); ++i) {
    g.unit_registers[arch::reg::kSlopePosMult + 4 * uint32_t(i)] = slope[i];
  }
  return g;
}

void CheckProgramAgainstGolden(const arch::ArchConfig& config, const sim::ProgramCommand& command,
                               int index, golden::MachineState initial,
                               const model::AccelState& state, int64_t cycle,
                               Scoreboard& scoreboard) {
  Mismatch m;
  m.cycle = cycle;
  m.unit = CheckUnitName(CheckUnit::kProgram);
  m.command = index;
  auto record = [&](std::string what, std::string expected, std::string actual) {
    m.what = std::move(what);
    m.expected = std::move(expected);
    m.actual = std::move(actual);
    scoreboard.Record(CheckUnit::kProgram, m);
  };
  const auto& launch = state.last_program();
  if (!launch || !launch->ended) {
    record("program end", "the program has ended", "no ended program in the model");
    return;
  }
  const golden::ProgramResult want =
      golden::RunQueue(compiler::GeometryOf(config), command.q_base, command.q_count, initial);
  const auto want_error = static_cast<arch::ErrCode>(want.error);
  const model::ProgramRunResult& got = launch->result;
  if (want_error != command.expected_error) {
    record("program verdict (test generator vs golden)", arch::ErrCodeName(command.expected_error),
           arch::ErrCodeName(want_error));
  }
  if (got.error != want_error || got.error_index != want.error_index) {
    record("program error and Q_ERR_INDEX vs golden",
           fmt::format("{} at {}", arch::ErrCodeName(want_error), want.error_index),
           fmt::format("{} at {}", arch::ErrCodeName(got.error), got.error_index));
  }
  if (want_error == arch::ErrCode::kExtFault) return;  // 14.3: the memories depend on timing
  if (got.retired != uint32_t(want.retired)) {
    record("Q_RETIRED vs golden", std::to_string(want.retired), std::to_string(got.retired));
  }
  // The registers the program's SETs wrote (requant.md 6.2); the RTL's are the bus reads'.
  const golden::SlopeRegisters want_slope = initial.slope_registers();
  const auto& got_slope = state.command_registers().slope_regs;
  for (size_t i = 0; i < want_slope.size(); ++i) {
    if (want_slope[i] != got_slope[i]) {
      record(fmt::format("slope register {} vs golden", i), fmt::format("{:#x}", want_slope[i]),
             fmt::format("{:#x}", got_slope[i]));
    }
  }
  for (const arch::SramInfo& s : arch::kSrams) {
    std::vector<uint8_t> image = state.srams().image(s.id);
    if (s.id == arch::Region::kRq) NormalizeRq(image);
    size_t first = 0;
    const std::string diff = Difference(initial.sram(s.id), image, &first);
    if (diff.empty()) continue;
    record(fmt::format("{} SRAM vs golden: {}, the first at byte {:#x}", s.name, diff, first),
           fmt::format("{:#04x}", initial.sram(s.id)[first]), fmt::format("{:#04x}", image[first]));
  }
  size_t first = 0;
  const std::string diff = Difference(initial.ext, state.ext_memory().image(), &first);
  if (!diff.empty()) {
    record(fmt::format("external memory vs golden: {}, the first at {:#x}", diff, first),
           fmt::format("{:#04x}", initial.ext[first]),
           fmt::format("{:#04x}", state.ext_memory().image()[first]));
  }
}

void CompareExtImages(const golden::MemoryImage& rtl, const golden::MemoryImage& model,
                      int64_t cycle, int command, Scoreboard& scoreboard) {
  size_t first = 0;
  const std::string diff = Difference(model, rtl, &first);
  if (diff.empty()) return;
  Mismatch m;
  m.cycle = cycle;
  m.unit = CheckUnitName(CheckUnit::kExtMem);
  m.command = command;
  m.what = fmt::format("external memory image: {}, the first at {:#x}", diff, first);
  m.expected = first < model.size() ? fmt::format("{:#04x}", model[first]) : "";
  m.actual = first < rtl.size() ? fmt::format("{:#04x}", rtl[first]) : "";
  scoreboard.Record(CheckUnit::kExtMem, m);
}

void CompareSrams(const arch::ArchConfig& config, const model::Srams& model, const Dut& dut,
                  int64_t cycle, std::vector<uint8_t>& scratch, Scoreboard& scoreboard) {
  for (const arch::SramInfo& sram : arch::kSrams) {
    const std::vector<uint8_t>& want = model.image(sram.id);
    const size_t word_bytes = model::SramWordBytes(config, uint8_t(sram.id));
    const int copies = dut.SramCopies(sram.id);
    for (int copy = 0; copy < copies; ++copy) {  // every copy holds the whole SRAM (lut.md 10.2)
      scratch.assign(want.size(), 0);
      dut.ReadSram(sram.id, copy, scratch);
      for (size_t w = 0; w < want.size() / word_bytes; ++w) {
        for (size_t j = 0; j < word_bytes; ++j) {
          const size_t at = w * word_bytes + j;
          const uint8_t mask = SramDefinedBits(sram.id, j);
          if (((want[at] ^ scratch[at]) & mask) == 0) continue;
          Mismatch m;
          m.cycle = cycle;
          m.unit = CheckUnitName(CheckUnit::kSram);
          m.what = copies > 1
                       ? fmt::format("{} SRAM copy {} word {:#x} byte {}", sram.name, copy, w, j)
                       : fmt::format("{} SRAM word {:#x} byte {}", sram.name, w, j);
          m.expected = fmt::format("{:#04x}", want[at] & mask);
          m.actual = fmt::format("{:#04x}", scratch[at] & mask);
          scoreboard.Record(CheckUnit::kSram, m);
          break;
        }
      }
    }
  }
}

}  // namespace qacc::cosim
