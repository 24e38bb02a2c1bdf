// Transfers between host memory and device buffers that work on every
// driver, through the HAL API alone: the way the tools upload inputs and read
// results back, and the way the `hal` module's allocator.allocate.initialized
// fills a buffer with a program's constant bytes.
//
// Upload allocates device-local, host-visible memory (what a dispatch can
// bind and the host can write) and writes the bytes with Buffer::WriteData. A
// device without such memory (the allocator rejects the memory types: a
// discrete GPU's device-local memory) gets device-local memory filled from a
// host-visible staging buffer by a copy on its queue, waited for.
//
// Read reads a buffer's bytes directly when the host can (host-visible memory
// with the mapping usage); any other buffer is first copied into a
// host-visible staging buffer on the device's queue (a one-shot command
// buffer, waited on with a fence).
//
// Both are synchronous: they return once the bytes are where they belong.
// Errors say what was being moved ("writing 4xf32 to the device: ...").
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "base/ref.h"
#include "base/result.h"
#include "hal/buffer.h"
#include "hal/device.h"

namespace kiln::hal {

enum class TransferPath {
  kAuto,     // Directly when the host can map the buffer, else through staging.
  kStaging,  // Always through a staging buffer (tests exercise the GPU path on the CPU).
};

// A new buffer on `device` (dispatch and transfer usage) holding a copy of
// `bytes`. `what` names the data in errors ("4xf32", "constant @c").
Result<Ref<Buffer>> UploadBuffer(Device& device, std::span<const uint8_t> bytes,
                                 std::string_view what, TransferPath path = TransferPath::kAuto);

// The first `out.size()` bytes of `buffer` (which lives on `device`) into
// `out`. `what` names the data in errors.
Status ReadBuffer(Device& device, const Ref<Buffer>& buffer, std::span<uint8_t> out,
                  std::string_view what, TransferPath path = TransferPath::kAuto);

}  // namespace kiln::hal
