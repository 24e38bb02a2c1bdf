// DeviceArray: a tensor that stays in a device's memory between calls.
//
// A function returns DeviceArrays when called with keep_on_device=True, and
// takes them as arguments without a copy (on its own device); from_dlpack
// makes one over another framework's memory. It reads back with .numpy()
// (or numpy.asarray through __array__) and goes to other frameworks through
// DLPack (dlpack_exchange.h). The array holds its buffer view and device, so
// the memory lives as long as any DeviceArray or DLPack consumer uses it.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "base/ref.h"
#include "hal/buffer_view.h"
#include "tools/python/runtime/device.h"

namespace kiln::python {

class DeviceArray {
 public:
  DeviceArray(std::shared_ptr<Device> device, Ref<hal::BufferView> view)
      : device_(std::move(device)), view_(std::move(view)) {}

  const std::shared_ptr<Device>& device() const { return device_; }
  const Ref<hal::BufferView>& view() const { return view_; }

  pybind11::tuple shape() const;
  // numpy.dtype of the elements; the string "bfloat16" for bf16, which
  // NumPy has no dtype for.
  pybind11::object dtype() const;
  // A new NumPy array holding a copy of the contents.
  pybind11::object ToNumpy() const;

 private:
  std::shared_ptr<Device> device_;
  Ref<hal::BufferView> view_;
};

}  // namespace kiln::python
