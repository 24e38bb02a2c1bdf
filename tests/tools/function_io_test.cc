// The values of an invocation at the tools' boundary
// (tools/common/function_io.h): signatures with reflection, parsing and
// checking inputs, buffer views on a device and back, comparison with
// thresholds, and --output files.
#include "tools/common/function_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "hal/builtin_drivers.h"
#include "hal/driver_registry.h"
#include "hal/module/hal_module.h"
#include "tests/tools/test_modules.h"
#include "tools/common/npy.h"

namespace kiln::tools {
namespace {

ValueSpec Scalar(char type_char) {
  ValueSpec spec;
  spec.type_char = type_char;
  return spec;
}

ValueSpec Tensor(std::string description) {
  ValueSpec spec;
  spec.type_char = 'r';
  spec.description = description;
  auto type = ParseTensorTypeDescription(description);
  EXPECT_TRUE(type.ok());
  if (type.ok()) spec.tensor = *type;
  return spec;
}

HostTensor Literal(std::string_view text) {
  auto tensor = ParseTensorLiteral(text);
  EXPECT_TRUE(tensor.ok()) << tensor.status().ToString();
  return tensor.ok() ? *tensor : HostTensor{};
}

class FunctionIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    hal::DriverRegistry registry;
    ASSERT_TRUE(hal::RegisterBuiltinDrivers(registry).ok());
    auto device = registry.CreateDevice("cpu-sync");
    ASSERT_TRUE(device.ok());
    device_ = *device;
  }

  Result<std::vector<HostValue>> Parse(std::vector<std::string> texts, std::vector<ValueSpec> specs,
                                       ValueRole role = ValueRole::kInput) {
    return ParseFunctionValues(texts, specs, "f", role, files_);
  }

  std::string ParseError(std::vector<std::string> texts, std::vector<ValueSpec> specs,
                         ValueRole role = ValueRole::kInput) {
    auto values = Parse(std::move(texts), std::move(specs), role);
    EXPECT_FALSE(values.ok());
    return values.ok() ? std::string() : values.status().message();
  }

  Ref<hal::Device> device_;
  InputFiles files_;
};

TEST_F(FunctionIoTest, DescribesExportsFromReflection) {
  Ref<vm::Instance> instance = vm::Instance::Create();
  ASSERT_TRUE(hal::RegisterHalTypes(*instance).ok());
  auto bytes = testing::BuildTensorsTestModule();
  ASSERT_TRUE(bytes.ok());
  auto module = vm::BytecodeModule::Load(*instance, AlignedBuffer::CopyOf(*bytes));
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  const vm::ExportedFunction* mixed = (*module)->LookupExport("mixed");
  ASSERT_NE(mixed, nullptr);
  auto spec = DescribeFunction(**module, *mixed);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_EQ(spec->arguments.size(), 3u);
  EXPECT_EQ(spec->arguments[0].type_char, 'i');
  EXPECT_FALSE(spec->arguments[0].tensor);
  ASSERT_TRUE(spec->arguments[1].tensor);
  EXPECT_EQ(spec->arguments[1].tensor->ToString(), "tensor<?xf32>");
  ASSERT_EQ(spec->results.size(), 3u);
  EXPECT_EQ(spec->results[2].description, "i32");
  // No reflection: refs of unknown type.
  auto any = DescribeFunction(**module, *(*module)->LookupExport("echo_any"));
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->arguments[0].type_char, 'r');
  EXPECT_TRUE(any->arguments[0].description.empty());
  EXPECT_FALSE(any->arguments[0].tensor);
}

TEST_F(FunctionIoTest, ParsesScalarsAndTensors) {
  auto values =
      Parse({"5", "2x2xf32=[1 2][3 4]", "1 2 3", "f32=1.5"},
            {Scalar('i'), Tensor("tensor<?x2xf32>"), Tensor("tensor<3xi8>"), Scalar('f')});
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ((*values)[0].kind, HostValue::Kind::kScalar);
  EXPECT_EQ((*values)[0].scalar.i32(), 5);
  EXPECT_EQ((*values)[1].kind, HostValue::Kind::kTensor);
  EXPECT_EQ((*values)[1].tensor, Literal("2x2xf32=1 2 3 4"));
  EXPECT_EQ((*values)[2].tensor, Literal("3xi8=1 2 3"));  // Typed by the declaration.
  EXPECT_EQ((*values)[3].scalar.f32(), 1.5f);
  // A shape and type alone is zeros; a hex value is not a shape.
  auto zeros = Parse({"0x2xi8", "2xf16", "0x1p1"},
                     {Scalar('r'), Tensor("tensor<2xf16>"), Tensor("tensor<f32>")});
  ASSERT_TRUE(zeros.ok()) << zeros.status().ToString();
  EXPECT_EQ((*zeros)[0].tensor, Literal("0x2xi8="));
  EXPECT_EQ((*zeros)[1].tensor, Literal("2xf16=0 0"));
  EXPECT_EQ((*zeros)[2].tensor, Literal("f32=2"));
}

TEST_F(FunctionIoTest, ReportsMismatchesByPosition) {
  EXPECT_EQ(ParseError({"4xf32=1"}, {Tensor("tensor<?x4xf32>")}),
            "input 0 of function 'f': argument 0 is tensor<?x4xf32> but '4xf32=1' is 4xf32 (rank 1 "
            "differs from 2)");
  EXPECT_EQ(ParseError({"1", "4xi32=1"}, {Scalar('i'), Tensor("tensor<4xf32>")}),
            "input 1 of function 'f': argument 1 is tensor<4xf32> but '4xi32=1' is 4xi32 (element "
            "type i32 differs from f32)");
  EXPECT_EQ(ParseError({"4xi32=1"}, {Scalar('i')}),
            "input 0 of function 'f': '4xi32=1' is a tensor but the signature expects i32");
  EXPECT_EQ(ParseError({"1"}, {Tensor("tensor<?xf32>")}),
            "input 0 of function 'f': '1' gives no shape and element type (SHAPExTYPE=VALUES) for "
            "tensor<?xf32>");
  ValueSpec list = Scalar('r');
  list.description = "!vm.list";
  EXPECT_EQ(ParseError({"1"}, {list}),
            "input 0 of function 'f': '1': a value of type !vm.list cannot be given on the "
            "command line");
  ValueSpec view = Scalar('r');
  view.description = "!hal.buffer_view";  // Any tensor.
  auto any = Parse({"2xi8=1 2"}, {view});
  ASSERT_TRUE(any.ok()) << any.status().ToString();
  EXPECT_EQ((*any)[0].tensor, Literal("2xi8=1 2"));
  EXPECT_EQ(ParseError({"1"}, {view}),
            "input 0 of function 'f': '1' gives no shape and element type (SHAPExTYPE=VALUES) for "
            "!hal.buffer_view");
  EXPECT_EQ(ParseError({"3xf32=1"}, {Tensor("tensor<2xf32>")}, ValueRole::kExpectedOutput),
            "expected output 0 of function 'f': result 0 is tensor<2xf32> but '3xf32=1' is 3xf32 "
            "(dimension 0 is 3, not 2)");
  EXPECT_EQ(ParseError({"1"}, {Scalar('r')}),
            "input 0 of function 'f': '1': values of type ref cannot be given as text");
  EXPECT_EQ(ParseError({"1", "2"}, {Scalar('i')}), "function 'f' expects 1 input(s), got 2");
  EXPECT_EQ(ParseError({}, {Scalar('i')}, ValueRole::kExpectedOutput),
            "function 'f' returns 1 result(s), got 0 expected output(s)");
  // Long literals are cut in messages.
  const std::string message = ParseError({"64xf32=" + std::string(200, '1')}, {Scalar('f')});
  EXPECT_LT(message.size(), 150u) << message;
  // (ignored) is for expected outputs only.
  auto ignored = Parse({"(ignored)"}, {Tensor("tensor<4xf32>")}, ValueRole::kExpectedOutput);
  ASSERT_TRUE(ignored.ok());
  EXPECT_EQ((*ignored)[0].kind, HostValue::Kind::kIgnored);
  EXPECT_FALSE(Parse({"(ignored)"}, {Tensor("tensor<4xf32>")}).ok());
}

TEST_F(FunctionIoTest, ReadsFilesInSequence) {
  const std::string dir = ::testing::TempDir() + "/kiln_function_io_" + std::to_string(getpid());
  const std::string npy = dir + ".npy";
  const std::string bin = dir + ".bin";
  ASSERT_TRUE(WriteNpyFile(npy, Literal("2xi32=1 2")).ok());
  ASSERT_TRUE(AppendNpyFile(npy, Literal("f32=0.5")).ok());
  const HostTensor raw = Literal("4xi16=1 2 3 4");
  ASSERT_TRUE(WriteFile(bin, raw.bytes).ok());
  auto values = Parse({"@" + npy, "+" + npy, "2xi16=@" + bin, "2xi16=+" + bin, "@" + npy},
                      {Scalar('r'), Scalar('r'), Scalar('r'), Scalar('r'), Scalar('r')});
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ((*values)[0].tensor, Literal("2xi32=1 2"));
  EXPECT_EQ((*values)[1].tensor, Literal("f32=0.5"));
  EXPECT_EQ((*values)[2].tensor, Literal("2xi16=1 2"));
  EXPECT_EQ((*values)[3].tensor, Literal("2xi16=3 4"));
  EXPECT_EQ((*values)[4].tensor, Literal("2xi32=1 2"));  // '@' starts over.
  // Past the last array / the last byte.
  ASSERT_TRUE(Parse({"+" + npy}, {Scalar('r')}).ok());  // The second array again.
  EXPECT_NE(ParseError({"+" + npy}, {Scalar('r')}).find("has no more arrays"), std::string::npos);
  EXPECT_NE(ParseError({"1xi16=+" + bin}, {Scalar('r')}).find("has 0 bytes left but 1xi16 needs 2"),
            std::string::npos);
  std::remove(npy.c_str());
  std::remove(bin.c_str());
}

TEST_F(FunctionIoTest, TensorsCrossAsBufferViews) {
  auto inputs = Parse({"7", "2x3xf32=1 2 3 4 5 6"}, {Scalar('i'), Tensor("tensor<2x3xf32>")});
  ASSERT_TRUE(inputs.ok());
  auto arguments = MakeArguments(*device_, *inputs);
  ASSERT_TRUE(arguments.ok()) << arguments.status().ToString();
  ASSERT_EQ((*arguments)->size(), 2u);
  EXPECT_EQ((*arguments)->items()[0].i32(), 7);
  Ref<hal::BufferView> view = hal::UnwrapBufferView((*arguments)->items()[1]);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->ShapeString(), "2x3xf32");
  // Reading the same list back as results gives the values again.
  auto results = ReadResults(*device_, **arguments);
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ((*results)[0].kind, HostValue::Kind::kScalar);
  EXPECT_EQ((*results)[1].kind, HostValue::Kind::kTensor);
  EXPECT_EQ((*results)[1].tensor, (*inputs)[1].tensor);
  EXPECT_EQ(FormatHostValue((*results)[1]), "hal.buffer_view\n2x3xf32=[1 2 3][4 5 6]");
  EXPECT_EQ(FormatHostValue((*results)[0]), "i32=7");
  // A ref that is not a buffer view stays a ref.
  Ref<vm::List> other = vm::List::Create();
  other->Push(vm::Variant::FromRef(vm::List::Create()));
  auto refs = ReadResults(*device_, *other);
  ASSERT_TRUE(refs.ok());
  EXPECT_EQ((*refs)[0].kind, HostValue::Kind::kRef);
  EXPECT_EQ(FormatHostValue((*refs)[0]), "vm.list");
}

TEST_F(FunctionIoTest, ComparesWithThresholds) {
  auto expected = Parse({"f32=1.0", "3xf32=1 2 3", "(ignored)"},
                        {Scalar('f'), Scalar('r'), Scalar('r')}, ValueRole::kExpectedOutput);
  auto actual =
      Parse({"f32=1.01", "3xf32=1 2 3.01", "4xi8=1"}, {Scalar('f'), Scalar('r'), Scalar('r')});
  ASSERT_TRUE(expected.ok() && actual.ok());
  std::vector<std::string> mismatches = CompareHostValues(*expected, *actual);
  ASSERT_EQ(mismatches.size(), 2u);
  EXPECT_EQ(mismatches[0], "result[0]: expected f32=1 but got f32=1.01");
  EXPECT_EQ(mismatches[1],
            "result[1]: element [2]: expected 3 but got 3.01\n  expected:\n3xf32=1 2 3\n  "
            "actual:\n3xf32=1 2 3.01");
  ComparisonOptions loose;
  loose.f32_threshold = 0.02;
  EXPECT_TRUE(CompareHostValues(*expected, *actual, loose).empty());
  loose.f32_threshold = 0.005;
  EXPECT_EQ(CompareHostValues(*expected, *actual, loose).size(), 2u);
  // A tensor where a scalar was expected, and the reverse.
  std::vector<HostValue> swapped = {(*actual)[1], (*actual)[0]};
  mismatches = CompareHostValues(std::span<const HostValue>(expected->data(), 2), swapped);
  ASSERT_EQ(mismatches.size(), 2u);
  EXPECT_EQ(mismatches[0], "result[0]: expected f32=1 but got 3xf32=1 2 3.01");
  EXPECT_EQ(mismatches[1], "result[1]: expected 3xf32=1 2 3 but got f32=1.01");
}

TEST_F(FunctionIoTest, WritesOutputs) {
  const std::string base = ::testing::TempDir() + "/kiln_outputs_" + std::to_string(getpid());
  auto results = Parse({"7", "2xf32=1 2", "i64=-1"}, {Scalar('i'), Scalar('r'), Scalar('I')});
  ASSERT_TRUE(results.ok());
  std::string printed;
  auto print = [&](std::string_view text) { printed += text; };
  const std::vector<std::string> specs = {"@" + base + ".npy", "-", "+@" + base + ".npy"};
  ASSERT_TRUE(WriteOutputs(specs, *results, {}, print).ok());
  EXPECT_EQ(printed, "result[1]: hal.buffer_view\n2xf32=1 2\n");
  auto file = ReadFile(base + ".npy");
  ASSERT_TRUE(file.ok());
  size_t consumed = 0;
  auto first = ReadNpyArray(file->span(), &consumed);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, Literal("i32=7"));  // Scalars are 0-d arrays.
  auto second = ReadNpyArray(file->span().subspan(consumed), &consumed);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, Literal("i64=-1"));
  // Raw bytes, and specs that are not understood.
  const std::vector<std::string> raw = {"", "@" + base + ".bin", ""};
  ASSERT_TRUE(WriteOutputs(raw, *results, {}, print).ok());
  auto bytes = ReadFile(base + ".bin");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->size(), 8u);
  const std::vector<std::string> bad = {"x.npy", "", ""};
  const Status status = WriteOutputs(bad, *results, {}, print);
  EXPECT_EQ(status.message(),
            "--output=x.npy (result 0): expected '' (ignore), '-' (print), @FILE (write) or +FILE "
            "(append)");
  std::remove((base + ".npy").c_str());
  std::remove((base + ".bin").c_str());
}

}  // namespace
}  // namespace kiln::tools
