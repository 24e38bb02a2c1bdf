#include "hal/transfer.h"

#include <string>

#include "hal/command_buffer.h"
#include "hal/fence.h"

namespace kiln::hal {
namespace {

// Whether the host may read `buffer` with Buffer::ReadData.
bool HostCanRead(const Buffer& buffer) {
  return (buffer.memory_type() & kMemoryTypeHostVisible) &&
         (buffer.allowed_usage() & kBufferUsageMapping);
}

// Runs one copy of `length` bytes on the device's queue and waits for it.
Status CopyOnQueue(Device& device, const Ref<Buffer>& source, const Ref<Buffer>& target,
                   size_t length) {
  KILN_ASSIGN_OR_RETURN(Ref<CommandBuffer> commands,
                        device.CreateCommandBuffer(CommandBufferMode::kOneShot));
  KILN_RETURN_IF_ERROR(commands->Begin());
  KILN_RETURN_IF_ERROR(commands->CopyBuffer(BufferRef::Of(source, 0, length),
                                            BufferRef::Of(target, 0, length), length));
  KILN_RETURN_IF_ERROR(commands->End());
  KILN_ASSIGN_OR_RETURN(Ref<Semaphore> done, device.CreateSemaphore(0));
  const Fence signal{{done, 1}};
  const Ref<CommandBuffer> submitted[] = {commands};
  KILN_RETURN_IF_ERROR(device.QueueExecute(Fence(), signal, submitted, {}));
  return signal.Wait(kInfiniteTimeout);
}

// A host-visible buffer for staging copies to and from the device.
Result<Ref<Buffer>> AllocateStaging(Device& device, size_t length) {
  BufferParams params;
  params.memory_type = kMemoryTypeHostVisible;
  params.usage = kBufferUsageTransfer | kBufferUsageMapping;
  return device.allocator().Allocate(params, length);
}

// Device-local memory holding `bytes`, written through a staging buffer.
Result<Ref<Buffer>> UploadThroughStaging(Device& device, std::span<const uint8_t> bytes) {
  BufferParams params;
  params.memory_type = kMemoryTypeDeviceLocal;
  params.usage = kBufferUsageTransfer | kBufferUsageDispatchStorage;
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> buffer, device.allocator().Allocate(params, bytes.size()));
  if (bytes.empty()) return buffer;
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> staging, AllocateStaging(device, bytes.size()));
  KILN_RETURN_IF_ERROR(staging->WriteData(0, bytes));
  KILN_RETURN_IF_ERROR(CopyOnQueue(device, staging, buffer, bytes.size()));
  return buffer;
}

}  // namespace

Result<Ref<Buffer>> UploadBuffer(Device& device, std::span<const uint8_t> bytes,
                                 std::string_view what, TransferPath path) {
  if (path == TransferPath::kAuto) {
    BufferParams params;
    params.memory_type = kMemoryTypeDeviceLocal | kMemoryTypeHostVisible;
    params.usage = kBufferUsageDefault;
    auto visible = device.allocator().Allocate(params, bytes.size());
    if (visible.ok()) {
      Status written = (*visible)->WriteData(0, bytes);
      if (!written.ok()) {
        return written.WithContext("writing " + std::string(what) + " to the device");
      }
      return std::move(*visible);
    }
    if (visible.status().code() != StatusCode::kInvalidArgument) {
      // Out of memory, not a missing memory type: staging would not help.
      return visible.status().WithContext("allocating " + std::string(what) + " on the device");
    }
  }
  auto staged = UploadThroughStaging(device, bytes);
  if (!staged.ok()) {
    return staged.status().WithContext("uploading " + std::string(what) + " to the device");
  }
  return std::move(*staged);
}

Status ReadBuffer(Device& device, const Ref<Buffer>& buffer, std::span<uint8_t> out,
                  std::string_view what, TransferPath path) {
  if (out.empty()) return OkStatus();
  Ref<Buffer> readable = buffer;
  if (path == TransferPath::kStaging || !HostCanRead(*readable)) {
    auto staging = AllocateStaging(device, out.size());
    Status copied =
        staging.ok() ? CopyOnQueue(device, buffer, *staging, out.size()) : staging.status();
    if (!copied.ok()) {
      return copied.WithContext("copying " + std::string(what) + " to host-visible memory");
    }
    readable = std::move(*staging);
  }
  Status read = readable->ReadData(0, out);
  if (!read.ok()) return read.WithContext("reading " + std::string(what) + " from the device");
  return OkStatus();
}

}  // namespace kiln::hal
