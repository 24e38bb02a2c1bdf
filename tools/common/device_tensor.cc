#include "tools/common/device_tensor.h"

#include <span>
#include <vector>

#include "hal/command_buffer.h"
#include "hal/fence.h"

namespace kiln::tools {
namespace {

// Whether the host may read `buffer` with Buffer::ReadData.
bool HostCanRead(const hal::Buffer& buffer) {
  return (buffer.memory_type() & hal::kMemoryTypeHostVisible) &&
         (buffer.allowed_usage() & hal::kBufferUsageMapping);
}

// Runs one copy of `length` bytes on the device's queue and waits for it.
Status CopyOnQueue(hal::Device& device, const Ref<hal::Buffer>& source,
                   const Ref<hal::Buffer>& target, size_t length) {
  KILN_ASSIGN_OR_RETURN(Ref<hal::CommandBuffer> commands,
                        device.CreateCommandBuffer(hal::CommandBufferMode::kOneShot));
  KILN_RETURN_IF_ERROR(commands->Begin());
  KILN_RETURN_IF_ERROR(commands->CopyBuffer(hal::BufferRef::Of(source, 0, length),
                                            hal::BufferRef::Of(target, 0, length), length));
  KILN_RETURN_IF_ERROR(commands->End());
  KILN_ASSIGN_OR_RETURN(Ref<hal::Semaphore> done, device.CreateSemaphore(0));
  const hal::Fence signal{{done, 1}};
  const Ref<hal::CommandBuffer> submitted[] = {commands};
  KILN_RETURN_IF_ERROR(device.QueueExecute(hal::Fence(), signal, submitted, {}));
  return signal.Wait(hal::kInfiniteTimeout);
}

// A host-visible buffer for staging copies to and from the device.
Result<Ref<hal::Buffer>> AllocateStaging(hal::Device& device, size_t length) {
  hal::BufferParams params;
  params.memory_type = hal::kMemoryTypeHostVisible;
  params.usage = hal::kBufferUsageTransfer | hal::kBufferUsageMapping;
  return device.allocator().Allocate(params, length);
}

// Device-local memory holding `bytes`, written through a staging buffer.
Result<Ref<hal::Buffer>> UploadThroughStaging(hal::Device& device, std::span<const uint8_t> bytes) {
  hal::BufferParams params;
  params.memory_type = hal::kMemoryTypeDeviceLocal;
  params.usage = hal::kBufferUsageTransfer | hal::kBufferUsageDispatchStorage;
  KILN_ASSIGN_OR_RETURN(Ref<hal::Buffer> buffer, device.allocator().Allocate(params, bytes.size()));
  if (bytes.empty()) return buffer;
  KILN_ASSIGN_OR_RETURN(Ref<hal::Buffer> staging, AllocateStaging(device, bytes.size()));
  KILN_RETURN_IF_ERROR(staging->WriteData(0, bytes));
  KILN_RETURN_IF_ERROR(CopyOnQueue(device, staging, buffer, bytes.size()));
  return buffer;
}

}  // namespace

Result<Ref<hal::BufferView>> UploadTensor(hal::Device& device, const HostTensor& tensor,
                                          TransferPath path) {
  const std::string shape = FormatShapeAndType(tensor.shape, tensor.element_type);
  Ref<hal::Buffer> buffer;
  if (path == TransferPath::kAuto) {
    hal::BufferParams params;
    params.memory_type = hal::kMemoryTypeDeviceLocal | hal::kMemoryTypeHostVisible;
    params.usage = hal::kBufferUsageDefault;
    auto visible = device.allocator().Allocate(params, tensor.bytes.size());
    if (visible.ok()) {
      Status written = (*visible)->WriteData(0, tensor.bytes);
      if (!written.ok()) return written.WithContext("writing " + shape + " to the device");
      buffer = std::move(*visible);
    } else if (visible.status().code() != StatusCode::kInvalidArgument) {
      // Out of memory, not a missing memory type: staging would not help.
      return visible.status().WithContext("allocating " + shape + " on the device");
    }
  }
  if (!buffer) {
    auto staged = UploadThroughStaging(device, tensor.bytes);
    if (!staged.ok()) return staged.status().WithContext("uploading " + shape + " to the device");
    buffer = std::move(*staged);
  }
  return hal::BufferView::Create(std::move(buffer), tensor.shape, tensor.element_type);
}

Result<HostTensor> DownloadTensor(hal::Device& device, const hal::BufferView& view,
                                  TransferPath path) {
  std::vector<uint8_t> bytes(view.byte_length());
  if (!bytes.empty()) {
    Ref<hal::Buffer> readable = view.buffer();
    if (path == TransferPath::kStaging || !HostCanRead(*readable)) {
      auto staging = AllocateStaging(device, bytes.size());
      Status copied = staging.ok() ? CopyOnQueue(device, view.buffer(), *staging, bytes.size())
                                   : staging.status();
      if (!copied.ok()) {
        return copied.WithContext("copying " + view.ShapeString() + " to host-visible memory");
      }
      readable = std::move(*staging);
    }
    Status read = readable->ReadData(0, bytes);
    if (!read.ok()) return read.WithContext("reading " + view.ShapeString() + " from the device");
  }
  std::vector<int64_t> shape(view.shape().begin(), view.shape().end());
  return HostTensor::FromBytes(std::move(shape), view.element_type(), bytes);
}

}  // namespace kiln::tools
