#include "model/accelerator.h"

#include <fmt/format.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <systemc>
#include <tlm>
#include <utility>

#include "model/qacc_tlm.h"
#include "model/srams.h"

// libsystemc's own main() calls sc_main, so every program that links libsystemc must define one. A
// program that drives the Accelerator from its own main() has nothing to put there: this weak
// definition satisfies the linker and is never called; a program with a real sc_main overrides it.
extern "C" __attribute__((weak)) int sc_main(int /*argc*/, char* /*argv*/[]) { return 1; }

namespace qacc::model {

namespace {

// The bus master: a socket and nothing else. Its transfers are issued from outside any SystemC
// process, which TLM allows for a target that never waits (QaccTlm::b_transport only annotates).
class Host : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Host> initiator_socket;
  explicit Host(sc_core::sc_module_name name)
      : sc_core::sc_module(name), initiator_socket("initiator_socket") {}
};

}  // namespace

BusError::BusError(bool is_write, uint32_t addr, BusStatus status)
    : std::runtime_error(fmt::format("qacc bus: {} at 0x{:06x} refused with pslverr ({})",
                                     is_write ? "write" : "read", addr, BusStatusName(status))),
      is_write_(is_write),
      addr_(addr),
      status_(status) {}

struct Accelerator::Impl {
  explicit Impl(const arch::ArchConfig& config) : tlm("qacc", config), host("host"), irq("irq") {
    host.initiator_socket.bind(tlm.target_socket);
    tlm.irq(irq);
  }

  // One transfer whose setup phase starts at local time `offset` past the kernel's time (TLM-2.0
  // temporal decoupling: a burst of transfers goes out back to back without running the kernel in
  // between); `offset` moves to the end of the transfer. Sync() then runs the kernel up to there.
  BusStatus Transfer(bool is_read, uint32_t addr, uint32_t* data, uint8_t strobe,
                     sc_core::sc_time* offset) {
    unsigned char bytes[4];
    unsigned char enables[4];
    for (int b = 0; b < 4; ++b) {
      bytes[b] = is_read ? 0 : static_cast<unsigned char>(*data >> (8 * b));
      enables[b] = (strobe >> b) & 1 ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED;
    }
    tlm::tlm_generic_payload payload;
    payload.set_command(is_read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
    payload.set_address(addr);
    payload.set_data_ptr(bytes);
    payload.set_data_length(4);
    payload.set_streaming_width(4);
    payload.set_byte_enable_ptr(enables);
    payload.set_byte_enable_length(4);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    host.initiator_socket->b_transport(payload, *offset);
    if (is_read) {
      *data = uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 | uint32_t{bytes[2]} << 16 |
              uint32_t{bytes[3]} << 24;
    }
    switch (payload.get_response_status()) {
      case tlm::TLM_OK_RESPONSE:
        return BusStatus::kOk;
      case tlm::TLM_ADDRESS_ERROR_RESPONSE:
        return BusStatus::kAddressError;
      default:
        return BusStatus::kGenericError;
    }
  }

  void Sync(const sc_core::sc_time& offset) {
    if (offset > sc_core::SC_ZERO_TIME) sc_core::sc_start(offset);
  }

  // Throws, before any transfer, unless bytes [offset, offset + size) lie in the SRAM of `memory`.
  void CheckMemoryRange(arch::Region memory, uint32_t offset, uint64_t size) const {
    if (!Srams::IsSramRegion(memory)) {
      throw std::invalid_argument(
          fmt::format("memory: region {} has no SRAM (A, B, bias, rq and out have)", int(memory)));
    }
    const uint64_t window = tlm.state().srams().WindowBytes(memory);
    if (uint64_t{offset} + size > window) {
      throw std::out_of_range(fmt::format(
          "memory: bytes [{}, {}) of region {} leave its SRAM ({} bytes: depth * word bytes)",
          offset, uint64_t{offset} + size, int(memory), window));
    }
  }

  QaccTlm tlm;
  Host host;
  sc_core::sc_signal<bool> irq;
};

Accelerator::Accelerator(const arch::ArchConfig& config) {
  arch::ValidateArchConfig(config);
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION) {
    throw std::logic_error(
        "qacc::model::Accelerator: the SystemC kernel of this process has already started (one "
        "elaboration per process: at most one Accelerator, created before any sc_start)");
  }
  // SystemC prints its banner at the first elaboration; a library should not. Set the variable to
  // ENABLE to see it.
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0);
  impl_ = std::make_unique<Impl>(config);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaboration and initialisation: cycle 0
}

Accelerator::Accelerator(const std::string& config_path)
    : Accelerator(arch::LoadArchConfig(config_path)) {}

Accelerator::~Accelerator() = default;

const arch::ArchConfig& Accelerator::config() const { return impl_->tlm.state().config(); }

int64_t Accelerator::cycle() const { return impl_->tlm.CycleAt(sc_core::sc_time_stamp()); }

BusResponse Accelerator::Read(uint32_t addr) {
  sc_core::sc_time offset = sc_core::SC_ZERO_TIME;
  BusResponse response;
  response.status = impl_->Transfer(true, addr, &response.data, 0xF, &offset);
  impl_->Sync(offset);
  return response;
}

BusStatus Accelerator::Write(uint32_t addr, uint32_t data, uint8_t strobe) {
  sc_core::sc_time offset = sc_core::SC_ZERO_TIME;
  const BusStatus status = impl_->Transfer(false, addr, &data, strobe, &offset);
  impl_->Sync(offset);
  return status;
}

uint32_t Accelerator::ReadRegister(uint32_t offset) {
  const BusResponse response = Read(arch::kRegsBase + offset);
  if (response.status != BusStatus::kOk) throw BusError(false, offset, response.status);
  return response.data;
}

void Accelerator::WriteRegister(uint32_t offset, uint32_t value) {
  const BusStatus status = Write(arch::kRegsBase + offset, value);
  if (status != BusStatus::kOk) throw BusError(true, offset, status);
}

uint32_t Accelerator::MemoryBytes(arch::Region memory) const {
  impl_->CheckMemoryRange(memory, 0, 0);
  return impl_->tlm.state().srams().WindowBytes(memory);
}

void Accelerator::LoadMemory(arch::Region memory, uint32_t offset,
                             const std::vector<uint8_t>& bytes) {
  impl_->CheckMemoryRange(memory, offset, bytes.size());
  const uint64_t end = uint64_t{offset} + bytes.size();
  sc_core::sc_time time = sc_core::SC_ZERO_TIME;
  for (uint64_t word = offset & ~uint64_t{3}; word < end; word += 4) {
    uint32_t data = 0;
    uint8_t strobe = 0;
    for (uint64_t byte = word; byte < word + 4; ++byte) {
      if (byte < offset || byte >= end) continue;
      data |= uint32_t{bytes[byte - offset]} << (8 * (byte - word));
      strobe |= static_cast<uint8_t>(1u << (byte - word));
    }
    const uint32_t addr = arch::WindowBase(memory) + uint32_t(word);
    const BusStatus status = impl_->Transfer(false, addr, &data, strobe, &time);
    if (status != BusStatus::kOk) {
      impl_->Sync(time);
      throw BusError(true, addr, status);
    }
  }
  impl_->Sync(time);
}

std::vector<uint8_t> Accelerator::DumpMemory(arch::Region memory, uint32_t offset, uint32_t size) {
  impl_->CheckMemoryRange(memory, offset, size);
  std::vector<uint8_t> bytes(size);
  const uint64_t end = uint64_t{offset} + size;
  sc_core::sc_time time = sc_core::SC_ZERO_TIME;
  for (uint64_t word = offset & ~uint64_t{3}; word < end; word += 4) {
    const uint32_t addr = arch::WindowBase(memory) + uint32_t(word);
    uint32_t data = 0;
    const BusStatus status = impl_->Transfer(true, addr, &data, 0xF, &time);
    if (status != BusStatus::kOk) {
      impl_->Sync(time);
      throw BusError(false, addr, status);
    }
    for (uint64_t byte = std::max<uint64_t>(word, offset); byte < std::min(word + 4, end); ++byte) {
      bytes[byte - offset] = static_cast<uint8_t>(data >> (8 * (byte - word)));
    }
  }
  impl_->Sync(time);
  return bytes;
}

std::vector<uint8_t> Accelerator::DumpMemory(arch::Region memory) {
  return DumpMemory(memory, 0, MemoryBytes(memory));
}

void Accelerator::Start() { WriteRegister(arch::reg::kCtrl, arch::kCtrlStart | arch::kCtrlIrqEn); }

CommandResult Accelerator::WaitForCompletion() {
  const std::optional<Launch>& launch = impl_->tlm.state().last_launch();
  if (!launch) throw std::logic_error("WaitForCompletion: no command was started");
  // The model's own completion time: irq rises (with IRQ_EN) at the start of this cycle.
  if (launch->done_cycle > cycle()) {
    impl_->Sync(impl_->tlm.TimeOfCycle(launch->done_cycle) - sc_core::sc_time_stamp());
  }
  CommandResult result;
  result.launch_cycle = launch->launch_cycle;
  result.done_cycle = launch->done_cycle;
  std::vector<std::pair<uint32_t, uint32_t*>> reads = {
      {arch::reg::kStatus, &result.status},
      {arch::reg::kPerfCycles, &result.perf.cycles},
      {arch::reg::kPerfOutWrites, &result.perf.out_writes},
      {arch::reg::kPerfFeedStall, &result.perf.feed_stall},
      {arch::reg::kPerfCmdCount, &result.command_count},
  };
  for (const arch::BeatUnitInfo& unit : arch::kBeatUnits) {
    reads.emplace_back(unit.busy_reg, &result.perf.busy[size_t(unit.beat)]);
  }
  sc_core::sc_time time = sc_core::SC_ZERO_TIME;
  for (const auto& [offset, value] : reads) {
    if (impl_->Transfer(true, arch::kRegsBase + offset, value, 0xF, &time) != BusStatus::kOk) {
      throw std::logic_error(fmt::format("WaitForCompletion: register 0x{:03x} refused", offset));
    }
  }
  impl_->Sync(time);
  result.error = static_cast<arch::ErrCode>((result.status & arch::kStatusErrCodeMask) >>
                                            arch::kStatusErrCodeLsb);
  return result;
}

CommandResult Accelerator::RunToCompletion() {
  Start();
  return WaitForCompletion();
}

void Accelerator::Idle(int64_t cycles) {
  if (cycles > 0) impl_->Sync(impl_->tlm.TimeOfCycle(cycle() + cycles) - sc_core::sc_time_stamp());
}

void Accelerator::WriteExternal(uint32_t addr, const std::vector<uint8_t>& bytes) {
  impl_->tlm.state().ext_memory().Write(addr, bytes.data(), bytes.size());
}

std::vector<uint8_t> Accelerator::ReadExternal(uint32_t addr, uint32_t size) const {
  std::vector<uint8_t> bytes(size);
  impl_->tlm.state().ext_memory().Read(addr, bytes.data(), size);
  return bytes;
}

void Accelerator::StartProgram(uint32_t q_base, uint32_t q_count) {
  WriteRegister(arch::reg::kQBase, q_base);
  WriteRegister(arch::reg::kQCount, q_count);
  WriteRegister(arch::reg::kCtrl, arch::kCtrlRun | arch::kCtrlIrqEn);
}

ProgramResult Accelerator::WaitForProgram() {
  AccelState& state = impl_->tlm.state();
  if (!state.last_launch_is_program()) {
    throw std::logic_error("WaitForProgram: no program was started (or a command since)");
  }
  const int64_t done = state.FinishProgram();
  if (done > cycle()) impl_->Sync(impl_->tlm.TimeOfCycle(done) - sc_core::sc_time_stamp());
  ProgramResult result;
  result.launch_cycle = state.last_program()->launch_cycle;
  result.done_cycle = done;
  namespace reg = arch::reg;
  std::vector<std::pair<uint32_t, uint32_t*>> reads = {
      {reg::kStatus, &result.status},
      {reg::kQErrIndex, &result.error_index},
      {reg::kQRetired, &result.retired},
      {reg::kPerfCycles, &result.cycles},
      {reg::kPerfDmaBusy, &result.dma_busy},
      {reg::kPerfComputeBusy, &result.compute_busy},
      {reg::kPerfDmaWait, &result.dma_wait},
      {reg::kPerfComputeWait, &result.compute_wait},
      {reg::kPerfPortStall, &result.port_stall},
      {reg::kPerfRdBeats, &result.rd_beats},
      {reg::kPerfWrBeats, &result.wr_beats},
  };
  for (const arch::BeatUnitInfo& unit : arch::kBeatUnits) {
    reads.emplace_back(unit.busy_reg, &result.busy[size_t(unit.beat)]);
  }
  sc_core::sc_time time = sc_core::SC_ZERO_TIME;
  for (const auto& [offset, value] : reads) {
    if (impl_->Transfer(true, arch::kRegsBase + offset, value, 0xF, &time) != BusStatus::kOk) {
      throw std::logic_error(fmt::format("WaitForProgram: register 0x{:03x} refused", offset));
    }
  }
  impl_->Sync(time);
  result.error = static_cast<arch::ErrCode>((result.status & arch::kStatusErrCodeMask) >>
                                            arch::kStatusErrCodeLsb);
  return result;
}

ProgramResult Accelerator::RunProgram(uint32_t q_base, uint32_t q_count) {
  StartProgram(q_base, q_count);
  return WaitForProgram();
}

QaccTlm& Accelerator::tlm() { return impl_->tlm; }

}  // namespace qacc::model
