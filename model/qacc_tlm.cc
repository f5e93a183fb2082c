#include "model/qacc_tlm.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace qacc::model {

namespace {

tlm::tlm_response_status ToTlm(BusStatus status) {
  switch (status) {
    case BusStatus::kOk:
      return tlm::TLM_OK_RESPONSE;
    case BusStatus::kAddressError:
      return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    case BusStatus::kGenericError:
      return tlm::TLM_GENERIC_ERROR_RESPONSE;
  }
  return tlm::TLM_GENERIC_ERROR_RESPONSE;
}

// pstrb from the payload's byte enables (all bytes when there are none).
uint8_t Strobe(const tlm::tlm_generic_payload& payload) {
  const unsigned char* enables = payload.get_byte_enable_ptr();
  const unsigned length = payload.get_byte_enable_length();
  if (enables == nullptr || length == 0) return 0xF;
  uint8_t strobe = 0;
  for (unsigned byte = 0; byte < 4; ++byte) {
    if (enables[byte % length] == TLM_BYTE_ENABLED) strobe |= static_cast<uint8_t>(1u << byte);
  }
  return strobe;
}

}  // namespace

QaccTlm::QaccTlm(sc_core::sc_module_name name, const arch::ArchConfig& config,
                 sc_core::sc_time clock_period, const UnitLatencies& latencies)
    : sc_core::sc_module(name),
      target_socket("target_socket"),
      irq("irq"),
      config_(config),
      clock_period_(clock_period),
      state_(config),
      units_("units", config.rows, config.cols, latencies) {
  target_socket.register_b_transport(this, &QaccTlm::b_transport);
  state_.set_launch_listener([this](const Launch& launch) { OnLaunch(launch); });
  // A program's GEMM runs on the unit modules like a command whose cycle 0 is its start cycle.
  state_.set_program_gemm_listener([this](int64_t start, const arch::Command& command) {
    const LaunchDecision decision = DecodeCommand(config_, command);
    units_.Start(std::make_shared<const GemmEngine>(config_, decision.command, state_.srams()),
                 start);
  });
  SC_HAS_PROCESS(QaccTlm);
  SC_METHOD(UpdateIrq);
  sensitive << irq_update_event_;
}

int64_t QaccTlm::CycleAt(const sc_core::sc_time& time) const {
  const sc_dt::uint64 period = clock_period_.value();
  return static_cast<int64_t>((time.value() + period - 1) / period);
}

// One APB transfer: a 32-bit access (length 4, the address's bits [1:0] ignored as on the bus).
void QaccTlm::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const tlm::tlm_command command = payload.get_command();
  if (payload.get_data_length() != 4 || payload.get_streaming_width() < 4) {
    payload.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (command == tlm::TLM_IGNORE_COMMAND) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  const bool is_read = command == tlm::TLM_READ_COMMAND;
  const uint64_t addr = payload.get_address();
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const int64_t setup = CycleAt(now + delay);
  const int64_t complete = setup + AccelState::TransferCycles(addr, is_read) - 1;
  BusStatus status;
  if (is_read) {
    const BusResponse response = state_.Read(addr, complete);
    status = response.status;
    unsigned char* data = payload.get_data_ptr();
    for (int byte = 0; byte < 4; ++byte)
      data[byte] = static_cast<unsigned char>(response.data >> (8 * byte));
  } else {
    const unsigned char* data = payload.get_data_ptr();
    const uint32_t value = uint32_t{data[0]} | uint32_t{data[1]} << 8 | uint32_t{data[2]} << 16 |
                           uint32_t{data[3]} << 24;
    status = state_.Write(addr, value, Strobe(payload), complete);
    // CTRL.IRQ_EN and STATUS.DONE changes (and a RUN) show on irq from the next cycle.
    if (status == BusStatus::kOk) irq_update_event_.notify(TimeOfCycle(complete + 1) - now);
  }
  payload.set_response_status(ToTlm(status));
  delay = TimeOfCycle(complete + 1) - now;
}

void QaccTlm::OnLaunch(const Launch& launch) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  irq_update_event_.notify(TimeOfCycle(launch.done_cycle) - now);
  units_.Start(launch.engine, launch.launch_cycle);
}

// An sc_event keeps only its earliest notification, so after each update the method re-arms itself
// for a command that is still to complete.
// A program's done cycle is known only once the program has run that far: until then the method
// looks again at the first cycle the program has not run yet (the next cycle when the bus drives
// the program; further ahead when the lockstep has run it ahead).
void QaccTlm::UpdateIrq() {
  const int64_t cycle = CycleAt(sc_core::sc_time_stamp());
  irq.write(state_.Irq(cycle));
  int64_t next = -1;
  if (state_.last_launch_is_program()) {
    const ProgramLaunch& program = *state_.last_program();
    next = program.ended ? program.done_cycle : std::max(cycle + 1, state_.program_progress());
  } else if (state_.last_launch()) {
    next = state_.last_launch()->done_cycle;
  }
  if (next > cycle) irq_update_event_.notify(TimeOfCycle(next) - sc_core::sc_time_stamp());
}

}  // namespace qacc::model
