// Shared by the SystemC model tests (*_sc_test.cc): the one-elaboration-per-process guard and a bus
// master that runs a test body in an SC_THREAD.
#ifndef QACC_TESTS_MODEL_SC_TEST_UTIL_H_
#define QACC_TESTS_MODEL_SC_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <functional>
#include <systemc>
#include <tlm>
#include <utility>
#include <vector>

namespace qacc::model::testing {

// A SystemC kernel elaborates once per process: CTest runs every case in its own process; run
// directly, only the first case of the process runs and the others skip.
inline bool kernel_used = false;

#define REQUIRE_FRESH_KERNEL()                                                              \
  do {                                                                                      \
    if (::qacc::model::testing::kernel_used)                                                \
      GTEST_SKIP() << "one SystemC elaboration per process: run through ctest";             \
    ::qacc::model::testing::kernel_used = true;                                             \
  } while (false)

// A bus master: runs `body` in a thread, one blocking transfer at a time, synchronised after each.
class Host : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Host> initiator_socket;

  Host(sc_core::sc_module_name name, std::function<void(Host&)> body)
      : sc_core::sc_module(name), initiator_socket("initiator_socket"), body_(std::move(body)) {
    SC_HAS_PROCESS(Host);
    SC_THREAD(Run);
  }

  tlm::tlm_response_status Transfer(tlm::tlm_command command, uint64_t addr, uint32_t& data,
                                    uint8_t strobe = 0xF, unsigned length = 4) {
    std::vector<unsigned char> bytes(length, 0), enables(4);
    for (int b = 0; b < 4; ++b) {
      if (b < int(length)) bytes[b] = static_cast<unsigned char>(data >> (8 * b));
      enables[b] = (strobe >> b) & 1 ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED;
    }
    tlm::tlm_generic_payload payload;
    payload.set_command(command);
    payload.set_address(addr);
    payload.set_data_ptr(bytes.data());
    payload.set_data_length(length);
    payload.set_streaming_width(length);
    payload.set_byte_enable_ptr(enables.data());
    payload.set_byte_enable_length(4);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    initiator_socket->b_transport(payload, delay);
    last_delay = delay;
    sc_core::wait(delay);
    if (command == tlm::TLM_READ_COMMAND) {
      data = uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 | uint32_t{bytes[2]} << 16 |
             uint32_t{bytes[3]} << 24;
    }
    return payload.get_response_status();
  }
  tlm::tlm_response_status Write(uint64_t addr, uint32_t data, uint8_t strobe = 0xF) {
    return Transfer(tlm::TLM_WRITE_COMMAND, addr, data, strobe);
  }
  uint32_t Read(uint64_t addr, tlm::tlm_response_status* status = nullptr) {
    uint32_t data = 0;
    const tlm::tlm_response_status response = Transfer(tlm::TLM_READ_COMMAND, addr, data);
    if (status) *status = response;
    return data;
  }

  sc_core::sc_time last_delay;

 private:
  void Run() {
    body_(*this);
    sc_core::sc_stop();
  }
  std::function<void(Host&)> body_;
};

}  // namespace qacc::model::testing

#endif  // QACC_TESTS_MODEL_SC_TEST_UTIL_H_
