// The command line's number parsing (sim/cli/common.h): ParseSeed and ReadIntegersInDecimal, with
// the inputs the cli_flags fuzzing harness found (tests/fuzz/corpus/cli_flags/regression-*,
// docs/fuzzing.md).
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/cli/common.h"

namespace qacc::cli {
namespace {

TEST(ParseSeed, DecimalDigitsUpTo2To64Minus1) {
  EXPECT_EQ(ParseSeed("0", "--seed"), 0u);
  EXPECT_EQ(ParseSeed("18446744073709551615", "--seed"), UINT64_MAX);
  for (const std::string bad : {"", "-1", "+1", "1e3", "0x10", " 1", "18446744073709551616"}) {
    try {
      ParseSeed(bad, "--seed");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), "--seed: '" + bad + "' is not a seed: must be an integer in " +
                                            kSeedRange);
    }
  }
}

// Finding: leading zeros counted towards the 20 digits of 2^64 - 1, so a seed written with them was
// refused although its value is in range.
TEST(ParseSeed, LeadingZerosDoNotCount) {
  EXPECT_EQ(ParseSeed("00000000000000000000000000000000000000000000671065756", "--seed"),
            671065756u);
  EXPECT_EQ(ParseSeed("0000000000000000000000", "--seed"), 0u);
  EXPECT_EQ(ParseSeed("00018446744073709551615", "--seed"), UINT64_MAX);
  EXPECT_THROW(ParseSeed("00018446744073709551616", "--seed"), UsageError);
}

struct Parsed {
  int small = 0;
  int64_t wide = 0;
  uint64_t seed = 0;
  std::vector<int64_t> list;
};

// The options of a command, as a subcommand registers them, then ReadIntegersInDecimal as main()
// calls it; throws CLI::ParseError as main() sees it.
Parsed Parse(std::vector<std::string> args) {
  CLI::App app{"test"};
  Parsed p;
  app.add_option("--small", p.small)->check(CLI::Range(2, 16));
  app.add_option("--wide", p.wide);
  app.add_option("--seed", p.seed);
  app.add_option("--list", p.list)->delimiter(',');
  ReadIntegersInDecimal(app);
  std::reverse(args.begin(), args.end());
  app.parse(args);
  return p;
}

std::string ParseError(const std::vector<std::string>& args) {
  try {
    Parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "no error";
}

// Finding: CLI11 converts with strtoll(text, 0): "010" was 8 (octal), and a decimal beyond 64 bits
// saturated silently ("--out-zp -888...885" was -9223372036854775808).
TEST(ReadIntegersInDecimal, DecimalIsDecimalAndTooLargeIsAnError) {
  EXPECT_EQ(Parse({"--small", "010"}).small, 10);
  EXPECT_EQ(Parse({"--wide", "-0000077"}).wide, -77);
  EXPECT_EQ(Parse({"--wide", "+8"}).wide, 8);
  EXPECT_EQ(Parse({"--wide", "0"}).wide, 0);
  EXPECT_EQ(Parse({"--wide", "000"}).wide, 0);
  EXPECT_EQ(Parse({"--wide", "0x10"}).wide, 16);  // hexadecimal stays what it says
  EXPECT_EQ(Parse({"--wide", "-9223372036854775808"}).wide, INT64_MIN);
  EXPECT_EQ(Parse({"--wide", "9223372036854775807"}).wide, INT64_MAX);
  EXPECT_EQ(Parse({"--seed", "018446744073709551615"}).seed, UINT64_MAX);
  EXPECT_EQ(Parse({"--list", "010,-020,7"}).list, (std::vector<int64_t>{10, -20, 7}));
  EXPECT_NE(ParseError({"--wide", "9223372036854775808"})
                .find("9223372036854775808 is out of range of a 64-bit integer"),
            std::string::npos);
  EXPECT_NE(ParseError({"--wide", "-888888888888888888888888888885"})
                .find("-888888888888888888888888888885 is out of range of a 64-bit integer"),
            std::string::npos);
  EXPECT_NE(ParseError({"--seed", "18446744073709551616"})
                .find("18446744073709551616 is out of range of a non-negative 64-bit integer"),
            std::string::npos);
  EXPECT_NE(ParseError({"--list", "1,99999999999999999999"}).find("out of range"), std::string::npos);
  EXPECT_NE(ParseError({"--small", "017"}).find("--small"), std::string::npos);  // 17: outside 2..16
}

}  // namespace
}  // namespace qacc::cli
