// Host arrays: NumPy arrays (and anything else with the buffer protocol) in
// and out of device buffers, without pybind11's NumPy API.
//
// pybind11 2.10's numpy.h predates NumPy 2's ABI, so the extension never
// touches NumPy's C structures: inputs are read through the buffer protocol
// (PEP 3118: a pointer, a shape, strides and a format), and results are made
// by calling numpy.empty(shape, dtype) and writing into its buffer. The same
// extension therefore runs under NumPy 1 and NumPy 2.
//
// Inputs are copied into the device (host-visible memory where there is
// some; hal/transfer.h): the caller may change its array afterwards. An
// input that is not C-contiguous is made so (numpy.ascontiguousarray); an
// object without the buffer protocol (a list, a Python number given for a
// tensor) goes through numpy.asarray, with the declared element type when
// the function declares one.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/ref.h"
#include "hal/buffer_view.h"
#include "hal/device.h"
#include "tools/common/tensor_type.h"

namespace kiln::python {

// A Py_buffer held for as long as this lives.
class PythonBuffer {
 public:
  // Raises (the object's own BufferError) when `object` cannot give a
  // buffer with `flags`.
  PythonBuffer(pybind11::handle object, int flags);
  ~PythonBuffer() { PyBuffer_Release(&buffer_); }
  PythonBuffer(const PythonBuffer&) = delete;
  PythonBuffer& operator=(const PythonBuffer&) = delete;

  const Py_buffer& get() const { return buffer_; }
  std::span<uint8_t> bytes() const {
    return {static_cast<uint8_t*>(buffer_.buf), static_cast<size_t>(buffer_.len)};
  }

 private:
  Py_buffer buffer_{};
};

// A host array, read for one tensor argument.
struct HostArray {
  pybind11::object owner;  // The contiguous array the bytes belong to.
  std::vector<int64_t> shape;
  hal::ElementType element_type = hal::ElementType::kNone;
};

// Reads `value` as a C-contiguous array (see above). `declared` is the
// argument's tensor type when the function declares one: it picks the dtype
// for numpy.asarray and, for a signed or unsigned integer array where a
// signless integer of that width is declared, the element type. Type errors
// are left to the caller's check against `declared`.
HostArray ReadHostArray(pybind11::handle value, const std::optional<tools::TensorType>& declared);

// A buffer view on `device` holding a copy of `array`'s bytes. Releases the
// GIL while the bytes move.
Ref<hal::BufferView> UploadHostArray(hal::Device& device, const HostArray& array);

// A new NumPy array holding the contents of `view` (a buffer of `device`),
// with the dtype of `element_type` (the view's own, or a signedness the
// function declares).
pybind11::object DownloadToNumpy(hal::Device& device, const hal::BufferView& view,
                                 hal::ElementType element_type);

// The element type a `declared` tensor result reads back as: the declared
// signed or unsigned type for a signless integer result of its width (an
// ONNX model's uint8 output), else the view's own.
hal::ElementType ResultElementType(hal::ElementType actual,
                                   const std::optional<tools::TensorType>& declared);

}  // namespace kiln::python
