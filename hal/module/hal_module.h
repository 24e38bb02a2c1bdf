// The `hal` VM module: the native functions compiled programs call to
// allocate buffers, load executables, record and submit command buffers and
// wait on fences. This header is the contract between kiln-compile (which
// emits exactly these imports) and the runtime.
//
// Ref types (module type-table names; see hal_types.h): hal.device,
// hal.allocator, hal.buffer, hal.buffer_view, hal.executable,
// hal.command_buffer, hal.fence. Strings and executable bytes arrive as
// vm.buffer refs made by const.ref.rodata.
//
// Element types (i32) are hal::ElementType values (hal/element_type.h):
// (kind << 24) | bit_width, e.g. f32 = 0x20000020, i32 = 0x10000020,
// i1 = 0x13000001, bf16 = 0x21000010; index lowers to i64 = 0x10000040.
// "Index" values are i64 (I). A signature's '*' takes any further arguments
// (vm/signature.h); the import's own signature says which.
//
// clang-format off
// | import                               | signature | meaning
// | ------------------------------------ | --------- | --------------------------------------------
// | hal.devices.count                    | _i        | number of devices given to CreateHalModule
// | hal.devices.get                      | i_r       | device `index` (OUT_OF_RANGE if none)
// | hal.device.allocator                 | r_r       | the device's allocator
// | hal.allocator.allocate               | riiI_r    | (allocator, memory_types, buffer_usage,
// |                                      |           |   byte_length) -> new buffer; 0 selects the
// |                                      |           |   default (device-local;
// |                                      |           |   transfer+dispatch+mapping)
// | hal.buffer.length                    | r_I       | byte length
// | hal.buffer.subspan                   | rII_r     | (buffer, offset, length) -> subspan sharing
// |                                      |           |   the storage
// | hal.buffer_view.create               | ri*_r     | (buffer, element_type, dim0 I, dim1 I, ...)
// |                                      |           |   -> view; rank = number of dims
// | hal.buffer_view.buffer               | r_r       | the view's buffer
// | hal.buffer_view.rank                 | r_i       | rank
// | hal.buffer_view.dim                  | ri_I      | (view, index) -> dim (OUT_OF_RANGE if index
// |                                      |           |   >= rank)
// | hal.buffer_view.element_type         | r_i       | element type encoding
// | hal.buffer_view.assert               | rri*_     | (view, message, element_type, dim0 I, ...):
// |                                      |           |   the view is non-null with that element
// |                                      |           |   type, rank and dims (-1 accepts any size);
// |                                      |           |   else `<message>: expected tensor<?x4xf32>,
// |                                      |           |   got 8x4xi32`
// | hal.executable.load                  | rr*_r     | (device, name, format0, data0, format1,
// |                                      |           |   data1, ...) -> executable from the first
// |                                      |           |   variant whose format the device runs
// |                                      |           |   (DeviceProperties::executable_formats)
// | hal.command_buffer.create            | ri_r      | (device, mode: 0 one-shot, 1 reusable) ->
// |                                      |           |   command buffer, already begun
// | hal.command_buffer.end               | r_        | ends recording
// | hal.command_buffer.dispatch          | rriiiii*_ | (cmd, executable, export_ordinal, x, y, z,
// |                                      |           |   constant_count, constant i32 x
// |                                      |           |   constant_count, then (buffer r, offset I,
// |                                      |           |   length I) per binding)
// | hal.command_buffer.dispatch.indirect | rriiiii*_ | as dispatch, but each binding is (slot i32,
// |                                      |           |   offset I, length I): a range of
// |                                      |           |   binding-table slot `slot`, whose buffer
// |                                      |           |   comes with each submission (reusable
// |                                      |           |   command buffers; checked at submit)
// | hal.command_buffer.fill_buffer       | rrIIii_   | (cmd, buffer, offset, length, pattern,
// |                                      |           |   pattern_length)
// | hal.command_buffer.copy_buffer       | rrIrII_   | (cmd, source, source_offset, target,
// |                                      |           |   target_offset, length)
// | hal.command_buffer.execution_barrier | r_        | barrier
// | hal.fence.create                     | r_r       | (device) -> fence of one timepoint not yet
// |                                      |           |   reached, on a semaphore only this context's
// |                                      |           |   fences use: new (timepoint 1), or the last
// |                                      |           |   one once all its fences are reached
// |                                      |           |   (timepoint: its value + 1)
// | hal.fence.await                      | rI_       | (fence, timeout_ms; -1 = infinite): OK, the
// |                                      |           |   failure of the work that signals it, or
// |                                      |           |   DEADLINE_EXCEEDED
// | hal.device.queue.execute             | rrrr_     | (device, wait fence or null, signal fence,
// |                                      |           |   command buffer)
// | hal.device.queue.execute.indirect    | rrrr*_    | (device, wait fence or null, signal fence,
// |                                      |           |   command buffer, then the binding table:
// |                                      |           |   one hal.buffer per slot, slot i is
// |                                      |           |   argument 4 + i, null an empty slot) ->
// |                                      |           |   Device::QueueExecute with that table
// | hal.device.queue.alloca              | rrrI_r    | (device, wait fence or null, signal fence,
// |                                      |           |   byte_length) -> buffer (default memory and
// |                                      |           |   usage)
// | hal.device.queue.dealloca            | rrrr_     | (device, wait fence or null, signal fence,
// |                                      |           |   buffer)
// clang-format on
//
// Details:
//   - A length of -1 (buffer.subspan, dispatch bindings, fill/copy) means
//     "to the end of the buffer"; other negative sizes and offsets are errors.
//   - executable.load without a runnable variant fails with `executable
//     '<name>' has no variant for device '<device name>' (embedded formats:
//     a, b; device runs: c)`; a load error is prefixed with `loading
//     executable '<name>' (<format>)`.
//   - Every error names the argument (index and role) and what was wrong
//     with it; the VM prefixes `import 'hal.x' failed`. A ref of the wrong
//     type, or null where a value is needed, is an INVALID_ARGUMENT error.
//   - command_buffer.dispatch, command_buffer.dispatch.indirect and
//     device.queue.execute.indirect are on the hot path: on success they
//     build no strings and allocate nothing themselves (constants, bindings
//     and binding tables go through per-context scratch vectors).
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
#include "hal/device.h"
#include "hal/fence.h"
#include "vm/instance.h"
#include "vm/module.h"
#include "vm/variant.h"

namespace kiln::hal {

// Registers the hal ref types on `instance` (call before loading modules that
// name them; CreateHalModule does it too). Calling it again is harmless.
Status RegisterHalTypes(vm::Instance& instance);

// The "hal" native module, serving `devices` (none may be null) to every
// context that links it.
Result<Ref<vm::Module>> CreateHalModule(vm::Instance& instance, std::vector<Ref<Device>> devices);

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
