#include "sim/cosim/transactor.h"

#include <algorithm>

namespace qacc::cosim {

OutRange OutputRange(const arch::ArchConfig& config, const model::GemmJob& job) {
  const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k);
  // Only words inside the output SRAM are read back: a command that does not fit is rejected by
  // the accelerator (OUT_RANGE), and the reads past the SRAM would only get pslverr.
  const int64_t base = std::min<int64_t>(job.out_base, config.out_depth);
  const int64_t words = std::min(arch::OutWords(timing.T(), config.rows, job.out_raw),
                                 int64_t{config.out_depth} - base);
  OutRange range;
  range.first_byte = static_cast<uint32_t>(base * config.out_word_bytes());
  range.bytes = static_cast<uint32_t>(words * config.out_word_bytes());
  return range;
}

const std::vector<ReadRegister>& ReadRegisters() {
  namespace reg = arch::reg;
  static const std::vector<ReadRegister> registers = {
      {reg::kStatus, "STATUS"},
      {reg::kPerfCycles, "PERF_CYCLES"},
      {reg::kPerfMacBusy, "PERF_MAC_BUSY"},
      {reg::kPerfRqBusy, "PERF_RQ_BUSY"},
      {reg::kPerfOutWrites, "PERF_OUT_WRITES"},
      {reg::kPerfFeedStall, "PERF_FEED_STALL"},
      {reg::kPerfLutBusy, "PERF_LUT_BUSY"},
      {reg::kPerfSmxBusy, "PERF_SMX_BUSY"},
      {reg::kPerfCmdCount, "PERF_CMD_COUNT"},
      {reg::kCtrl, "CTRL"},
      {reg::kId, "ID"},
      {reg::kVersion, "VERSION"},
      {reg::kHwRows, "HW_ROWS"},
      {reg::kHwCols, "HW_COLS"},
      {reg::kHwADepth, "HW_A_DEPTH"},
      {reg::kHwBDepth, "HW_B_DEPTH"},
      {reg::kHwBiasDepth, "HW_BIAS_DEPTH"},
      {reg::kHwRqDepth, "HW_RQ_DEPTH"},
      {reg::kHwOutDepth, "HW_OUT_DEPTH"},
      {reg::kHwUnits, "HW_UNITS"},
      {reg::kHwLatency, "HW_LATENCY"},
  };
  return registers;
}

std::string ReadRegisterName(uint32_t addr) {
  for (const ReadRegister& reg : ReadRegisters()) {
    if (arch::kRegsBase + reg.offset == addr) return reg.name;
  }
  return "register";
}

std::vector<BusOp> HostProgram(const arch::ArchConfig& config, const model::GemmJob& job) {
  std::vector<BusOp> program;
  auto add_writes = [&program](const std::vector<model::BusWrite>& writes) {
    for (const model::BusWrite& w : writes) {
      program.push_back({BusOp::Kind::kWrite, w.addr, w.data, w.strobe});
    }
  };
  add_writes(model::PackOperands(config, job));
  add_writes(model::CommandWrites(job));
  program.push_back({BusOp::Kind::kStart, arch::kRegsBase + arch::reg::kCtrl, arch::kCtrlStart});
  program.push_back({BusOp::Kind::kWaitDone});
  // Every readable register after the command, each compared with the model's: STATUS, all perf
  // counters (the reserved ones read 0), and the identification registers.
  for (const ReadRegister& reg : ReadRegisters()) {
    program.push_back({BusOp::Kind::kRead, arch::kRegsBase + reg.offset});
  }
  const OutRange range = OutputRange(config, job);
  for (uint32_t off = 0; off < range.bytes; off += 4) {
    program.push_back({BusOp::Kind::kReadOut, arch::kOutBase + range.first_byte + off});
  }
  return program;
}

}  // namespace qacc::cosim
