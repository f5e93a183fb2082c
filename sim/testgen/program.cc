#include "sim/testgen/program.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace qacc::sim {

const std::vector<NamedRegister>& ReadableRegisters() {
  // Every register of the generated spec table reads back (write-only bits read 0).
  static const std::vector<NamedRegister> registers = [] {
    std::vector<NamedRegister> v;
    for (const arch::RegisterInfo& info : arch::kRegisters) v.push_back({info.offset, info.name});
    return v;
  }();
  return registers;
}

std::string RegisterName(uint32_t addr) {
  for (const NamedRegister& reg : ReadableRegisters()) {
    if (arch::kRegsBase + reg.offset == addr) return reg.name;
  }
  return fmt::format("address {:#08x}", addr);
}

OutRange OutputRange(const arch::ArchConfig& config, const model::GemmJob& job) {
  const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k);
  // Only words inside the output SRAM are read back: a command that does not fit is rejected by
  // the accelerator (OUT_RANGE), and the reads past the SRAM would only get pslverr.
  const int64_t base = std::min<int64_t>(job.out_base, config.out_depth);
  const int64_t words =
      std::min(arch::OutWords(timing.T(), config.rows, arch::OutLayoutOf(model::ToCommand(job))),
               int64_t{config.out_depth} - base);
  OutRange range;
  range.first_byte = static_cast<uint32_t>(base * config.out_word_bytes());
  range.bytes = static_cast<uint32_t>(words * config.out_word_bytes());
  return range;
}

std::string DescribeCommand(const arch::ArchConfig& config, const model::GemmJob& job) {
  const arch::Command cmd = model::ToCommand(job);
  const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k, cmd.lut());
  std::string text = fmt::format("GEMM M={} N={} K={} mode={:#x} (T={} tiles, P={}, E={}; ", job.m,
                                 job.n, job.k, cmd.mode, timing.T(), timing.P(), timing.E());
  text += job.out_raw ? "int32 out" : cmd.lut() ? "LUT" : "int8 out";
  if (job.lut) {
    text += fmt::format(" {} in slot {} ({} -> {} bits, {} out)", job.lut->function_name(),
                        job.lut_slot, cmd.lut_in_bits(), cmd.lut_entry_bits(),
                        cmd.lut_entry_bits() == 16 ? "int16" : "int8");
  }
  if (!job.out_raw) {
    text += cmd.single_rounding() ? ", single rounding" : ", double rounding";
    text += cmd.per_channel()
                ? ", per-channel"
                : fmt::format(", mult {} shift {}", cmd.mult, arch::ShiftValue(cmd.shift));
    text += fmt::format(", zp_out {}, clamp [{}, {}]", cmd.zp_out, cmd.clamp_min, cmd.clamp_max);
  }
  text += fmt::format(", a_zp {} b_zp {}{}{}{})", arch::ZpA(cmd.zp_ab), arch::ZpB(cmd.zp_ab),
                      cmd.a_unsigned() ? ", A uint8" : "", cmd.b_unsigned() ? ", B uint8" : "",
                      cmd.bias_en() ? ", bias" : "");
  return text;
}

int ProgramBuilder::AddJob(const model::GemmJob& job) {
  program_.jobs.push_back(job);
  return static_cast<int>(program_.jobs.size()) - 1;
}

void ProgramBuilder::LoadOperands(int job) {
  for (const model::BusWrite& w : model::PackOperands(config_, program_.jobs[size_t(job)])) {
    Write(w.addr, w.data, w.strobe);
  }
}

void ProgramBuilder::WriteCommand(int job) {
  for (const model::BusWrite& w : model::CommandWrites(program_.jobs[size_t(job)])) {
    Write(w.addr, w.data, w.strobe);
  }
}

void ProgramBuilder::WriteCommandRegisters(const arch::Command& cmd) {
  for (const model::BusWrite& w : model::CommandWrites(cmd)) Write(w.addr, w.data, w.strobe);
}

int ProgramBuilder::AddLaunch(ProgramCommand command, uint32_t ctrl, bool irq_enable) {
  const int index = static_cast<int>(program_.commands.size());
  program_.commands.push_back(std::move(command));
  HostOp op;
  op.kind = HostOp::Kind::kStart;
  op.addr = arch::kRegsBase + arch::reg::kCtrl;
  op.data = ctrl | (irq_enable ? arch::kCtrlIrqEn : 0u);
  op.index = index;
  program_.ops.push_back(op);
  return index;
}

int ProgramBuilder::Start(int job, arch::ErrCode error, const std::string& description,
                          bool irq_enable) {
  return AddLaunch({job, error, description}, arch::kCtrlStart, irq_enable);
}

void ProgramBuilder::Launch(int job, bool irq_enable) {
  Start(job, arch::ErrCode::kNone, DescribeCommand(config_, program_.jobs[size_t(job)]),
        irq_enable);
  WaitDone();
}

void ProgramBuilder::LaunchIllegal(arch::ErrCode error, const std::string& description,
                                   bool irq_enable) {
  Start(-1, error, description, irq_enable);
  WaitDone();
}

void ProgramBuilder::WaitDone() { program_.ops.push_back({HostOp::Kind::kWaitDone}); }

void ProgramBuilder::ReadRegisters() {
  for (const NamedRegister& reg : ReadableRegisters()) Read(arch::kRegsBase + reg.offset);
}

void ProgramBuilder::ReadBackOutput(int job) {
  const OutRange range = OutputRange(config_, program_.jobs[size_t(job)]);
  for (uint32_t off = 0; off < range.bytes; off += 4) {
    HostOp op;
    op.kind = HostOp::Kind::kReadOut;
    op.addr = arch::kOutBase + range.first_byte + off;
    op.index = job;
    program_.ops.push_back(op);
  }
  HostOp check;
  check.kind = HostOp::Kind::kCheckOutput;
  check.index = job;
  program_.ops.push_back(check);
}

void ProgramBuilder::CheckSrams() { program_.ops.push_back({HostOp::Kind::kCheckSrams}); }

void ProgramBuilder::WriteExt(uint32_t addr, std::vector<uint8_t> bytes) {
  HostOp op;
  op.kind = HostOp::Kind::kExtWrite;
  op.index = static_cast<int>(program_.ext_blobs.size());
  program_.ext_blobs.push_back({addr, std::move(bytes)});
  program_.ops.push_back(op);
}

int ProgramBuilder::Run(uint32_t q_base, uint32_t q_count, arch::ErrCode error,
                        const std::string& description, bool irq_enable) {
  // Q_COUNT keeps 16 bits: a longer program would run as its count modulo 2^16 (14.4).
  if (q_count > arch::kMaxQCount) {
    throw std::invalid_argument(fmt::format(
        "a launch of {} descriptors: Q_COUNT holds at most {}; split the program (14.4)", q_count,
        arch::kMaxQCount));
  }
  Write(arch::kRegsBase + arch::reg::kQBase, q_base);
  Write(arch::kRegsBase + arch::reg::kQCount, q_count);
  ProgramCommand command;
  command.expected_error = error;
  command.description = description;
  command.is_program = true;
  command.q_base = q_base;
  command.q_count = q_count;
  return AddLaunch(std::move(command), arch::kCtrlRun | (run_with_start ? arch::kCtrlStart : 0u),
                   irq_enable);
}

void ProgramBuilder::ReadStatusBeforeRelaunch() { Read(arch::kRegsBase + arch::reg::kStatus); }

void ProgramBuilder::CheckProgram(int command) {
  HostOp op;
  op.kind = HostOp::Kind::kCheckProgram;
  op.index = command;
  program_.ops.push_back(op);
}

int ProgramBuilder::RunAndCheck(uint32_t q_base, uint32_t q_count, arch::ErrCode error,
                                const std::string& description, bool irq_enable) {
  const int index = Run(q_base, q_count, error, description, irq_enable);
  WaitDone();
  ReadRegisters();
  CheckProgram(index);
  CheckSrams();
  return index;
}

void ProgramBuilder::Write(uint32_t addr, uint32_t data, uint8_t strobe) {
  HostOp op;
  op.kind = HostOp::Kind::kWrite;
  op.addr = addr;
  op.data = data;
  op.strobe = strobe;
  program_.ops.push_back(op);
}

arch::ArchConfig TestbenchConfig(const arch::ArchConfig& config, const Program& program) {
  arch::ArchConfig c = config;
  if (program.ext_mem_ready_gaps >= 0) {
    c.ext_mem_ready_gaps = program.ext_mem_ready_gaps;
    c.ext_mem_gap_seed = program.ext_mem_gap_seed;
  }
  return c;
}

void ProgramBuilder::Read(uint32_t addr) {
  HostOp op;
  op.kind = HostOp::Kind::kRead;
  op.addr = addr;
  program_.ops.push_back(op);
}

void ProgramBuilder::Idle(int64_t cycles) {
  if (cycles <= 0) return;
  HostOp op;
  op.kind = HostOp::Kind::kIdle;
  op.cycles = cycles;
  program_.ops.push_back(op);
}

Program SingleJobProgram(const arch::ArchConfig& config, const model::GemmJob& job) {
  ProgramBuilder builder(config);
  const int index = builder.AddJob(job);
  builder.LoadOperands(index);
  builder.WriteCommand(index);
  builder.Launch(index);
  builder.ReadRegisters();
  builder.ReadBackOutput(index);
  builder.CheckSrams();
  return builder.Take();
}

}  // namespace qacc::sim
