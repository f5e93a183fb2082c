#include "sim/cosim/axi_bridge.h"

namespace qacc::cosim {

void BeatToWords(const model::Beat& beat, int data_bytes, uint32_t* words) {
  for (int w = 0; w < data_bytes / 4; ++w) {
    words[w] = uint32_t{beat[4 * w]} | uint32_t{beat[4 * w + 1]} << 8 |
               uint32_t{beat[4 * w + 2]} << 16 | uint32_t{beat[4 * w + 3]} << 24;
  }
}

void WordsToBeat(const uint32_t* words, int data_bytes, model::Beat& beat) {
  for (int j = 0; j < data_bytes; ++j)
    beat[j] = static_cast<uint8_t>(words[j / 4] >> (8 * (j % 4)));
}

}  // namespace qacc::cosim
