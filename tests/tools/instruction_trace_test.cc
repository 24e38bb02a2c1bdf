// Tests of instruction tracing: the VM's StackOptions::instruction_trace hook
// (which instructions it reports, across calls, returns, traps and module
// initialisers) and InstructionTracer's lines.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "tests/tools/test_modules.h"
#include "tools/common/instruction_tracer.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/instance.h"
#include "vm/invocation.h"
#include "vm/list.h"

namespace kiln::tools {
namespace {

using vm::Variant;

class InstructionTraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto bytes = kiln::testing::BuildToolsTestModule();
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    instance_ = vm::Instance::Create();
    auto module = vm::BytecodeModule::Load(*instance_, AlignedBuffer::CopyOf(*bytes));
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    module_ = *module;
  }

  Ref<vm::Context> MakeContext(vm::InstructionTrace trace) {
    vm::ContextOptions options;
    options.stack.instruction_trace = std::move(trace);
    auto context = vm::Context::Create(instance_, {Ref<vm::Module>(module_)}, options);
    EXPECT_TRUE(context.ok()) << context.status().ToString();
    return context.ok() ? *context : Ref<vm::Context>();
  }

  Result<Ref<vm::List>> Call(vm::Context& context, std::string_view name,
                             std::vector<Variant> args) {
    Ref<vm::List> list = vm::List::Create();
    for (Variant& arg : args) list->Push(std::move(arg));
    return vm::Invoke(context, name, *list);
  }

  uint32_t FunctionIndex(std::string_view name) const {
    for (uint32_t i = 0; i < module_->functions().size(); ++i) {
      if (module_->function(i).name == name) return i;
    }
    ADD_FAILURE() << "no function " << name;
    return 0;
  }

  Ref<vm::Instance> instance_;
  Ref<vm::BytecodeModule> module_;
};

TEST_F(InstructionTraceTest, ReportsEveryInstructionWithFunctionAndOffset) {
  std::vector<std::pair<uint32_t, uint32_t>> seen;
  auto context = MakeContext([&](const vm::BytecodeModule& module, uint32_t f, uint32_t offset) {
    EXPECT_EQ(&module, module_.get());
    seen.push_back({f, offset});
  });
  ASSERT_TRUE(context);
  // The initializer ran traced while the context was created.
  const uint32_t init = FunctionIndex("init");
  EXPECT_EQ(seen, (std::vector<std::pair<uint32_t, uint32_t>>{{init, 0}, {init, 7}, {init, 14}}));
  seen.clear();

  auto results = Call(*context, "add_i32", {Variant::I32(2), Variant::I32(3)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ(*(*results)->GetI32(0), 5);
  const uint32_t add = FunctionIndex("add_i32");
  EXPECT_EQ(seen, (std::vector<std::pair<uint32_t, uint32_t>>{{add, 0}, {add, 7}}));
}

TEST_F(InstructionTraceTest, FollowsCallsAndReturns) {
  std::vector<std::string> lines;
  InstructionTracer tracer([&](std::string_view line) { lines.emplace_back(line); });
  auto context = MakeContext(tracer.Callback());
  ASSERT_TRUE(context);
  lines.clear();  // The initializer's lines.
  auto results = Call(*context, "fib", {Variant::I32(2)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ(*(*results)->GetI32(0), 1);
  const std::string loc = "  (tools_test.mlir:";
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "[trace] fib+0  const.i32 i1, 2" + loc + "10:3)",
                       "[trace] fib+7  br.lt.i32.s i0, i1, @20, @24" + loc + "10:3)",
                       "[trace] fib+24  const.i32 i2, 1" + loc + "13:10)",
                       "[trace] fib+31  sub.i32 i3, i0, i2" + loc + "13:10)",
                       "[trace] fib+38  call @fib(i3) -> (i4)" + loc + "13:10)",
                       "[trace] fib+0  const.i32 i1, 2" + loc + "10:3)",
                       "[trace] fib+7  br.lt.i32.s i0, i1, @20, @24" + loc + "10:3)",
                       "[trace] fib+20  return i0" + loc + "11:5)",
                       "[trace] fib+49  sub.i32 i3, i0, i1" + loc + "14:10)",
                       "[trace] fib+56  call @fib(i3) -> (i5)" + loc + "14:10)",
                       "[trace] fib+0  const.i32 i1, 2" + loc + "10:3)",
                       "[trace] fib+7  br.lt.i32.s i0, i1, @20, @24" + loc + "10:3)",
                       "[trace] fib+20  return i0" + loc + "11:5)",
                       "[trace] fib+67  add.i32 i4, i4, i5" + loc + "15:5)",
                       "[trace] fib+74  return i4" + loc + "15:5)",
                   }));
}

TEST_F(InstructionTraceTest, LinesWithoutLocations) {
  std::vector<std::string> lines;
  InstructionTracer tracer([&](std::string_view line) { lines.emplace_back(line); });
  auto context = MakeContext(tracer.Callback());
  ASSERT_TRUE(context);
  lines.clear();
  auto results = Call(*context, "make_list", {});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "[trace] make_list+0  const.i32 i0, 7",
                       "[trace] make_list+7  list.alloc r0, i0",
                       "[trace] make_list+12  return i0, r0",
                   }));
}

TEST_F(InstructionTraceTest, TrapsReportTheSameErrorWhenTraced) {
  auto untraced = vm::Context::Create(instance_, {Ref<vm::Module>(module_)});
  ASSERT_TRUE(untraced.ok());
  auto expected = Call(**untraced, "fail_outer", {Variant::I32(1)});
  ASSERT_FALSE(expected.ok());

  std::vector<std::string> lines;
  InstructionTracer tracer([&](std::string_view line) { lines.emplace_back(line); });
  auto context = MakeContext(tracer.Callback());
  ASSERT_TRUE(context);
  lines.clear();
  auto traced = Call(*context, "fail_outer", {Variant::I32(1)});
  ASSERT_FALSE(traced.ok());
  EXPECT_EQ(traced.status().ToString(), expected.status().ToString());
  EXPECT_EQ(traced.status().message(),
            "function 'tools_test.fail_inner' at bytecode offset 0 (tools_test.mlir:30:5): "
            "boom: bad \"value\"\n"
            "  called from function 'tools_test.fail_outer' at bytecode offset 0 "
            "(tools_test.mlir:34:3)");
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "[trace] fail_outer+0  call @fail_inner(i0) -> (i1)  (tools_test.mlir:34:3)",
                       "[trace] fail_inner+0  fail \"boom: bad \\\"value\\\"\"  "
                       "(tools_test.mlir:30:5)",
                   }));
}

TEST_F(InstructionTraceTest, UntracedContextsAreNotReported) {
  int calls = 0;
  auto traced = MakeContext([&](const vm::BytecodeModule&, uint32_t, uint32_t) { ++calls; });
  ASSERT_TRUE(traced);
  const int after_init = calls;
  auto untraced = vm::Context::Create(instance_, {Ref<vm::Module>(module_)});
  ASSERT_TRUE(untraced.ok());
  auto results = Call(**untraced, "fib", {Variant::I32(10)});
  ASSERT_TRUE(results.ok());
  EXPECT_EQ(*(*results)->GetI32(0), 55);
  EXPECT_EQ(calls, after_init);
}

}  // namespace
}  // namespace kiln::tools
