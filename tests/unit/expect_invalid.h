// Assertions that a call rejects its input with std::invalid_argument and a message that names the problem.
#ifndef QACC_TESTS_UNIT_EXPECT_INVALID_H_
#define QACC_TESTS_UNIT_EXPECT_INVALID_H_

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>

namespace qacc::testing {

// The message must start with "<field>:", the convention of every golden validation error.
inline void ExpectInvalidArgument(const std::function<void()>& call, const std::string& field) {
  try {
    call();
    ADD_FAILURE() << "no exception, expected one naming " << field;
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind(field + ":", 0), 0u) << e.what();
  }
}

// The message must contain `needle` anywhere (a range, a file name, ...).
inline void ExpectInvalidArgumentMentioning(const std::function<void()>& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "no exception, expected one mentioning " << needle;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace qacc::testing

#endif  // QACC_TESTS_UNIT_EXPECT_INVALID_H_
