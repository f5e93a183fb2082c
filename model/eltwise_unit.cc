#include "model/eltwise_unit.h"

#include <algorithm>

namespace qacc::model {

EltwiseUnit::EltwiseUnit(const arch::ArchConfig& config, Srams& srams)
    : config_(config), srams_(srams) {}

void EltwiseUnit::Start(const golden::EltwiseFields& fields, uint64_t start_cycle) {
  fields_ = fields;
  add_ = fields.has_add() ? golden::EltwiseAddParams(fields) : golden::AddParams{};
  start_ = start_cycle;
  end_ = start_ + EltwiseEnd(fields.count);
  results_.clear();
}

PortUse EltwiseUnit::PortsAt(uint64_t cycle) const {
  PortUse use;
  if (cycle < start_ || cycle > end_) return use;
  const uint64_t t = cycle - start_, phase = t % 4, words = fields_.count;
  if (t < 4 * words && (phase == 0 || (phase == kEltReadB && fields_.has_add()))) {
    use.read |= uint8_t(1u << kSramOut);
  }
  const bool writes = int16() ? t >= kEltWrite16 && phase % 2 == kEltWrite16 % 2
                              : t >= kEltWrite && phase == kEltWrite % 4;
  if (writes) use.write |= uint8_t(1u << kSramOut);
  if (fields_.has_lookup() && t >= kEltTableRead && t < kEltTableRead + 4 * words) {
    use.read |= uint8_t(1u << kSramLut);
    use.write |= uint8_t(1u << kSramLut);
  }
  return use;
}

void EltwiseUnit::Compute(const uint8_t* a, const uint8_t* b) {
  const size_t cols = size_t(config_.cols), word_bytes = 4 * cols;
  const std::vector<uint8_t>& table = srams_.image(arch::Region::kLut);
  std::vector<uint8_t> out(int16() ? 2 * word_bytes : word_bytes);
  for (size_t i = 0; i < word_bytes; ++i) {  // byte i: row i / C, lane i mod C
    const int32_t code = golden::EltwiseCode(fields_, add_, a[i], b ? b[i] : 0);
    if (!fields_.has_lookup()) {
      out[i] = uint8_t(code);
      continue;
    }
    const uint32_t entry = golden::LutRead(table, fields_.lut, code);
    if (!int16()) {
      out[i] = uint8_t(entry);
      continue;
    }
    // Row r lane c: word r / 2 of the pair, bytes 2 ((r mod 2) C + c) .. +1 (10.6).
    const size_t row = i / cols, lane = i % cols;
    const size_t byte = (row / 2) * word_bytes + 2 * ((row % 2) * cols + lane);
    out[byte] = uint8_t(entry);
    out[byte + 1] = uint8_t(entry >> 8);
  }
  for (size_t w = 0; w < out.size() / word_bytes; ++w) {
    results_.emplace_back(out.begin() + ptrdiff_t(w * word_bytes),
                          out.begin() + ptrdiff_t((w + 1) * word_bytes));
  }
}

void EltwiseUnit::Cycle(uint64_t cycle, OutAccess& access) {
  access = OutAccess{};
  if (cycle < start_ || cycle > end_) return;
  const PortUse use = PortsAt(cycle);
  const uint64_t t = cycle - start_, w = t / 4;
  const size_t word_bytes = 4 * size_t(config_.cols);
  std::vector<uint8_t>& out = srams_.image(arch::Region::kOut);
  if (use.Reads(kSramOut)) {
    const bool b_read = t % 4 == kEltReadB;
    const uint64_t word = (b_read ? fields_.src_b : fields_.src_a) + w;
    const uint8_t* data = &out[word * word_bytes];
    access.read = true;
    access.raddr = uint32_t(word);
    if (!fields_.has_add()) {
      Compute(data, nullptr);
    } else if (!b_read) {
      a_word_.assign(data, data + word_bytes);
    } else {
      Compute(a_word_.data(), data);
    }
  }
  if (use.Writes(kSramOut)) {
    // The results are written in order: word DST + j is the j-th result.
    const uint64_t first = int16() ? kEltWrite16 : kEltWrite;
    const uint64_t j = int16() ? (t - first) / 2 : (t - first) / 4;
    access.write = true;
    access.waddr = uint32_t(fields_.dst + j);
    access.bytes = uint16_t(word_bytes);
    std::copy(results_.front().begin(), results_.front().end(), &out[access.waddr * word_bytes]);
    std::copy(results_.front().begin(), results_.front().end(), access.data.begin());
    results_.pop_front();
  }
}

}  // namespace qacc::model
