// Status, Result<T> and the propagation macros.
#include "base/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "base/result.h"

namespace kiln {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kOk);
  EXPECT_EQ(status.message(), "");
  EXPECT_EQ(status.ToString(), "OK");
  EXPECT_TRUE(OkStatus().ok());
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status status = InvalidArgumentError("bad operand");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "bad operand");
  EXPECT_EQ(status.ToString(), "INVALID_ARGUMENT: bad operand");
}

TEST(StatusTest, EveryHelperHasItsCodeAndName) {
  struct Case {
    Status status;
    StatusCode code;
    const char* name;
  };
  const Case cases[] = {
      {InvalidArgumentError("m"), StatusCode::kInvalidArgument, "INVALID_ARGUMENT"},
      {NotFoundError("m"), StatusCode::kNotFound, "NOT_FOUND"},
      {OutOfRangeError("m"), StatusCode::kOutOfRange, "OUT_OF_RANGE"},
      {FailedPreconditionError("m"), StatusCode::kFailedPrecondition, "FAILED_PRECONDITION"},
      {ResourceExhaustedError("m"), StatusCode::kResourceExhausted, "RESOURCE_EXHAUSTED"},
      {UnimplementedError("m"), StatusCode::kUnimplemented, "UNIMPLEMENTED"},
      {UnavailableError("m"), StatusCode::kUnavailable, "UNAVAILABLE"},
      {DataLossError("m"), StatusCode::kDataLoss, "DATA_LOSS"},
      {InternalError("m"), StatusCode::kInternal, "INTERNAL"},
      {AbortedError("m"), StatusCode::kAborted, "ABORTED"},
      {DeadlineExceededError("m"), StatusCode::kDeadlineExceeded, "DEADLINE_EXCEEDED"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.status.code(), c.code);
    EXPECT_EQ(StatusCodeName(c.code), c.name);
    EXPECT_EQ(c.status.ToString(), std::string(c.name) + ": m");
  }
  EXPECT_EQ(StatusCodeName(StatusCode::kOk), "OK");
  EXPECT_EQ(StatusCodeName(StatusCode::kAlreadyExists), "ALREADY_EXISTS");
  EXPECT_EQ(StatusCodeName(StatusCode::kPermissionDenied), "PERMISSION_DENIED");
}

TEST(StatusTest, WithContextPrefixesAndKeepsCode) {
  Status status = NotFoundError("no such export").WithContext("linking 'app'").WithContext("run");
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "run: linking 'app': no such export");
}

TEST(StatusTest, WithContextLeavesOkAlone) {
  Status status = OkStatus().WithContext("ignored");
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.message(), "");
}

TEST(ResultTest, HoldsValue) {
  Result<int> result = 42;
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result.status().ok());
  EXPECT_EQ(*result, 42);
  EXPECT_EQ(result.value(), 42);
  *result = 7;
  EXPECT_EQ(result.value(), 7);
}

TEST(ResultTest, HoldsError) {
  Result<int> result = OutOfRangeError("index 9 out of range");
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(result.status().message(), "index 9 out of range");
}

TEST(ResultTest, OkStatusIsTurnedIntoAnInternalError) {
  // A Result built from OK would have neither value nor error; it must not
  // pretend to succeed.
  Result<int> result = OkStatus();
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInternal);
  EXPECT_EQ(result.status().message(), "Result constructed from an OK status");
}

TEST(ResultTest, MoveOnlyValueAndArrow) {
  Result<std::unique_ptr<std::string>> result = std::make_unique<std::string>("kiln");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)->size(), 4u);
  std::unique_ptr<std::string> taken = std::move(result).value();
  EXPECT_EQ(*taken, "kiln");

  Result<std::string> text = std::string("abc");
  EXPECT_EQ(text->size(), 3u);
}

Result<int> ParsePositive(int value) {
  if (value <= 0)
    return InvalidArgumentError("expected a positive value, got " + std::to_string(value));
  return value;
}

Result<int> DoubleIt(int value) {
  KILN_ASSIGN_OR_RETURN(int parsed, ParsePositive(value));
  return parsed * 2;
}

Result<int> SumOfDoubles(int a, int b) {
  // Two expansions in one function need distinct temporaries.
  KILN_ASSIGN_OR_RETURN(int x, DoubleIt(a));
  KILN_ASSIGN_OR_RETURN(int y, DoubleIt(b));
  return x + y;
}

Status CheckBoth(int a, int b) {
  KILN_RETURN_IF_ERROR(ParsePositive(a).status());
  KILN_RETURN_IF_ERROR(ParsePositive(b).status().WithContext("second value"));
  return OkStatus();
}

TEST(ResultTest, AssignOrReturnUnwrapsValues) {
  Result<int> result = SumOfDoubles(3, 4);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(*result, 14);
}

TEST(ResultTest, AssignOrReturnPropagatesTheFirstError) {
  Result<int> result = SumOfDoubles(3, -4);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), "expected a positive value, got -4");
}

TEST(ResultTest, AssignOrReturnAssignsToExistingVariable) {
  auto run = [](int v) -> Result<std::string> {
    std::string text = "unset";
    int parsed = 0;
    KILN_ASSIGN_OR_RETURN(parsed, ParsePositive(v));
    text = std::to_string(parsed);
    return text;
  };
  EXPECT_EQ(*run(5), "5");
  EXPECT_EQ(run(0).status().message(), "expected a positive value, got 0");
}

TEST(ResultTest, ReturnIfErrorPropagates) {
  EXPECT_TRUE(CheckBoth(1, 2).ok());
  Status status = CheckBoth(1, -2);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "second value: expected a positive value, got -2");
}

}  // namespace
}  // namespace kiln
