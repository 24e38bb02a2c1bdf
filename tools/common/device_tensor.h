// Device tensors: moving a HostTensor into a hal::BufferView on a device and
// reading a buffer view back, the way the tools hand tensors to a program and
// take its results. The bytes move through hal/transfer.h (shared with the
// `hal` module's allocator.allocate.initialized):
//
// Upload allocates host-visible memory through the device's allocator (the
// memory a program's dispatches can bind and the host can write), writes the
// bytes with Buffer::WriteData and wraps the buffer in a view of the tensor's
// shape and element type. A device that has no host-visible device memory
// (the allocator rejects the memory types) gets device-local memory filled
// from a host-visible staging buffer by a copy on its queue.
//
// Download reads the view's bytes through the HAL buffer API. A buffer the
// host can read (host-visible memory with the mapping usage) is read
// directly; any other buffer (device-only memory on a GPU, or a buffer made
// without the mapping usage) is first copied into a host-visible staging
// buffer on the device's queue (a one-shot command buffer, waited on with a
// fence), so the same call works for every driver.
#pragma once

#include "base/ref.h"
#include "base/result.h"
#include "hal/buffer_view.h"
#include "hal/device.h"
#include "hal/transfer.h"
#include "tools/common/host_tensor.h"

namespace kiln::tools {

// How UploadTensor and DownloadTensor move the bytes (hal/transfer.h).
using TransferPath = hal::TransferPath;

// A buffer view on `device` holding a copy of `tensor`.
Result<Ref<hal::BufferView>> UploadTensor(hal::Device& device, const HostTensor& tensor,
                                          TransferPath path = TransferPath::kAuto);

// The contents of `view` (which lives on `device`) as a host tensor.
Result<HostTensor> DownloadTensor(hal::Device& device, const hal::BufferView& view,
                                  TransferPath path = TransferPath::kAuto);

}  // namespace kiln::tools
