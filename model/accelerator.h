// The qacc accelerator as a plain C++ object, for programs that are not SystemC models themselves
// (a driver under development, a compiler's test bench, a framework comparing accelerator models):
// register reads and writes, memory load and dump, run to completion. docs/api.md is the guide.
//
// Inside is the SystemC TLM-2.0 model (QaccTlm) with its kernel: every call is one or more 32-bit
// transfers through QaccTlm::target_socket, issued back to back as a host CPU would issue them,
// and the kernel then runs to the end of the last one. So the bus rules and timing are the spec's
// (docs/architecture.md 3: 2 cycles per transfer, 3 for an SRAM window read; pslverr refusals) and
// cycle() is the clock cycle a real device would be in after the same traffic (1 ns per cycle).
//
// SystemC elaborates one design per process: a process has at most one Accelerator, created
// before anything else starts the SystemC kernel, and none after it is destroyed. A program that
// is a SystemC model already instantiates QaccTlm and binds its socket instead (docs/model.md).
#ifndef QACC_MODEL_ACCELERATOR_H_
#define QACC_MODEL_ACCELERATOR_H_

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/accel_state.h"
#include "model/arch.h"
#include "model/perf.h"

namespace qacc::model {

class QaccTlm;

// A transfer the bus refused (pslverr, docs/architecture.md 3): `status` is kAddressError for an
// unmapped address, kGenericError for the other refusals (SRAM offset beyond the depth, an SRAM
// window or a CMD_*/CTRL write while BUSY, a read-only register). Nothing changed.
class BusError : public std::runtime_error {
 public:
  BusError(bool is_write, uint32_t addr, BusStatus status);
  bool is_write() const { return is_write_; }
  uint32_t addr() const { return addr_; }
  BusStatus status() const { return status_; }

 private:
  bool is_write_;
  uint32_t addr_;
  BusStatus status_;
};

// What the host reads when a command has completed (STATUS and PERF_*, section 3.2).
struct CommandResult {
  uint32_t status = 0;                         // STATUS: DONE set, ERROR and ERR_CODE
  arch::ErrCode error = arch::ErrCode::kNone;  // STATUS.ERR_CODE: why validation (4) refused it
  PerfCounters perf;                           // PERF_CYCLES (E), _MAC_BUSY, ... _FEED_STALL
  uint32_t command_count = 0;                  // PERF_CMD_COUNT
  int64_t launch_cycle = 0;                    // cycle 0 of the command (first BUSY cycle)
  int64_t done_cycle = 0;                      // first cycle with DONE = 1: launch_cycle + E

  bool ok() const { return error == arch::ErrCode::kNone; }
};

// What the host reads when a program has ended (STATUS, Q_*, PERF_*; data_movement.md 14.1, 17.8).
struct ProgramResult {
  uint32_t status = 0;
  arch::ErrCode error = arch::ErrCode::kNone;  // STATUS.ERR_CODE
  uint32_t error_index = 0;                    // Q_ERR_INDEX (with an error)
  uint32_t retired = 0;                        // Q_RETIRED
  uint32_t cycles = 0;                         // PERF_CYCLES: the program's cycles
  std::array<uint32_t, arch::kNumBeatUnits> busy{};  // PERF_<x>_BUSY by beat unit
  uint32_t dma_busy = 0, compute_busy = 0, dma_wait = 0, compute_wait = 0, port_stall = 0,
           rd_beats = 0, wr_beats = 0;
  int64_t launch_cycle = 0;  // cycle 0 of the program
  int64_t done_cycle = 0;    // the first cycle with DONE = 1

  bool ok() const { return error == arch::ErrCode::kNone; }
};

class Accelerator {
 public:
  // An accelerator with the hardware parameters of `config` (configs/*.json; a default-constructed
  // ArchConfig is configs/default.json), out of reset at cycle 0. Throws std::logic_error when the
  // process's SystemC kernel has already been used (another Accelerator, or the program's own).
  explicit Accelerator(const arch::ArchConfig& config);
  // The same with arch::LoadArchConfig(config_path); throws std::invalid_argument naming the file
  // and the key of a bad config.
  explicit Accelerator(const std::string& config_path);
  ~Accelerator();
  Accelerator(const Accelerator&) = delete;
  Accelerator& operator=(const Accelerator&) = delete;

  const arch::ArchConfig& config() const;
  // The clock cycle of the next transfer's setup phase: bus time so far (plus waits).
  int64_t cycle() const;

  // ---- Bus (section 3): one 32-bit transfer at byte address `addr` (bits [1:0] ignored).
  // A refusal comes back as its status (and read data 0), as on the bus.
  BusResponse Read(uint32_t addr);
  BusStatus Write(uint32_t addr, uint32_t data, uint8_t strobe = 0xF);  // strobe: pstrb

  // ---- Registers (3.2): byte offsets arch::reg::k*. Throw BusError on a refusal: a write while
  // BUSY to CMD_* or CTRL, a write to a read-only register, an offset past 0xFFF (reserved offsets
  // below it read 0 and ignore writes, as the spec says).
  uint32_t ReadRegister(uint32_t offset);
  void WriteRegister(uint32_t offset, uint32_t value);

  // ---- Memories: the SRAM windows (3.1), `memory` one of arch::Region::kA, kB, kBias, kRq, kOut;
  // byte offsets in the window's layout (3.1 table, 6.1 panels, 6.3 output). Through the bus, so
  // they take bus cycles and are refused while BUSY (BusError, nothing written). std::out_of_range
  // when [offset, offset + size) leaves the SRAM, std::invalid_argument for another region; both
  // before any transfer.
  uint32_t MemoryBytes(arch::Region memory) const;  // depth * word bytes
  // Writes `bytes` at `offset`; a partial first or last host word is written with its strobes.
  void LoadMemory(arch::Region memory, uint32_t offset, const std::vector<uint8_t>& bytes);
  // Reads `size` bytes from `offset`; without them, the whole SRAM.
  std::vector<uint8_t> DumpMemory(arch::Region memory, uint32_t offset, uint32_t size);
  std::vector<uint8_t> DumpMemory(arch::Region memory);

  // ---- Commands (section 4): the CMD_* registers hold the command.
  // Writes CTRL = START | IRQ_EN (a refusal while BUSY throws BusError).
  void Start();
  // Runs the kernel until the last started command has completed, as a host waiting for irq
  // would, then reads STATUS and PERF_*. Throws std::logic_error when no command was started.
  CommandResult WaitForCompletion();
  // Start() and WaitForCompletion(): returns the cycles E in perf.cycles, and error instead of
  // throwing when validation refused the command (E = 1, nothing written).
  CommandResult RunToCompletion();
  // Lets `cycles` clock cycles pass without bus traffic (a busy host, or a test of BUSY).
  void Idle(int64_t cycles);

  // ---- Programs (docs/data_movement.md 14): descriptors and tensors in the external memory (the
  // testbench memory of the config's ext_mem.*, written and read here by backdoor, no bus cycles),
  // launched with one CTRL.RUN. std::out_of_range past the memory's end.
  void WriteExternal(uint32_t addr, const std::vector<uint8_t>& bytes);
  std::vector<uint8_t> ReadExternal(uint32_t addr, uint32_t size) const;
  // Writes Q_BASE, Q_COUNT and CTRL = RUN | IRQ_EN (BusError while BUSY).
  void StartProgram(uint32_t q_base, uint32_t q_count);
  // Runs the kernel until the program has ended, as a host waiting for irq would, then reads
  // STATUS, PERF_* and the Q_* registers. Throws std::logic_error when no program was started.
  ProgramResult WaitForProgram();
  // StartProgram and WaitForProgram.
  ProgramResult RunProgram(uint32_t q_base, uint32_t q_count);

  // The SystemC model inside: its AccelState, the unit modules of the last command (docs/model.md).
  QaccTlm& tlm();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_ACCELERATOR_H_
