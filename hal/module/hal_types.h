// The VM ref types of HAL objects: how a hal::Buffer, BufferView, Device, ...
// travels through VM registers, lists and native calls.
//
// HAL objects are RefObjects that know nothing of the VM (the HAL never
// depends on it), so each one crosses into the VM inside a small vm::Object
// holder whose RefType carries the name bytecode type tables use:
//
//   hal.device, hal.allocator, hal.buffer, hal.buffer_view, hal.channel,
//   hal.executable, hal.command_buffer, hal.fence
//
// A holder keeps its HAL object alive. Checking a ref's type is one pointer
// comparison (see vm/object.h), which keeps the hal module's hot imports
// cheap. An allocator is owned by its device, so hal.allocator holds the
// device.
#pragma once

#include <string_view>

#include "base/ref.h"
#include "hal/buffer.h"
#include "hal/buffer_view.h"
#include "hal/channel.h"
#include "hal/command_buffer.h"
#include "hal/device.h"
#include "hal/executable.h"
#include "hal/fence.h"
#include "vm/object.h"

namespace kiln::hal {

// The type name of each wrapped HAL class.
template <typename T>
struct VmTypeName;
template <>
struct VmTypeName<Device> {
  static constexpr std::string_view kName = "hal.device";
};
template <>
struct VmTypeName<Buffer> {
  static constexpr std::string_view kName = "hal.buffer";
};
template <>
struct VmTypeName<BufferView> {
  static constexpr std::string_view kName = "hal.buffer_view";
};
template <>
struct VmTypeName<Channel> {
  static constexpr std::string_view kName = "hal.channel";
};
template <>
struct VmTypeName<Executable> {
  static constexpr std::string_view kName = "hal.executable";
};
template <>
struct VmTypeName<CommandBuffer> {
  static constexpr std::string_view kName = "hal.command_buffer";
};
template <>
struct VmTypeName<Fence> {
  static constexpr std::string_view kName = "hal.fence";
};

// A VM object holding one HAL object of type T.
template <typename T>
class VmHalObject final : public vm::Object {
 public:
  static const vm::RefType& Type() {
    static const vm::RefType type{VmTypeName<T>::kName};
    return type;
  }
  explicit VmHalObject(Ref<T> object) : vm::Object(Type()), object_(std::move(object)) {}

  const Ref<T>& get() const { return object_; }

 private:
  Ref<T> object_;
};

using VmDevice = VmHalObject<Device>;
using VmBuffer = VmHalObject<Buffer>;
using VmBufferView = VmHalObject<BufferView>;
using VmChannel = VmHalObject<Channel>;
using VmExecutable = VmHalObject<Executable>;
using VmCommandBuffer = VmHalObject<CommandBuffer>;
using VmFence = VmHalObject<Fence>;

// hal.allocator: a device's allocator (the device owns it, so this holds the
// device).
class VmAllocator final : public vm::Object {
 public:
  static const vm::RefType& Type() {
    static const vm::RefType type{"hal.allocator"};
    return type;
  }
  explicit VmAllocator(Ref<Device> device) : vm::Object(Type()), device_(std::move(device)) {}

  const Ref<Device>& device() const { return device_; }
  Allocator& allocator() const { return device_->allocator(); }

 private:
  Ref<Device> device_;
};

// Wraps `object` (null stays a null ref).
template <typename T>
Ref<vm::Object> WrapForVm(Ref<T> object) {
  if (!object) return nullptr;
  return Ref<vm::Object>(MakeRef<VmHalObject<T>>(std::move(object)));
}

// The HAL object in `ref`, or null when `ref` is null or of another type.
template <typename T>
Ref<T> UnwrapFromVm(const vm::Object* ref) {
  if (!ref || &ref->type() != &VmHalObject<T>::Type()) return nullptr;
  return static_cast<const VmHalObject<T>*>(ref)->get();
}

}  // namespace kiln::hal
