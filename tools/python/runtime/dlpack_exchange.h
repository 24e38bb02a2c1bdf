// DLPack exchange: DeviceArrays to and from other frameworks' tensors
// without copies (the Python array API's __dlpack__ / from_dlpack protocol,
// DLPack 0.6's unversioned "dltensor" capsules).
//
// Export (DeviceArray.__dlpack__): a capsule over the array's memory, found
// with Allocator::ExportBuffer (host memory on the cpu drivers, a CUDA
// device pointer on cuda), that keeps the buffer alive until the consumer's
// tensor goes. Streams: a kiln call waits for its device work before it
// returns, so an array is complete when the consumer gets it and the
// consumer's stream needs no wait.
//
// Import (from_dlpack): wraps the producer's memory as a buffer of `device`
// with Allocator::ImportBuffer; the buffer calls the DLManagedTensor's
// deleter when the last DeviceArray or buffer view over it goes. The tensor
// must be C-contiguous (strides null, or those of its shape in row-major
// order); a strided view is an error that says to make it contiguous first.
// The byte offset is added to the address. The producer's device must be
// the one kiln's device uses (kDLCPU on the cpu drivers, kDLCUDA of the same
// ordinal on cuda): importing never copies. CUDA producers are asked
// (kiln/__init__.py passes stream=1) to order their pending work before
// CUDA's legacy default stream, which the CUDA import waits for.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "tools/python/runtime/device.h"
#include "tools/python/runtime/device_array.h"

namespace kiln::python {

// A "dltensor" capsule over `array`.
pybind11::capsule ExportDLPack(const DeviceArray& array);

// A DeviceArray on `device` over the memory of `capsule` (a "dltensor"
// capsule, renamed "used_dltensor" once kiln owns it).
DeviceArray ImportDLPack(std::shared_ptr<Device> device, pybind11::capsule capsule);

}  // namespace kiln::python
