// The layer compiler (docs/data_movement.md 16): lowers a chain of GEMM layers into one program of
// LOAD, GEMM, MOVE, ELTWISE (residual adds) and STORE descriptors for a config's SRAM capacities,
// double-buffers where it can, keeps intermediates on chip where they fit, places every tensor in
// external memory and sets the WAIT/SIGNAL tokens so that the program is race free. It is the one
// place where layers are tiled over the SRAMs.
#ifndef QACC_COMPILER_COMPILER_H_
#define QACC_COMPILER_COMPILER_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/launches.h"
#include "compiler/network.h"
#include "golden/program.h"
#include "model/arch.h"

namespace qacc::compiler {

// A layer that cannot be split to fit the config (exit code 2 in qacc compile).
class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CompileOptions {
  bool double_buffer =
      true;  // two slots per streamed operand and output, overlapping DMA and compute
  bool chain_on_chip = true;  // keep an intermediate in the A SRAM (MOVE) when it fits
  // The longest launch, 1..arch::kMaxQCount (what Q_COUNT holds): the program is cut into launches
  // of this many descriptors (the last one shorter), its tokens derived launch by launch
  // (launches.h). Lower values split small programs (tests, --max-launch).
  uint32_t max_launch_descriptors = arch::kMaxQCount;
};

// Where a tensor lives in external memory (16.1).
struct TensorPlacement {
  enum class Kind : uint8_t {
    kInput,
    kWeights,
    kBias,
    kRq,
    kTable,
    kIntermediate,
    kOutput,
    kResidual,  // a layer's output kept for a later layer's residual add (16.4)
  };
  enum class Layout : uint8_t {
    // Activations (the A operand), in panels of `panel` rows, one panel every `pitch` bytes:
    // element (r, c) at (r / panel) * pitch + c * panel + r % panel.
    kRowPanels,
    // Weights (the B operand), in panels of `panel` columns, one panel every `pitch` bytes:
    // element (r, c) at (c / panel) * pitch + r * panel + c % panel.
    kColumnPanels,
    kRowMajor,     // element (r, c) at r * pitch + c * element_bytes
    kPackedWords,  // bias (int32 per column), rq (8 bytes per column), padded to whole words, or
                   // a LUT table slot (lut.md 10.1)
    // Output tiles of `panel` rows and C columns, each row-major (as the out SRAM holds its int8
    // rows), one row of tiles every `pitch` bytes: element (r, c) at (r / panel) * pitch +
    // (c / C) * panel * C + (r % panel) * C + c % C.
    kTiles,
  };
  // "x", "fc1.w", "fc1.bias", "fc1.rq", "fc1.act" (an activation's table slot image, 512
  // bytes), "fc1.y" (intermediate), "fc1.res" (fc1's output for a residual, in tiles),
  // "fc3.res_act" (fc3's residual's table), "y"
  std::string name;
  Kind kind = Kind::kInput;
  Layout layout = Layout::kRowMajor;
  int layer = -1;          // the layer it belongs to (-1: the network input)
  int rows = 0, cols = 0;  // logical shape (bias and rq: 1 x N)
  uint32_t element_bytes = 1;
  uint32_t addr = 0;   // byte address, a multiple of 256
  uint32_t pitch = 0;  // bytes between rows (panel layouts: between panels)
  uint32_t panel = 0;  // panel layouts: rows (kRowPanels) or columns (kColumnPanels) per panel
  uint32_t bytes = 0;  // allocated bytes
};

// Per-layer summary of the plan.
struct LayerPlan {
  std::string name;
  int a_panels_per_chunk = 0, b_panels_per_chunk = 0;  // panels of R rows / C columns per command
  int a_chunks = 0, b_chunks = 0, steps = 0;           // steps: GEMM commands
  bool a_resident = false;                             // A loaded once (or produced on chip)
  bool b_resident = false;
  bool input_on_chip = false;   // A came from the previous layer by MOVE
  bool output_on_chip = false;  // the output went to the next layer by MOVE
  std::string residual_from;    // the earlier layer its residual adds (an ELTWISE per GEMM)
  // The unit of the layer's activation: "lut" (a table), "slope" (the slope stage, a SET of its
  // registers before the layer's GEMMs), or empty without one.
  std::string activation_unit;
  int a_slots = 0, b_slots = 0, out_slots = 0;
  // Not empty when double buffering was asked for but this layer fits only with one slot per
  // operand: why two do not fit (the compiler's message for that plan).
  std::string single_buffered_because;
};

struct CompiledProgram {
  std::vector<golden::Descriptor> descriptors;
  uint32_t q_base = 0;  // where the program goes in external memory
  // How the host runs it: one CTRL.RUN per launch, in order (data_movement.md 14.4); one launch
  // unless the program is longer than Q_COUNT holds.
  std::vector<Launch> launches;
  uint32_t ext_bytes = 0;  // external memory the tensors and the program need
  std::vector<TensorPlacement> tensors;
  std::vector<LayerPlan> layers;
  // Counts for reports.
  int64_t loads = 0, stores = 0, gemms = 0, moves = 0, eltwises = 0;
  uint64_t bytes_loaded = 0, bytes_stored = 0;

  const TensorPlacement& tensor(const std::string& name) const;  // throws std::out_of_range
};

// The geometry the golden executor needs, from a config.
golden::AccelGeometry GeometryOf(const arch::ArchConfig& config);

// Throws std::invalid_argument for an invalid network (ValidateNetwork) and CompileError naming the
// layer, the dimension and the limit for a layer that cannot be split to fit:
// "layer 'fc1': K = 9000 exceeds the A SRAM depth 8192 (one panel of K words must fit; K is never
// split)".
CompiledProgram Compile(const arch::ArchConfig& config, const Network& network,
                        const CompileOptions& options = {});

}  // namespace qacc::compiler

#endif  // QACC_COMPILER_COMPILER_H_
