// $readmemh images of lookup tables (qacc lut --hex, qacc softmax-tables --hex-prefix), and writing
// several output files so that a failed command leaves none of them.
//
// Image format: one `// ...` comment line, then one word per line, address 0 first, each word the
// low `width_bits` bits of the entry (two's complement for negative entries) as ceil(width_bits /
// 4) lower-case hex digits. Verilog's $readmemh skips // comments.
#ifndef QACC_SIM_CLI_HEX_IMAGE_H_
#define QACC_SIM_CLI_HEX_IMAGE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace qacc::cli {

// The image of `entries` (by address) in words of width_bits (1..64) bits.
std::string HexImage(const std::string& comment, const std::vector<int64_t>& entries,
                     int width_bits);

struct OutputFile {
  std::string option;  // the option that named the file, for error messages ("--hex")
  std::string path;
  std::string content;
};

// Writes each file atomically (WriteFileAtomically), then calls `emit` (the command's stdout or -o
// output). When a write or `emit` fails, removes the files already written and rethrows; a write
// error becomes a UsageError naming the file's option.
void WriteFilesThenEmit(const std::vector<OutputFile>& files, const std::function<void()>& emit);

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_HEX_IMAGE_H_
