// Helpers shared by the model tests: configurations, random GEMM jobs, and a host that drives
// AccelState through its bus cycle by cycle as the APB would (one transfer after the other).
#ifndef QACC_TESTS_MODEL_MODEL_TEST_UTIL_H_
#define QACC_TESTS_MODEL_MODEL_TEST_UTIL_H_

#include <cstdint>
#include <random>
#include <string>

#include "model/accel_state.h"
#include "model/arch.h"
#include "model/gemm_job.h"
#include "sim/build_paths.h"

namespace qacc::model::testing {

inline arch::ArchConfig Config(const std::string& name) {
  return arch::LoadArchConfig(std::string(QACC_SOURCE_DIR) + "/configs/" + name + ".json");
}

// A random legal job with shapes up to max_dim per dimension (edges 1 and non-multiples included),
// random signedness, zero points, bias, rounding, per-tensor / per-channel / raw output and clamp
// (none, ReLU, ReLU6 style, uint8 range).
inline GemmJob RandomJob(std::mt19937& rng, int max_dim) {
  auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  GemmJob job;
  job.m = uniform(1, max_dim);
  job.n = uniform(1, max_dim);
  job.k = uniform(1, max_dim);
  job.a_unsigned = uniform(0, 1);
  job.b_unsigned = uniform(0, 1);
  for (int i = 0; i < job.m * job.k; ++i) job.a.push_back(static_cast<uint8_t>(uniform(0, 255)));
  for (int i = 0; i < job.k * job.n; ++i) job.b.push_back(static_cast<uint8_t>(uniform(0, 255)));
  job.a_zp = uniform(0, 3) == 0 ? 0 : uniform(-128, 255);
  job.b_zp = uniform(0, 3) == 0 ? 0 : uniform(-128, 255);
  if (uniform(0, 1)) {
    for (int n = 0; n < job.n; ++n) job.bias.push_back(uniform(-(1 << 20), 1 << 20));
  }
  job.out_raw = uniform(0, 4) == 0;
  job.per_channel = uniform(0, 1);
  job.requant.rounding = uniform(0, 1) ? golden::RequantRounding::kSingleRounding
                                       : golden::RequantRounding::kDoubleRounding;
  job.requant.multiplier = uniform(0, 9) == 0 ? 0 : uniform(1 << 30, 0x7FFFFFFF);
  job.requant.shift = uniform(-20, 2);
  for (int n = 0; n < job.n && job.per_channel; ++n) {
    job.channel_mult.push_back(uniform(1 << 30, 0x7FFFFFFF));
    job.channel_shift.push_back(uniform(-31, 30));
  }
  switch (uniform(0, 3)) {
    case 0:
      job.requant.clamp_min = -128, job.requant.clamp_max = 127;
      break;
    case 1:  // ReLU into int8
      job.requant.clamp_min = 0, job.requant.clamp_max = 127;
      break;
    case 2:  // uint8 output
      job.requant.clamp_min = 0, job.requant.clamp_max = 255;
      break;
    default:  // ReLU6-like bounds
      job.requant.clamp_min = -10, job.requant.clamp_max = 60;
      break;
  }
  job.requant.output_zero_point = job.requant.clamp_min >= 0 ? uniform(0, 20) : uniform(-20, 20);
  job.pad_byte = static_cast<uint8_t>(uniform(0, 255));
  return job;
}

// Drives an AccelState as an APB master: every transfer starts in the cycle after the previous one
// ended.
class BusHost {
 public:
  explicit BusHost(AccelState& state) : state_(state) {}

  int64_t cycle() const { return cycle_; }  // the next transfer's setup cycle
  void IdleUntil(int64_t cycle) { cycle_ = std::max(cycle_, cycle); }

  BusStatus Write(uint32_t addr, uint32_t data, uint8_t strobe = 0xF) {
    last_complete_ = cycle_ + AccelState::TransferCycles(addr, false) - 1;
    cycle_ = last_complete_ + 1;
    return state_.Write(addr, data, strobe, last_complete_);
  }
  BusResponse Read(uint32_t addr) {
    last_complete_ = cycle_ + AccelState::TransferCycles(addr, true) - 1;
    cycle_ = last_complete_ + 1;
    return state_.Read(addr, last_complete_);
  }
  int64_t last_complete() const { return last_complete_; }

  // Loads the operands and the command of `job`, then writes START; returns the launch cycle
  // (command cycle 0).
  int64_t Launch(const arch::ArchConfig& config, const GemmJob& job, bool irq_en = false) {
    for (const BusWrite& write : PackOperands(config, job))
      Write(write.addr, write.data, write.strobe);
    for (const BusWrite& write : CommandWrites(job)) Write(write.addr, write.data, write.strobe);
    Write(arch::reg::kCtrl, arch::kCtrlStart | (irq_en ? arch::kCtrlIrqEn : 0u));
    return last_complete_ + 1;
  }

 private:
  AccelState& state_;
  int64_t cycle_ = 0;
  int64_t last_complete_ = -1;
};

}  // namespace qacc::model::testing

#endif  // QACC_TESTS_MODEL_MODEL_TEST_UTIL_H_
