// The `check` VM module (tools/common/check_module.h): every expectation on
// passing and failing values of each element type, NaN, shape and type
// mismatches, failures recorded per context without failing the call, and
// the errors of calls that are not comparisons at all.
#include "tools/common/check_module.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "hal/builtin_drivers.h"
#include "hal/driver_registry.h"
#include "hal/module/check_imports.h"
#include "hal/module/hal_module.h"
#include "tools/common/device_tensor.h"
#include "tools/common/tensor_literal.h"
#include "vm/byte_buffer.h"
#include "vm/invocation.h"
#include "vm/list.h"

namespace kiln::tools {
namespace {

using vm::Variant;

class CheckModuleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    hal::DriverRegistry registry;
    ASSERT_TRUE(hal::RegisterBuiltinDrivers(registry).ok());
    auto device = registry.CreateDevice("cpu-sync");
    ASSERT_TRUE(device.ok()) << device.status().ToString();
    device_ = *device;
    instance_ = vm::Instance::Create();
    auto module = CreateCheckModule(*instance_);
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    module_ = *module;
    auto context = vm::Context::Create(instance_, {module_});
    ASSERT_TRUE(context.ok()) << context.status().ToString();
    context_ = *context;
  }

  Variant View(std::string_view literal) {
    auto tensor = ParseTensorLiteral(literal);
    EXPECT_TRUE(tensor.ok()) << tensor.status().ToString();
    if (!tensor.ok()) return Variant::FromRef(nullptr);
    auto view = UploadTensor(*device_, *tensor);
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    return Variant::FromRef(hal::WrapBufferView(view.ok() ? *view : nullptr));
  }
  // A view of raw little-endian bits (NaN payloads, -0.0).
  template <typename T>
  Variant RawView(std::vector<T> values, hal::ElementType type) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    auto tensor = HostTensor::FromBytes({static_cast<int64_t>(values.size())}, type, bytes);
    EXPECT_TRUE(tensor.ok());
    auto view = UploadTensor(*device_, *tensor);
    EXPECT_TRUE(view.ok());
    return Variant::FromRef(hal::WrapBufferView(*view));
  }
  Variant Device() { return Variant::FromRef(hal::WrapDevice(device_)); }
  Variant Location(std::string_view text = "test.mlir:3:5") {
    auto buffer = vm::ByteBuffer::Allocate(text.size());
    EXPECT_TRUE(buffer.ok());
    std::memcpy((*buffer)->mutable_data(), text.data(), text.size());
    return Variant::FromRef(*buffer);
  }

  // Calls check.<name>; the failures it recorded (the call itself must
  // succeed).
  std::vector<CheckFailure> Call(std::string_view name, std::vector<Variant> args) {
    Status status = CallStatus(name, std::move(args));
    EXPECT_TRUE(status.ok()) << status.ToString();
    return TakeCheckFailures(*context_, *module_);
  }
  Status CallStatus(std::string_view name, std::vector<Variant> args) {
    Ref<vm::List> list = vm::List::Create();
    for (Variant& arg : args) list->Push(std::move(arg));
    return vm::Invoke(*context_, "check." + std::string(name), *list).status();
  }
  bool Passes(std::string_view name, std::vector<Variant> args) {
    return Call(name, std::move(args)).empty();
  }
  std::vector<CheckFailure> Eq(std::string_view lhs, std::string_view rhs) {
    return Call("expect_eq", {Device(), View(lhs), View(rhs), Location()});
  }
  std::vector<CheckFailure> AlmostEq(std::string_view lhs, std::string_view rhs, float atol = 1e-4f,
                                     float rtol = 0.f) {
    return Call("expect_almost_eq", {Device(), View(lhs), View(rhs), Variant::F32(atol),
                                     Variant::F32(rtol), Location()});
  }

  Ref<hal::Device> device_;
  Ref<vm::Instance> instance_;
  Ref<vm::Module> module_;
  Ref<vm::Context> context_;
};

TEST_F(CheckModuleTest, ExportsTheImportTable) {
  ASSERT_EQ(module_->name(), hal::kCheckModuleName);
  ASSERT_EQ(module_->exports().size(), hal::kCheckImports.size());
  for (size_t i = 0; i < hal::kCheckImports.size(); ++i) {
    EXPECT_EQ(module_->exports()[i].name, hal::kCheckImports[i].name);
    EXPECT_EQ(module_->exports()[i].signature, hal::kCheckImports[i].signature);
  }
}

TEST_F(CheckModuleTest, ExpectTrueAndFalse) {
  EXPECT_TRUE(Passes("expect_true", {Variant::I32(1), Location()}));
  EXPECT_TRUE(Passes("expect_true", {Variant::I32(-7), Location()}));
  EXPECT_TRUE(Passes("expect_false", {Variant::I32(0), Location()}));
  auto failures = Call("expect_true", {Variant::I32(0), Location("t.mlir:1:2")});
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].location, "t.mlir:1:2");
  EXPECT_EQ(failures[0].message, "expect_true failed: the operand is 0");
  EXPECT_EQ(failures[0].ToString(), "t.mlir:1:2: expect_true failed: the operand is 0");
  failures = Call("expect_false", {Variant::I32(3), Location("")});
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].ToString(), "expect_false failed: the operand is 3");
}

TEST_F(CheckModuleTest, ExpectAllTrue) {
  EXPECT_TRUE(Passes("expect_all_true", {Device(), View("2x2xi32=1 -1 2 3"), Location()}));
  EXPECT_TRUE(Passes("expect_all_true", {Device(), View("3xi1=1 1 1"), Location()}));
  EXPECT_TRUE(Passes("expect_all_true", {Device(), View("0xi8="), Location()}));
  auto failures = Call("expect_all_true", {Device(), View("2x2xi64=1 2 0 4"), Location()});
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].message,
            "expect_all_true failed: element [1, 0] is 0\n  operand: 2x2xi64=[1 2][0 4]");
  EXPECT_EQ(Call("expect_all_true", {Device(), View("2xi8=1 0"), Location()}).size(), 1u);
}

TEST_F(CheckModuleTest, ExpectEqEveryElementType) {
  for (const char* type : {"i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"}) {
    SCOPED_TRACE(type);
    const std::string t(type);
    EXPECT_TRUE(Eq("3x" + t + "=1 0 1", "3x" + t + "=1 0 1").empty());
    auto failures = Eq("3x" + t + "=1 0 1", "3x" + t + "=1 1 1");
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_EQ(failures[0].location, "test.mlir:3:5");
    EXPECT_EQ(failures[0].message.rfind("expect_eq failed: element [1]: expected 1 but got 0", 0),
              0u)
        << failures[0].message;
  }
}

TEST_F(CheckModuleTest, ExpectEqPrintsBothTensors) {
  auto failures = Eq("2x2xi32=[1 2][3 4]", "2x2xi32=[1 2][3 5]");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].message,
            "expect_eq failed: element [1, 1]: expected 5 but got 4\n"
            "  lhs: 2x2xi32=[1 2][3 4]\n"
            "  rhs: 2x2xi32=[1 2][3 5]");
}

TEST_F(CheckModuleTest, ExpectEqAbbreviatesLargeTensors) {
  auto failures = Eq("1000xf32=1", "1000xf32=2");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].message.find("..."), std::string::npos) << failures[0].message;
  EXPECT_LT(failures[0].message.size(), 600u);
}

TEST_F(CheckModuleTest, ExpectEqComparesShapeAndTypeFirst) {
  auto failures = Eq("2x3xf32=1", "3x2xf32=1");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].message,
            "expect_eq failed: shapes differ (2x3xf32 vs 3x2xf32)\n"
            "  lhs: 2x3xf32=[1 1 1][1 1 1]\n"
            "  rhs: 3x2xf32=[1 1][1 1][1 1]");
  failures = Eq("2xi32=1 2", "2xf32=1 2");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].message.rfind("expect_eq failed: element types differ (i32 vs f32)", 0), 0u)
      << failures[0].message;
  EXPECT_EQ(Eq("4xf32=1", "2x2xf32=1").size(), 1u);
}

TEST_F(CheckModuleTest, ExpectEqIsBitwise) {
  const hal::ElementType f32 = hal::ElementType::kFloat32;
  const uint32_t nan = 0x7FC00000u, other_nan = 0x7FC00001u;
  const uint32_t zero = 0x00000000u, negative_zero = 0x80000000u;
  auto eq = [&](std::vector<uint32_t> a, std::vector<uint32_t> b) {
    return Call("expect_eq", {Device(), RawView(a, f32), RawView(b, f32), Location()});
  };
  EXPECT_TRUE(eq({nan, zero}, {nan, zero}).empty());
  EXPECT_EQ(eq({nan}, {other_nan}).size(), 1u);
  EXPECT_EQ(eq({zero}, {negative_zero}).size(), 1u);
}

TEST_F(CheckModuleTest, ExpectAlmostEqTolerances) {
  EXPECT_TRUE(AlmostEq("2xf32=1 2", "2xf32=1.00005 2").empty());  // Default atol 1e-4.
  EXPECT_EQ(AlmostEq("2xf32=1 2", "2xf32=1.001 2").size(), 1u);
  EXPECT_TRUE(AlmostEq("1xf32=100", "1xf32=100.5", 0.f, 1e-2f).empty());  // rtol * |rhs|.
  EXPECT_EQ(AlmostEq("1xf32=100", "1xf32=100.5", 0.f, 1e-3f).size(), 1u);
  EXPECT_TRUE(AlmostEq("1xf32=100", "1xf32=100.5", 0.5f, 0.f).empty());  // <= is inclusive.
  // The tolerance scales with rhs, the expected value.
  EXPECT_TRUE(AlmostEq("1xf32=1", "1xf32=2", 0.f, 0.5f).empty());
  EXPECT_EQ(AlmostEq("1xf32=2", "1xf32=1", 0.f, 0.5f).size(), 1u);
  auto failures = AlmostEq("2xf32=1 4", "2xf32=1 4.01", 1e-3f);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].message,
            "expect_almost_eq (atol 0.001, rtol 0) failed: element [1]: expected 4.01 but got 4\n"
            "  lhs: 2xf32=1 4\n"
            "  rhs: 2xf32=1 4.01");
}

TEST_F(CheckModuleTest, ExpectAlmostEqEveryFloatType) {
  for (const char* type : {"f16", "bf16", "f32", "f64"}) {
    SCOPED_TRACE(type);
    const std::string t(type);
    EXPECT_TRUE(AlmostEq("2x" + t + "=0.5 -3", "2x" + t + "=0.5 -3").empty());
    EXPECT_TRUE(AlmostEq("2x" + t + "=0.5 -3", "2x" + t + "=0.5 -3.0625", 0.1f).empty());
    EXPECT_EQ(AlmostEq("2x" + t + "=0.5 -3", "2x" + t + "=0.5 -3.5").size(), 1u);
  }
  // Integers compare exactly.
  EXPECT_TRUE(AlmostEq("2xi32=1 2", "2xi32=1 2").empty());
  EXPECT_EQ(AlmostEq("2xi8=1 2", "2xi8=1 3", 5.f).size(), 1u);
}

TEST_F(CheckModuleTest, ExpectAlmostEqNaNAndInfinities) {
  EXPECT_TRUE(AlmostEq("3xf32=nan inf -inf", "3xf32=nan inf -inf").empty());
  EXPECT_TRUE(AlmostEq("1xf16=nan", "1xf16=nan").empty());
  EXPECT_EQ(AlmostEq("1xf32=nan", "1xf32=1").size(), 1u);
  EXPECT_EQ(AlmostEq("1xf32=1", "1xf32=nan").size(), 1u);
  EXPECT_EQ(AlmostEq("1xf32=inf", "1xf32=-inf", 1e30f).size(), 1u);
  EXPECT_EQ(AlmostEq("1xf32=inf", "1xf32=3e38", 1e30f).size(), 1u);
}

TEST_F(CheckModuleTest, ExpectAlmostEqComparesShapeAndTypeFirst) {
  auto failures = AlmostEq("2xf32=1 2", "3xf32=1 2 3", 10.f);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].message.rfind(
                "expect_almost_eq (atol 10, rtol 0) failed: shapes differ (2xf32 vs 3xf32)", 0),
            0u)
      << failures[0].message;
  EXPECT_EQ(AlmostEq("2xf32=1 2", "2xf64=1 2").size(), 1u);
}

TEST_F(CheckModuleTest, FailuresAccumulateUntilTaken) {
  Ref<vm::List> args = vm::List::Create();
  args->Push(Variant::I32(0));
  args->Push(Location("a.mlir:1:1"));
  ASSERT_TRUE(vm::Invoke(*context_, "check.expect_true", *args).ok());
  ASSERT_TRUE(vm::Invoke(*context_, "check.expect_true", *args).ok());
  EXPECT_EQ(TakeCheckFailures(*context_, *module_).size(), 2u);
  EXPECT_TRUE(TakeCheckFailures(*context_, *module_).empty());
}

TEST_F(CheckModuleTest, ContextsKeepTheirOwnFailures) {
  auto other = vm::Context::Create(instance_, {module_});
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(Call("expect_true", {Variant::I32(0), Location()}).size(), 1u);
  EXPECT_TRUE(TakeCheckFailures(**other, *module_).empty());
}

TEST_F(CheckModuleTest, TakeFromAnotherModuleIsEmpty) {
  auto hal_module = hal::CreateHalModule(*instance_, {device_});
  ASSERT_TRUE(hal_module.ok());
  EXPECT_TRUE(TakeCheckFailures(*context_, **hal_module).empty());
}

TEST_F(CheckModuleTest, BadOperandsAreErrors) {
  Status status =
      CallStatus("expect_eq", {Device(), Variant::FromRef(nullptr), View("1xi32=1"), Location()});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("argument 1 (lhs): expected hal.buffer_view"), std::string::npos)
      << status.ToString();
  status = CallStatus("expect_eq", {View("1xi32=1"), View("1xi32=1"), View("1xi32=1"), Location()});
  EXPECT_NE(status.message().find("argument 0 (device): expected hal.device"), std::string::npos)
      << status.ToString();
  status = CallStatus("expect_true", {Variant::I32(1), View("1xi32=1")});
  EXPECT_NE(status.message().find("argument 1 (location): expected vm.buffer"), std::string::npos)
      << status.ToString();
  status = CallStatus("expect_almost_eq", {Device(), View("1xf32=1"), View("1xf32=1"),
                                           Variant::F32(-1.f), Variant::F32(0.f), Location()});
  EXPECT_NE(status.message().find("argument 3 (atol)"), std::string::npos) << status.ToString();
  status = CallStatus("expect_true", {Variant::I64(1), Location()});
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(TakeCheckFailures(*context_, *module_).empty());
}

}  // namespace
}  // namespace kiln::tools
