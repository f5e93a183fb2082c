// Reads the $readmemh images qacc writes (sim/cli/hex_image.h) back, strictly, for the CLI tests.
#ifndef QACC_TESTS_CLI_HEX_READER_H_
#define QACC_TESTS_CLI_HEX_READER_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace qacc::testing {

struct ReadHex {
  std::string comment;  // the first line, "// ..."
  std::vector<uint64_t> words;
};

// The comment line, then one word per line of exactly `digits` lower-case hex digits; any other
// line fails the test.
inline ReadHex ReadHexImage(const std::filesystem::path& path, int digits) {
  ReadHex image;
  std::ifstream in(path);
  EXPECT_TRUE(std::getline(in, image.comment)) << path;
  EXPECT_EQ(image.comment.rfind("// ", 0), 0u) << image.comment;
  for (std::string line; std::getline(in, line);) {
    EXPECT_EQ(line.size(), static_cast<size_t>(digits)) << path << ": '" << line << "'";
    EXPECT_EQ(line.find_first_not_of("0123456789abcdef"), std::string::npos) << line;
    image.words.push_back(std::stoull(line, nullptr, 16));
  }
  return image;
}

// A `bits`-wide word read as a two's complement code when `is_signed`.
inline int64_t WordToCode(uint64_t word, int bits, bool is_signed) {
  const bool negative = is_signed && (word >> (bits - 1)) != 0;
  return negative ? static_cast<int64_t>(word) - (int64_t{1} << bits) : static_cast<int64_t>(word);
}

}  // namespace qacc::testing

#endif  // QACC_TESTS_CLI_HEX_READER_H_
