#include "sim/cli/hex_image.h"

#include <fmt/format.h>

#include <cstdio>
#include <string_view>

#include "sim/cli/common.h"

namespace qacc::cli {

std::string HexImage(const std::string& comment, const std::vector<int64_t>& entries,
                     int width_bits) {
  const uint64_t mask = width_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << width_bits) - 1;
  const int digits = (width_bits + 3) / 4;
  std::string image = "// " + comment + "\n";
  for (int64_t entry : entries) {
    // Converting to uint64 is modulo 2^64: the mask keeps the two's complement low bits.
    image += fmt::format("{:0{}x}\n", static_cast<uint64_t>(entry) & mask, digits);
  }
  return image;
}

void WriteFilesThenEmit(const std::vector<OutputFile>& files, const std::function<void()>& emit) {
  size_t written = 0;
  try {
    for (; written < files.size(); ++written) {
      const OutputFile& file = files[written];
      try {
        WriteFileAtomically(file.path, file.content);
      } catch (const UsageError& e) {
        // WriteFileAtomically names --output; the user gave this path with another option.
        std::string_view what = e.what();
        constexpr std::string_view kPrefix = "--output: ";
        if (what.substr(0, kPrefix.size()) == kPrefix) what.remove_prefix(kPrefix.size());
        throw UsageError(fmt::format("{}: {}", file.option, what));
      }
    }
    emit();
  } catch (...) {
    for (size_t i = 0; i < written; ++i) std::remove(files[i].path.c_str());
    throw;
  }
}

}  // namespace qacc::cli
