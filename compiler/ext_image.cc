#include "compiler/ext_image.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "compiler/residual.h"
#include "golden/lut_unit.h"

namespace qacc::compiler {

namespace {

void Put32(golden::MemoryImage& mem, size_t addr, uint32_t v) {
  for (int b = 0; b < 4; ++b) mem.at(addr + size_t(b)) = uint8_t(v >> (8 * b));
}

uint32_t Get32(const golden::MemoryImage& mem, size_t addr) {
  uint32_t v = 0;
  for (int b = 0; b < 4; ++b) v |= uint32_t(mem.at(addr + size_t(b))) << (8 * b);
  return v;
}

// The byte address of element (r, c) of a tensor in row or column panels (16.1).
size_t PanelOffset(const TensorPlacement& t, size_t r, size_t c) {
  if (t.layout == TensorPlacement::Layout::kRowPanels) {
    return t.addr + r / t.panel * t.pitch + c * t.panel + r % t.panel;
  }
  if (t.layout == TensorPlacement::Layout::kColumnPanels) {
    return t.addr + c / t.panel * t.pitch + r * t.panel + c % t.panel;
  }
  throw std::logic_error("tensor '" + t.name + "' is not in panels");
}

void CheckSize(const char* what, const std::string& layer, size_t got, size_t want) {
  if (got != want) {
    throw std::invalid_argument(
        fmt::format("{} of layer '{}': {} values, expected {}", what, layer, got, want));
  }
}

}  // namespace

void WriteInputs(const CompiledProgram& program, const Network& network,
                 const std::vector<uint8_t>& x, const std::vector<LayerData>& layers,
                 golden::MachineState& state) {
  if (state.ext.size() < program.ext_bytes) {
    throw std::invalid_argument(fmt::format("external memory: {} bytes, the program needs {}",
                                            state.ext.size(), program.ext_bytes));
  }
  if (layers.size() != network.layers.size()) {
    throw std::invalid_argument(fmt::format("layer data for {} layers, the network has {}",
                                            layers.size(), network.layers.size()));
  }
  const GemmLayer& first = network.layers.front();
  CheckSize("input x", first.name, x.size(), size_t(first.m) * size_t(first.k));
  const TensorPlacement& xt = program.tensor("x");
  for (int m = 0; m < first.m; ++m) {
    for (int k = 0; k < first.k; ++k) {
      state.ext.at(PanelOffset(xt, size_t(m), size_t(k))) = x[size_t(m) * first.k + k];
    }
  }
  for (size_t i = 0; i < layers.size(); ++i) {
    const GemmLayer& l = network.layers[i];
    const LayerData& d = layers[i];
    CheckSize("weights", l.name, d.w.size(), size_t(l.k) * size_t(l.n));
    const TensorPlacement& w = program.tensor(l.name + ".w");
    for (int k = 0; k < l.k; ++k) {
      for (int n = 0; n < l.n; ++n) {
        state.ext.at(PanelOffset(w, size_t(k), size_t(n))) = d.w[size_t(k) * l.n + n];
      }
    }
    if (l.bias) {
      CheckSize("bias", l.name, d.bias.size(), size_t(l.n));
      const TensorPlacement& b = program.tensor(l.name + ".bias");
      for (int n = 0; n < l.n; ++n) Put32(state.ext, b.addr + size_t(n) * 4, uint32_t(d.bias[n]));
    }
    if (l.per_channel) {
      CheckSize("channel_mult", l.name, d.channel_mult.size(), size_t(l.n));
      CheckSize("channel_shift", l.name, d.channel_shift.size(), size_t(l.n));
      const TensorPlacement& q = program.tensor(l.name + ".rq");
      for (int n = 0; n < l.n; ++n) {
        Put32(state.ext, q.addr + size_t(n) * 8, uint32_t(d.channel_mult[n]));
        Put32(state.ext, q.addr + size_t(n) * 8 + 4, uint32_t(d.channel_shift[n]));
      }
    }
    if (l.has_activation() && !UsesSlopeStage(l)) {  // the table's slot image (lut.md 10.1)
      const TensorPlacement& t = program.tensor(l.name + ".act");
      const std::vector<uint8_t> image = golden::LutSlotImage(ActivationTable(l));
      for (size_t b = 0; b < image.size(); ++b) state.ext.at(t.addr + b) = image[b];
    }
    if (l.has_residual() && l.residual.has_activation()) {  // the residual's table, likewise
      const TensorPlacement& t = program.tensor(l.name + ".res_act");
      const std::vector<uint8_t> image = golden::LutSlotImage(ResidualActivationTable(l));
      for (size_t b = 0; b < image.size(); ++b) state.ext.at(t.addr + b) = image[b];
    }
  }
  golden::StoreProgram(program.descriptors, program.q_base, state);
}

std::vector<int32_t> ReadOutput(const CompiledProgram& program, const Network& network,
                                const golden::MachineState& state) {
  const GemmLayer& l = network.layers.back();
  const TensorPlacement& y = program.tensor("y");
  std::vector<int32_t> out(size_t(l.m) * size_t(l.n));
  for (int m = 0; m < l.m; ++m) {
    for (int n = 0; n < l.n; ++n) {
      int32_t v = 0;
      if (l.out_int32) {
        v = int32_t(Get32(state.ext, y.addr + size_t(m) * y.pitch + size_t(n) * 4));
      } else if (l.out_bytes() == 2) {
        const size_t at = y.addr + size_t(m) * y.pitch + size_t(n) * 2;
        const uint32_t code = uint32_t(state.ext.at(at)) | uint32_t(state.ext.at(at + 1)) << 8;
        v = l.out_unsigned() ? int32_t(code) : int32_t(int16_t(code));
      } else {
        const uint8_t byte = state.ext.at(y.addr + size_t(m) * y.pitch + size_t(n));
        v = l.out_unsigned() ? int32_t(byte) : int32_t(int8_t(byte));
      }
      out[size_t(m) * l.n + n] = v;
    }
  }
  return out;
}

}  // namespace qacc::compiler
