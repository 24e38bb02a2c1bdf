#include "tools/python/runtime/host_arrays.h"

#include "hal/transfer.h"
#include "tools/common/host_tensor.h"
#include "tools/python/runtime/element_types.h"
#include "tools/python/status_error.h"

namespace kiln::python {

namespace py = pybind11;

PythonBuffer::PythonBuffer(py::handle object, int flags) {
  if (PyObject_GetBuffer(object.ptr(), &buffer_, flags) != 0) throw py::error_already_set();
}

HostArray ReadHostArray(py::handle value, const std::optional<tools::TensorType>& declared) {
  py::module_ numpy = py::module_::import("numpy");
  HostArray array;
  if (!PyObject_CheckBuffer(value.ptr())) {
    // Lists and numbers: NumPy decides the shape; the declaration the dtype.
    py::object dtype = py::none();
    if (declared) {
      auto name = NumpyDtypeName(declared->element_type);
      if (name.ok()) dtype = py::str(*name);
    }
    array.owner = numpy.attr("asarray")(value, py::arg("dtype") = dtype);
  } else {
    array.owner = py::reinterpret_borrow<py::object>(value);
  }
  // Strided views (a transpose, a slice) are copied into C order first.
  if (PyObject_CheckBuffer(array.owner.ptr())) {
    Py_buffer probe;
    if (PyObject_GetBuffer(array.owner.ptr(), &probe, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) == 0) {
      PyBuffer_Release(&probe);
    } else {
      PyErr_Clear();
      array.owner = numpy.attr("ascontiguousarray")(array.owner);
    }
  }
  PythonBuffer buffer(array.owner, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT);
  const Py_buffer& view = buffer.get();
  array.shape.assign(view.shape, view.shape + view.ndim);
  array.element_type = ValueOrThrow(ElementTypeOfBufferFormat(view.format ? view.format : "B",
                                                              static_cast<size_t>(view.itemsize)));
  if (declared && hal::IsCompatibleElementType(declared->element_type, array.element_type)) {
    array.element_type = declared->element_type;
  }
  return array;
}

Ref<hal::BufferView> UploadHostArray(hal::Device& device, const HostArray& array) {
  PythonBuffer buffer(array.owner, PyBUF_C_CONTIGUOUS);
  const std::string what = tools::FormatShapeAndType(array.shape, array.element_type);
  Result<Ref<hal::BufferView>> view = [&]() -> Result<Ref<hal::BufferView>> {
    py::gil_scoped_release release;
    KILN_ASSIGN_OR_RETURN(Ref<hal::Buffer> uploaded,
                          hal::UploadBuffer(device, buffer.bytes(), what));
    return hal::BufferView::Create(std::move(uploaded), array.shape, array.element_type);
  }();
  return ValueOrThrow(std::move(view));
}

py::object DownloadToNumpy(hal::Device& device, const hal::BufferView& view,
                           hal::ElementType element_type) {
  const std::string dtype = ValueOrThrow(NumpyDtypeName(element_type));
  py::tuple shape(view.rank());
  for (size_t i = 0; i < view.rank(); ++i) shape[i] = py::int_(view.dim(i));
  py::object array = py::module_::import("numpy").attr("empty")(shape, py::str(dtype));
  PythonBuffer buffer(array, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS);
  Status read;
  {
    py::gil_scoped_release release;
    read = hal::ReadBuffer(device, view.buffer(), buffer.bytes(), view.ShapeString());
  }
  ThrowIfError(read);
  return array;
}

hal::ElementType ResultElementType(hal::ElementType actual,
                                   const std::optional<tools::TensorType>& declared) {
  if (declared && hal::IsCompatibleElementType(actual, declared->element_type)) {
    return declared->element_type;
  }
  return actual;
}

}  // namespace kiln::python
