// The "tensors_test" module of test_modules.h: functions that take and
// return hal.buffer_view refs, calling the hal module's imports the way
// kiln-compile's output does (tests/tools run kiln-run-module on it).
#include <initializer_list>
#include <utility>

#include "tests/tools/test_modules.h"
#include "vm/module_builder.h"

namespace kiln::testing {

using namespace kiln::vm;

namespace {

constexpr int32_t kF32 = 0x20000020;  // hal::ElementType::kFloat32 (hal_abi.md).

ExportReflection Reflect(std::vector<std::string> arguments, std::vector<std::string> results) {
  ExportReflection reflection;
  reflection.argument_descriptions = std::move(arguments);
  reflection.result_descriptions = std::move(results);
  return reflection;
}

// Emits `call.import` with register lists.
void CallImport(FunctionBuilder& f, uint32_t import, std::initializer_list<uint16_t> args,
                std::initializer_list<uint16_t> results) {
  f.EmitCallImport(import, std::span<const uint16_t>(args.begin(), args.size()),
                   std::span<const uint16_t>(results.begin(), results.size()));
}

}  // namespace

Result<std::vector<uint8_t>> BuildTensorsTestModule() {
  ModuleBuilder builder("tensors_test");
  builder.AddType("hal.buffer_view");
  const uint32_t rank = builder.AddImport("hal.buffer_view.rank", "r_i");
  const uint32_t dim = builder.AddImport("hal.buffer_view.dim", "ri_I");
  const uint32_t view_buffer = builder.AddImport("hal.buffer_view.buffer", "r_r");
  const uint32_t buffer_length = builder.AddImport("hal.buffer.length", "r_I");
  const uint32_t element_type = builder.AddImport("hal.buffer_view.element_type", "r_i");
  const uint32_t devices_get = builder.AddImport("hal.devices.get", "i_r");
  const uint32_t device_allocator = builder.AddImport("hal.device.allocator", "r_r");
  const uint32_t allocate = builder.AddImport("hal.allocator.allocate", "riiI_r");
  const uint32_t cmd_create = builder.AddImport("hal.command_buffer.create", "ri_r");
  const uint32_t copy_buffer = builder.AddImport("hal.command_buffer.copy_buffer", "rrIrII_");
  const uint32_t cmd_end = builder.AddImport("hal.command_buffer.end", "r_");
  const uint32_t fence_create = builder.AddImport("hal.fence.create", "r_r");
  const uint32_t queue_execute = builder.AddImport("hal.device.queue.execute", "rrrr_");
  const uint32_t fence_await = builder.AddImport("hal.fence.await", "rI_");
  const uint32_t view_create = builder.AddImport("hal.buffer_view.create", "riI_r");
  const uint32_t view_assert = builder.AddImport("hal.buffer_view.assert", "rriI_");
  const std::string_view message_text = "argument 0 of @checked";
  const uint32_t message = builder.AddRodata(
      "message",
      std::span(reinterpret_cast<const uint8_t*>(message_text.data()), message_text.size()));

  // echo(%t: tensor<?x4xf32>) -> tensor<?x4xf32>, and variants with other
  // (or no) reflection: the argument is returned as it is.
  FunctionBuilder& echo = builder.AddFunction("echo", "r_r");
  echo.EmitReturn({0});
  FunctionBuilder& echo_static = builder.AddFunction("echo_static", "r_r");
  echo_static.EmitReturn({0});
  FunctionBuilder& echo_any = builder.AddFunction("echo_any", "r_r");
  echo_any.EmitReturn({0});
  FunctionBuilder& swap = builder.AddFunction("swap", "rr_rr");
  swap.EmitReturn({1, 0});
  FunctionBuilder& rotate = builder.AddFunction("rotate", "rrr_rrr");
  rotate.EmitReturn({1, 2, 0});

  // describe(view) -> (rank, byte length of its buffer, element type).
  FunctionBuilder& describe = builder.AddFunction("describe", "r_iIi");
  CallImport(describe, rank, {0}, {0});
  CallImport(describe, view_buffer, {0}, {1});
  CallImport(describe, buffer_length, {1}, {0});
  CallImport(describe, element_type, {0}, {1});
  describe.EmitReturn({0, 0, 1});

  // mixed(i32 a, tensor<?xf32> t, f32 b) -> (f32 b, tensor<?xf32> t, i32 a + 1).
  FunctionBuilder& mixed = builder.AddFunction("mixed", "irf_fri");
  mixed.Emit(Opcode::kAddImmI32, {Reg(0), Reg(0), ImmI32(1)});
  mixed.EmitReturn({0, 0, 0});

  // concat_self(%t: tensor<?xf32>) -> tensor<?xf32>: [t, t], copied on the
  // device into a new allocation by a command buffer.
  FunctionBuilder& concat = builder.AddFunction("concat_self", "r_r");
  {
    // r0 view, r1 its buffer, r2 device, r3 allocator, r4 result buffer,
    // r5 command buffer, r6 fence, r7 null, r8 result view.
    concat.Emit(Opcode::kConstI32, {Reg(0), ImmI32(0)});
    CallImport(concat, view_buffer, {0}, {1});
    CallImport(concat, dim, {0, 0}, {1});  // I1 = n
    concat.Emit(Opcode::kConstI64, {Reg(2), ImmI64(4)});
    concat.Emit(Opcode::kMulI64, {Reg(3), Reg(1), Reg(2)});  // I3 = bytes
    concat.Emit(Opcode::kAddI64, {Reg(4), Reg(3), Reg(3)});  // I4 = 2 * bytes
    CallImport(concat, devices_get, {0}, {2});
    CallImport(concat, device_allocator, {2}, {3});
    CallImport(concat, allocate, {3, 0, 0, 4}, {4});
    CallImport(concat, cmd_create, {2, 0}, {5});
    concat.Emit(Opcode::kConstI64, {Reg(5), ImmI64(0)});
    CallImport(concat, copy_buffer, {5, 1, 5, 4, 5, 3}, {});
    CallImport(concat, copy_buffer, {5, 1, 5, 4, 3, 3}, {});
    CallImport(concat, cmd_end, {5}, {});
    CallImport(concat, fence_create, {2}, {6});
    concat.Emit(Opcode::kConstRefNull, {Reg(7)});
    CallImport(concat, queue_execute, {2, 7, 6, 5}, {});
    concat.Emit(Opcode::kConstI64, {Reg(6), ImmI64(-1)});
    CallImport(concat, fence_await, {6, 6}, {});
    concat.Emit(Opcode::kConstI32, {Reg(1), ImmI32(kF32)});
    concat.Emit(Opcode::kAddI64, {Reg(7), Reg(1), Reg(1)});
    CallImport(concat, view_create, {4, 1, 7}, {8});
    concat.EmitReturn({8});
  }

  // checked(view) -> view: no reflection, so the tool cannot check the
  // argument; the module asserts tensor<4xf32> itself, as compiled code does.
  FunctionBuilder& checked = builder.AddFunction("checked", "r_r");
  checked.Emit(Opcode::kConstRefRodata, {Reg(1), Index(message)});
  checked.Emit(Opcode::kConstI32, {Reg(0), ImmI32(kF32)});
  checked.Emit(Opcode::kConstI64, {Reg(0), ImmI64(4)});
  CallImport(checked, view_assert, {0, 1, 0, 0}, {});
  checked.EmitReturn({0});

  builder.AddExport("echo", echo.ordinal(), Reflect({"tensor<?x4xf32>"}, {"tensor<?x4xf32>"}));
  builder.AddExport("echo_static", echo_static.ordinal(),
                    Reflect({"tensor<2x3xi32>"}, {"tensor<2x3xi32>"}));
  builder.AddExport("echo_any", echo_any.ordinal());
  builder.AddExport("swap", swap.ordinal());
  builder.AddExport("rotate", rotate.ordinal());
  builder.AddExport("describe", describe.ordinal());
  builder.AddExport("mixed", mixed.ordinal(),
                    Reflect({"i32", "tensor<?xf32>", "f32"}, {"f32", "tensor<?xf32>", "i32"}));
  builder.AddExport("concat_self", concat.ordinal(), Reflect({"tensor<?xf32>"}, {"tensor<?xf32>"}));
  builder.AddExport("checked", checked.ordinal());
  return builder.Finish();
}

}  // namespace kiln::testing
