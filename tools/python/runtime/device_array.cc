#include "tools/python/runtime/device_array.h"

#include "tools/python/runtime/element_types.h"
#include "tools/python/runtime/host_arrays.h"

namespace kiln::python {

namespace py = pybind11;

py::tuple DeviceArray::shape() const {
  py::tuple shape(view_->rank());
  for (size_t i = 0; i < view_->rank(); ++i) shape[i] = py::int_(view_->dim(i));
  return shape;
}

py::object DeviceArray::dtype() const {
  auto name = NumpyDtypeName(view_->element_type());
  if (!name.ok()) return py::str("bfloat16");
  return py::module_::import("numpy").attr("dtype")(py::str(*name));
}

py::object DeviceArray::ToNumpy() const {
  return DownloadToNumpy(device_->hal_device(), *view_, view_->element_type());
}

}  // namespace kiln::python
