// Device: the HAL device a Python module's functions run on, shared by every
// module, DeviceArray and import that names it.
//
// kiln/__init__.py keeps one Device per URI, so two modules loaded with
// device="cuda" run on one CUDA context and pass DeviceArrays to each other
// without copies; a DeviceArray is accepted only by functions of its own
// device (an error otherwise, never a silent transfer).
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <utility>

#include "base/ref.h"
#include "hal/device.h"

namespace kiln::python {

class Device {
 public:
  // Creates the device `uri` names ("cpu", "cuda://1", "vulkan") from
  // kiln's built-in drivers; kiln.Error names the URI when that fails.
  explicit Device(const std::string& uri);

  hal::Device& hal_device() const { return *device_; }
  const Ref<hal::Device>& ref() const { return device_; }
  const hal::DeviceProperties& properties() const { return device_->properties(); }

  // DLPack's (device_type, device_id) of this device's memory: (kDLCPU, 0)
  // for the cpu drivers, (kDLCUDA, ordinal) for cuda; vulkan has none (an
  // error).
  std::pair<int, int> DLPackDevice() const;

 private:
  Ref<hal::Device> device_;
};

}  // namespace kiln::python
