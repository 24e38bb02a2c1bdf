// The `hal` VM module: the native functions compiled programs call to
// allocate buffers, load executables, record and submit command buffers and
// wait on fences. The import contract between kiln-compile and the runtime
// is the table of hal_imports.h.
//
// Ref types (module type-table names; see hal_types.h): hal.device,
// hal.allocator, hal.buffer, hal.buffer_view, hal.channel, hal.executable,
// hal.command_buffer, hal.fence. Strings and executable bytes arrive as
// vm.buffer refs made by const.ref.rodata.
//
// The imports (name, signature, every argument and what it means) are
// defined once, in hal_imports.h: this module registers its exports from
// that table and the compiler's HAL->VM conversion declares its imports from
// it. Element types, sizes and the variadic tails are described there.
//
// Details:
//   - A length of -1 (buffer.subspan, dispatch bindings, fill/copy) means
//     "to the end of the buffer"; other negative sizes and offsets are errors.
//   - allocator.allocate.parameter reads the parameter from the index in
//     HalModuleOptions (hal/parameters/parameter_index.h, whose errors name
//     the scope, the key and the file) and uploads its bytes to the device.
//   - executable.load without a runnable variant fails with `executable
//     '<name>' has no variant for device '<device name>' (embedded formats:
//     a, b; device runs: c)`; a load error is prefixed with `loading
//     executable '<name>' (<format>)`.
//   - Every error names the argument (index and role) and what was wrong
//     with it; the VM prefixes `import 'hal.x' failed`. A ref of the wrong
//     type, or null where a value is needed, is an INVALID_ARGUMENT error.
//   - command_buffer.dispatch, command_buffer.dispatch.indirect,
//     command_buffer.collective(.indirect), channel.rank_and_count and
//     device.queue.execute.indirect are on the hot path: on success they
//     build no strings and allocate nothing themselves (constants, bindings
//     and binding tables go through per-context scratch vectors).
//   - channel.default joins HalModuleOptions::collectives on the device
//     (Device::CreateChannel with the program's group name, the rank, the
//     world size and the rendezvous); its errors say which channel, as
//     which rank of how many. channel.split returns a null ref for a color
//     of -1, as Channel::Split does.
//   - device.instrumentation_ring makes the context's ring on a device on
//     its first call (hal/instrumentation.h: the header, zeroed records)
//     and registers it in HalModuleOptions::instrumentation; later calls
//     return the same buffer, so every dispatch of every call binds it.
//   - A binding-table slot that a reusable command buffer uses but the
//     table of queue.execute.indirect lacks (or holds null) is an error of
//     that call naming the dispatch, the binding and the slot; so is a slot
//     range that does not fit the slot's buffer.
//
// Each context that links the module gets its own state (the devices and
// the scratch space), so contexts on different threads do not interact
// beyond sharing the devices, which are thread-safe.
#pragma once

#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/buffer.h"
#include "hal/buffer_view.h"
#include "hal/channel.h"
#include "hal/device.h"
#include "hal/fence.h"
#include "hal/instrumentation.h"
#include "hal/parameters/parameter_index.h"
#include "hal/trace.h"
#include "vm/instance.h"
#include "vm/module.h"
#include "vm/variant.h"

namespace kiln::hal {

// Registers the hal ref types on `instance` (call before loading modules that
// name them; CreateHalModule does it too). Calling it again is harmless.
Status RegisterHalTypes(vm::Instance& instance);

// What a hal module serves besides its devices.
struct HalModuleOptions {
  // The external parameters (#flow.parameter.named globals) programs read in
  // their initializers: each context uploads the ones its program uses to
  // its device once. Null: none (a program that needs one fails to
  // initialize with an error naming the parameter's scope).
  Ref<ParameterIndex> parameters;
  // Where the host spans of the imports go ("record": command_buffer.create
  // to end; "submit": queue.execute; "wait": fence.await, whose time is
  // counted even when spans are not recorded). Null: nothing is traced.
  // When it records spans, CreateHalModule attaches it to every device
  // (Device::AttachTrace), so their dispatches add device spans to it, and
  // each executable.load names its executable (Executable::set_name) after
  // the program's; fence.await then flushes the devices' completed spans
  // (Device::FlushTrace).
  Ref<Trace> trace;
  // The collective group this process belongs to (hal/channel.h): a
  // program's default channels (flow.channel.default) are made from it on
  // the device that runs the program, once per context. The default, a
  // group of one, still runs collectives (each one a copy on its device).
  CollectiveGroup collectives;
  // Where the instrumentation rings of instrumented programs
  // (device.instrumentation_ring, once per context and device) are
  // registered, so that the host can read them back after a call
  // (hal/instrumentation.h). Null: the rings are made but not registered.
  Ref<InstrumentationRings> instrumentation;
};

// The "hal" native module, serving `devices` (none may be null) to every
// context that links it.
Result<Ref<vm::Module>> CreateHalModule(vm::Instance& instance, std::vector<Ref<Device>> devices,
                                        HalModuleOptions options = {});

// Wrapping and unwrapping for hosts: VM refs <-> HAL objects. Wrap* of null
// is a null ref; Unwrap* returns null when the variant is not a ref of that
// type (or is a null ref).
Ref<vm::Object> WrapBufferView(Ref<BufferView> view);
Ref<BufferView> UnwrapBufferView(const vm::Variant& value);
Ref<vm::Object> WrapBuffer(Ref<Buffer> buffer);
Ref<Buffer> UnwrapBuffer(const vm::Variant& value);
Ref<vm::Object> WrapDevice(Ref<Device> device);
Ref<Device> UnwrapDevice(const vm::Variant& value);
Ref<vm::Object> WrapFence(Ref<Fence> fence);
Ref<Fence> UnwrapFence(const vm::Variant& value);

}  // namespace kiln::hal
