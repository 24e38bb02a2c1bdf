// kiln-install-embedder: a small application linking kiln's runtime as its
// users do, built by tests/install against kiln added with add_subdirectory
// (add_subdirectory/CMakeLists.txt: kiln::runtime) and against an installed
// kiln through pkg-config (pkg_config_test.sh). It uses each part of
// kiln::runtime: a HAL device of the built-in drivers and its buffers, the
// `hal` VM module, and the VM with a native module of its own, invoked
// through a context. It prints what it computed; the tests compare that
// with embedder_expected.txt.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "base/status.h"
#include "hal/buffer.h"
#include "hal/builtin_drivers.h"
#include "hal/transfer.h"
#include "hal/device.h"
#include "hal/driver_registry.h"
#include "hal/module/hal_module.h"
#include "vm/context.h"
#include "vm/instance.h"
#include "vm/invocation.h"
#include "vm/list.h"
#include "vm/native_module.h"

// kiln's headers are C++20: kiln::runtime carries cxx_std_20 to this file even
// where the application's own standard is older (add_subdirectory/ sets 17).
static_assert(__cplusplus >= 202002L, "kiln's targets must compile their users as C++20");

namespace {

using namespace kiln;

struct AppState {
  int32_t calls = 0;
};

int32_t Add(AppState& state, int32_t a, int32_t b) {
  ++state.calls;
  return a + b;
}

// A round trip through a buffer of the device (hal/transfer.h: the way an
// application moves host data in and out).
Status UseDevice(hal::Device& device) {
  const std::vector<float> values = {1.5f, 2.5f, 3.5f, 4.5f};
  const size_t bytes = values.size() * sizeof(float);
  KILN_ASSIGN_OR_RETURN(
      Ref<hal::Buffer> buffer,
      hal::UploadBuffer(
          device,
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()), bytes),
          "4xf32"));
  std::vector<float> read(values.size());
  KILN_RETURN_IF_ERROR(hal::ReadBuffer(
      device, buffer, std::span<uint8_t>(reinterpret_cast<uint8_t*>(read.data()), bytes), "4xf32"));
  std::printf("device %s: buffer of %zu bytes read back [%g %g %g %g]\n",
              device.properties().uri.c_str(), bytes, read[0], read[1], read[2], read[3]);
  return OkStatus();
}

Status Run() {
  hal::DriverRegistry registry;
  KILN_RETURN_IF_ERROR(hal::RegisterBuiltinDrivers(registry));
  KILN_ASSIGN_OR_RETURN(Ref<hal::Device> device, registry.CreateDevice("cpu-sync"));
  KILN_RETURN_IF_ERROR(UseDevice(*device));

  Ref<vm::Instance> instance = vm::Instance::Create();
  KILN_ASSIGN_OR_RETURN(Ref<vm::Module> hal_module, hal::CreateHalModule(*instance, {device}));
  Ref<vm::NativeModule<AppState>> app = vm::NativeModule<AppState>::Create(
      "app", []() -> Result<std::unique_ptr<AppState>> { return std::make_unique<AppState>(); });
  app->Export("add", &Add);
  KILN_ASSIGN_OR_RETURN(Ref<vm::Context> context,
                        vm::Context::Create(instance, {hal_module, Ref<vm::Module>(app)}));
  KILN_ASSIGN_OR_RETURN(vm::Function add, context->LookupFunction("app.add"));
  Ref<vm::List> arguments = vm::List::Create(2);
  arguments->Push(vm::Variant::I32(20));
  arguments->Push(vm::Variant::I32(22));
  KILN_ASSIGN_OR_RETURN(Ref<vm::List> results, vm::Invoke(*context, add, *arguments));
  KILN_ASSIGN_OR_RETURN(int32_t sum, results->GetI32(0));
  const AppState& state = vm::NativeModule<AppState>::UserState(*context->state_of(1));
  std::printf("app.add(20, 22) = %" PRId32 " (%" PRId32 " call)\n", sum, state.calls);
  return OkStatus();
}

}  // namespace

int main() {
  Status status = Run();
  if (!status.ok()) {
    std::fprintf(stderr, "kiln-install-embedder: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
