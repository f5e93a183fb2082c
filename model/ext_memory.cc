#include "model/ext_memory.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace qacc::model {

namespace {
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
}  // namespace

ExtMemoryTiming ExtMemoryTimingOf(const arch::ArchConfig& config) {
  ExtMemoryTiming t;
  t.data_bytes = config.mem_data_bytes;
  t.latency = config.ext_mem_latency;
  t.interval = config.ext_mem_interval;
  t.ready_gaps = config.ext_mem_ready_gaps;
  t.gap_seed = uint64_t(config.ext_mem_gap_seed);
  return t;
}

ExtMemory::ExtMemory(uint64_t size_bytes, const ExtMemoryTiming& timing) : timing_(timing) {
  if (size_bytes == 0 || size_bytes > (uint64_t{1} << 32)) {
    throw std::invalid_argument("external memory size " + std::to_string(size_bytes) +
                                " is out of range, allowed 1..4294967296 bytes");
  }
  const int d = timing.data_bytes;
  if (d != 8 && d != 16 && d != 32 && d != 64) {
    throw std::invalid_argument("mem.data_bytes " + std::to_string(d) +
                                " is not one of 8, 16, 32, 64");
  }
  if (timing.latency < 1 || timing.interval < 1) {
    throw std::invalid_argument("external memory latency and interval must be at least 1");
  }
  if (timing.ready_gaps < 0 || timing.ready_gaps > arch::kMaxReadyGaps) {
    throw std::invalid_argument("ext_mem.ready_gaps " + std::to_string(timing.ready_gaps) +
                                " is out of range, allowed 0.." +
                                std::to_string(arch::kMaxReadyGaps));
  }
  size_ = size_bytes;
}

golden::MemoryImage& ExtMemory::Mapped() const {
  if (mem_.empty()) mem_ = golden::MemoryImage(size_);
  return mem_;
}

void ExtMemory::Write(uint64_t addr, const uint8_t* data, size_t n) {
  if (addr > size_ || n > size_ - addr) {
    throw std::out_of_range("external memory write past its end");
  }
  Mapped().Write(addr, data, n);
}

void ExtMemory::Read(uint64_t addr, uint8_t* data, size_t n) const {
  if (addr > size_ || n > size_ - addr) {
    throw std::out_of_range("external memory read past its end");
  }
  if (mem_.empty()) {
    std::memset(data, 0, n);  // never written
  } else if (n != 0) {
    std::memcpy(data, mem_.data() + addr, n);
  }
}

uint64_t ExtMemory::NextReadBeatCycle() const {
  if (reads_.empty()) return kNever;
  const Burst& head = reads_.front();
  const uint64_t after_previous = have_read_beat_ ? last_read_beat_ + timing_.interval : 0;
  if (head.done == 0) return std::max(head.accepted + timing_.latency, after_previous);
  return after_previous;
}

bool ExtMemory::Gap(int channel) const {
  if (timing_.ready_gaps == 0) return false;
  // SplitMix64 of (seed, cycle, channel): a pattern that depends on the absolute cycle only, so
  // that the model's memory and the RTL's give the same readies in the same cycle.
  uint64_t z = timing_.gap_seed * 0x9E3779B97F4A7C15ull + cycle_ * 4 + uint64_t(channel);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return int(z % 100) < timing_.ready_gaps;
}

bool ExtMemory::WriteReady() const {
  // The burst that expects the next beat is the first one with beats left.
  for (const Burst& burst : writes_) {
    if (burst.done < burst.beats) {
      if (burst.accepted >= cycle_) return false;  // its address came this cycle or later
      return !have_write_beat_ || cycle_ >= last_write_beat_ + timing_.interval;
    }
  }
  return false;
}

AxiSlaveOut ExtMemory::Outputs() const {
  AxiSlaveOut out;
  const int d = timing_.data_bytes;
  if (NextReadBeatCycle() <= cycle_) {
    const Burst& head = reads_.front();
    out.r_valid = true;
    out.r_last = head.done + 1 == head.beats;
    out.r_resp = head.error ? kAxiSlvErr : kAxiOkay;
    if (!head.error && !mem_.empty()) {  // an unmapped memory reads 0
      std::memcpy(out.r_data.data(), mem_.data() + head.addr + uint64_t(head.done) * d, d);
    }
  }
  out.ar_ready = !Gap(0);
  out.aw_ready = !Gap(1);
  out.w_ready = WriteReady() && !Gap(2);
  if (!responses_.empty() && responses_.front().due <= cycle_) {
    out.b_valid = true;
    out.b_resp = responses_.front().error ? kAxiSlvErr : kAxiOkay;
  }
  return out;
}

void ExtMemory::Violation(const std::string& what) {
  if (violation_.empty()) {
    violation_ = "cycle " + std::to_string(cycle_) + ": " + what;
  }
}

bool ExtMemory::BurstLegal(uint32_t addr, int beats, const char* channel) {
  const uint32_t d = uint32_t(timing_.data_bytes);
  bool legal = true;
  if (addr % d != 0) {
    Violation(std::string(channel) + " address " + std::to_string(addr) + " not aligned to " +
              std::to_string(d) + " bytes");
    legal = false;
  }
  const uint64_t last = uint64_t(addr) + uint64_t(beats) * d - 1;
  if (addr / kAxiPageBytes != last / kAxiPageBytes) {
    Violation(std::string(channel) + " burst at " + std::to_string(addr) + " of " +
              std::to_string(beats) + " beats crosses a 4 KiB boundary");
  }
  return legal;
}

void ExtMemory::Commit(const AxiMasterOut& m) {
  const AxiSlaveOut out = Outputs();
  const int d = timing_.data_bytes;
  // Read data: the master must take it (r_ready is always 1 in this subset).
  if (out.r_valid) {
    if (!m.r_ready) Violation("r_ready low while read data is valid");
    Burst& head = reads_.front();
    have_read_beat_ = true;
    last_read_beat_ = cycle_;
    ++read_beats_;
    if (++head.done == head.beats) reads_.pop_front();
  }
  if (out.b_valid) {
    if (!m.b_ready) Violation("b_ready low while a write response is valid");
    responses_.pop_front();
  }
  // Write data, before this cycle's write address (which it may not use).
  if (m.w_valid && out.w_ready) {
    Burst* burst = nullptr;
    for (Burst& b : writes_) {
      if (b.done < b.beats) {
        burst = &b;
        break;
      }
    }
    const bool last = burst->done + 1 == burst->beats;
    if (m.w_last != last) Violation("w_last does not mark the last beat of the burst");
    if (!burst->error) {
      const uint64_t base = burst->addr + uint64_t(burst->done) * d;
      uint8_t* beat = Mapped().Span(base, uint64_t(d));
      for (int j = 0; j < d; ++j) {
        if ((m.w_strb >> j) & 1) beat[j] = m.w_data[j];
      }
    }
    have_write_beat_ = true;
    last_write_beat_ = cycle_;
    ++write_beats_;
    if (++burst->done == burst->beats) {
      const uint64_t after_previous = have_response_ ? last_response_due_ + 1 : 0;
      const uint64_t due = std::max(cycle_ + timing_.latency, after_previous);
      responses_.push_back({due, burst->error});
      have_response_ = true;
      last_response_due_ = due;
      writes_.pop_front();
    }
  } else if (m.w_valid && !m.aw_valid &&
             std::none_of(writes_.begin(), writes_.end(),
                          [](const Burst& b) { return b.done < b.beats; })) {
    Violation("w_valid without a write address");
  }
  if (m.ar_valid && out.ar_ready) {
    const int beats = int(m.ar_len & 0xF) + 1;
    if (m.ar_len > 15) Violation("ar_len above 15");
    const bool legal = BurstLegal(m.ar_addr, beats, "read");
    const uint64_t end = uint64_t(m.ar_addr) + uint64_t(beats) * d;
    const uint32_t addr = legal ? m.ar_addr : m.ar_addr - m.ar_addr % uint32_t(d);
    reads_.push_back({addr, beats, cycle_, 0, end > size_});
  }
  if (m.aw_valid && out.aw_ready) {
    const int beats = int(m.aw_len & 0xF) + 1;
    if (m.aw_len > 15) Violation("aw_len above 15");
    const bool legal = BurstLegal(m.aw_addr, beats, "write");
    const uint64_t end = uint64_t(m.aw_addr) + uint64_t(beats) * d;
    const uint32_t addr = legal ? m.aw_addr : m.aw_addr - m.aw_addr % uint32_t(d);
    writes_.push_back({addr, beats, cycle_, 0, end > size_});
  }
  ++cycle_;
}

uint64_t ExtMemory::NextEventCycle() const {
  uint64_t next = std::max(NextReadBeatCycle(), cycle_);
  if (reads_.empty()) next = kNever;
  if (!responses_.empty()) next = std::min(next, std::max(responses_.front().due, cycle_));
  return next;
}

void ExtMemory::Idle(uint64_t cycles) {
  const uint64_t target = cycle_ + cycles;
  while (cycle_ < target) {
    const uint64_t next = NextEventCycle();
    if (next >= target) {
      cycle_ = target;
      return;
    }
    cycle_ = next;
    Commit(AxiMasterOut{});
  }
}

}  // namespace qacc::model
