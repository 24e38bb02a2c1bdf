// kiln-embedding-tensors-sample <module.kmod> [device] [n]: an application
// that runs a compiled program with tensors on a HAL device.
//
// The application
//   1. creates a device from the driver registry ("cpu" unless [device] names
//      another URI: "cpu-sync", "cpu://0", ...),
//   2. creates an Instance, registers the hal ref types on it and loads the
//      .kmod (multiply_add.kmod: two dispatches of hand-written CPU kernels),
//   3. creates the hal VM module serving that device and links it before the
//      program, which imports hal.* functions from it,
//   4. puts two host arrays of n floats (default 8) into device buffers and
//      wraps them as hal.buffer_view refs,
//   5. invokes embedding.multiply_add(a, b), unwraps the result view, reads
//      its buffer back and checks every element against a * b + b.
// Only public APIs are used: vm/, hal/ and hal/module/. Every step returns a
// Status; any error is printed and the exit code is 1.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hal/buffer_view.h"
#include "hal/builtin_drivers.h"
#include "hal/device.h"
#include "hal/driver_registry.h"
#include "hal/module/hal_module.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/instance.h"
#include "vm/invocation.h"
#include "vm/list.h"

namespace {

using namespace kiln;

// A 1-D f32 buffer view on `device` holding `values`: memory the device's
// dispatches can bind and the host can write.
Result<Ref<hal::BufferView>> MakeTensor(hal::Device& device, const std::vector<float>& values) {
  hal::BufferParams params;
  params.memory_type = hal::kMemoryTypeDeviceLocal | hal::kMemoryTypeHostVisible;
  params.usage = hal::kBufferUsageDefault;
  const size_t bytes = values.size() * sizeof(float);
  KILN_ASSIGN_OR_RETURN(Ref<hal::Buffer> buffer, device.allocator().Allocate(params, bytes));
  KILN_RETURN_IF_ERROR(buffer->WriteData(
      0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()), bytes)));
  const int64_t shape[] = {static_cast<int64_t>(values.size())};
  return hal::BufferView::Create(std::move(buffer), shape, hal::ElementType::kFloat32);
}

// The elements of a 1-D f32 view, read through the HAL buffer API.
Result<std::vector<float>> ReadTensor(const hal::BufferView& view) {
  if (view.element_type() != hal::ElementType::kFloat32 || view.rank() != 1) {
    return InvalidArgumentError("expected a 1-D f32 tensor, got " + view.ShapeString());
  }
  std::vector<float> values(static_cast<size_t>(view.dim(0)));
  KILN_RETURN_IF_ERROR(view.buffer()->ReadData(
      0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(values.data()), view.byte_length())));
  return values;
}

std::string FormatValues(const std::vector<float>& values) {
  constexpr size_t kShown = 8;
  std::string text = "[";
  for (size_t i = 0; i < values.size() && i < kShown; ++i) {
    char number[32];
    std::snprintf(number, sizeof(number), "%s%g", i ? " " : "", values[i]);
    text += number;
  }
  if (values.size() > kShown) text += " ...";
  return text + "]";
}

Status Run(const std::string& module_path, const std::string& device_uri, size_t n) {
  // 1. The device.
  hal::DriverRegistry registry;
  KILN_RETURN_IF_ERROR(hal::RegisterBuiltinDrivers(registry));
  KILN_ASSIGN_OR_RETURN(Ref<hal::Device> device, registry.CreateDevice(device_uri));

  // 2. The instance (with the hal types the module's type table names) and
  //    the program.
  Ref<vm::Instance> instance = vm::Instance::Create();
  KILN_RETURN_IF_ERROR(hal::RegisterHalTypes(*instance));
  KILN_ASSIGN_OR_RETURN(Ref<vm::BytecodeModule> module,
                        vm::BytecodeModule::LoadFile(*instance, module_path));

  // 3. The hal module first, then the program that imports from it. The
  //    program's initializer loads its executable on the device here.
  KILN_ASSIGN_OR_RETURN(Ref<vm::Module> hal_module, hal::CreateHalModule(*instance, {device}));
  KILN_ASSIGN_OR_RETURN(Ref<vm::Context> context,
                        vm::Context::Create(instance, {hal_module, Ref<vm::Module>(module)}));
  KILN_ASSIGN_OR_RETURN(vm::Function multiply_add,
                        context->LookupFunction("embedding.multiply_add"));

  // 4. Host arrays in, as buffer views.
  std::vector<float> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 2.0f;
  }
  KILN_ASSIGN_OR_RETURN(Ref<hal::BufferView> a_view, MakeTensor(*device, a));
  KILN_ASSIGN_OR_RETURN(Ref<hal::BufferView> b_view, MakeTensor(*device, b));
  Ref<vm::List> arguments = vm::List::Create(2);
  arguments->Push(vm::Variant::FromRef(hal::WrapBufferView(a_view)));
  arguments->Push(vm::Variant::FromRef(hal::WrapBufferView(b_view)));

  // 5. Invoke, then read the result back.
  KILN_ASSIGN_OR_RETURN(Ref<vm::List> results, vm::Invoke(*context, multiply_add, *arguments));
  KILN_ASSIGN_OR_RETURN(vm::Variant result, results->Get(0));
  Ref<hal::BufferView> result_view = hal::UnwrapBufferView(result);
  if (!result_view) {
    return InvalidArgumentError("multiply_add returned " + result.ToString() +
                                ", not a hal.buffer_view");
  }
  KILN_ASSIGN_OR_RETURN(std::vector<float> values, ReadTensor(*result_view));
  std::printf("device: %s\n", device->properties().uri.c_str());
  std::printf("a = %s\nb = %s\n", FormatValues(a).c_str(), FormatValues(b).c_str());
  std::printf("multiply_add(a, b) = %s (%s)\n", FormatValues(values).c_str(),
              result_view->ShapeString().c_str());
  if (values.size() != n) {
    return InternalError("expected " + std::to_string(n) + " elements, got " +
                         std::to_string(values.size()));
  }
  for (size_t i = 0; i < n; ++i) {
    const float expected = a[i] * b[i] + b[i];
    if (values[i] != expected) {
      return InternalError("element " + std::to_string(i) + " is " + std::to_string(values[i]) +
                           ", expected " + std::to_string(expected));
    }
  }
  std::printf("all %zu elements equal a * b + b\n", n);
  return OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: %s <module.kmod> [device] [n]\n", argv[0]);
    return 1;
  }
  const std::string device_uri = argc >= 3 ? argv[2] : "cpu";
  size_t n = 8;
  if (argc == 4) {
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(argv[3], &end, 10);
    if (errno != 0 || end == argv[3] || *end != '\0' || value < 1 || value > (1 << 24)) {
      std::fprintf(stderr,
                   "kiln-embedding-tensors-sample: n must be an integer in [1, 16777216], "
                   "got '%s'\n",
                   argv[3]);
      return 1;
    }
    n = static_cast<size_t>(value);
  }
  Status status = Run(argv[1], device_uri, n);
  if (!status.ok()) {
    std::fflush(stdout);
    std::fprintf(stderr, "kiln-embedding-tensors-sample: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
