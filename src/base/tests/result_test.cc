#include "base/result.h"

#include <gtest/gtest.h>

#include <string>

namespace magnetar {
namespace {

result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return fail(base::errc::invalid_argument, fmt::format("'{}' is not a digit", c));
  return c - '0';
}

result<int> sum_of_two_digits(char a, char b) {
  MAGNETAR_TRY(x, parse_digit(a));
  MAGNETAR_TRY(y, parse_digit(b));
  return x + y;
}

TEST(result, carries_a_value) {
  auto r = parse_digit('7');
  ASSERT_TRUE(r);
  EXPECT_EQ(r.value(), 7);
}

TEST(result, carries_the_error_code_and_detail) {
  auto r = parse_digit('x');
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), base::errc::invalid_argument);
  EXPECT_EQ(r.error().message(), "'x' is not a digit: invalid argument");
}

TEST(result, try_propagates_the_first_error) {
  auto r = sum_of_two_digits('1', 'y');
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().detail(), "'y' is not a digit");
  EXPECT_EQ(sum_of_two_digits('3', '4').value(), 7);
}

TEST(result, error_code_names_the_category) {
  std::error_code code = base::errc::corrupt_data;
  EXPECT_STREQ(code.category().name(), "magnetar.base");
  EXPECT_EQ(code.message(), "corrupt data");
}

TEST(result, error_without_detail_prints_the_code_message) {
  error e(base::errc::timed_out);
  EXPECT_EQ(e.message(), "timed out");
  EXPECT_EQ(fmt::format("{}", e), "timed out");
}

TEST(result_death, reading_the_value_of_a_failure_aborts) {
  result<int> r = fail(base::errc::not_found, "ledger 7");
  EXPECT_DEATH((void)r.value(), "value of a failed result: ledger 7: not found");
}

TEST(assert_death, a_failed_assertion_logs_and_aborts) {
  EXPECT_DEATH(MAGNETAR_ASSERT(1 + 1 == 3, "arithmetic is {}", "broken"),
               "assertion failed: 1 \\+ 1 == 3 .*arithmetic is broken");
}

}  // namespace
}  // namespace magnetar
