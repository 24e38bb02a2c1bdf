// kiln._runtime: the Python bindings of kiln's runtime (no compiler, no
// MLIR): devices, loaded programs and their functions, DeviceArray and
// DLPack exchange, and kiln.Error. kiln/__init__.py builds the public API
// over these; the classes here are its implementation, not its interface.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "tools/python/runtime/device.h"
#include "tools/python/runtime/device_array.h"
#include "tools/python/runtime/dlpack_exchange.h"
#include "tools/python/runtime/program.h"
#include "tools/python/status_error.h"

namespace py = pybind11;
using namespace kiln::python;

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "kiln's runtime bindings (use the kiln package instead)";
  DefineErrorClass(m);

  py::class_<Device, std::shared_ptr<Device>>(m, "Device")
      .def(py::init<const std::string&>(), py::arg("uri"))
      .def_property_readonly("uri", [](const Device& d) { return d.properties().uri; })
      .def_property_readonly("name", [](const Device& d) { return d.properties().name; })
      .def_property_readonly("driver", [](const Device& d) { return d.properties().driver; })
      .def("dlpack_device", &Device::DLPackDevice)
      .def("__repr__", [](const Device& d) {
        return "<kiln.Device " + d.properties().uri + ": " + d.properties().name + ">";
      });

  py::class_<DeviceArray>(m, "DeviceArray")
      .def_property_readonly("shape", &DeviceArray::shape)
      .def_property_readonly("dtype", &DeviceArray::dtype)
      .def_property_readonly(
          "element_type",
          [](const DeviceArray& a) {
            return std::string(kiln::hal::FormatElementType(a.view()->element_type()));
          })
      .def_property_readonly("device", &DeviceArray::device)
      .def_property_readonly("ndim", [](const DeviceArray& a) { return a.view()->rank(); })
      .def_property_readonly("size", [](const DeviceArray& a) { return a.view()->element_count(); })
      .def_property_readonly("nbytes", [](const DeviceArray& a) { return a.view()->byte_length(); })
      .def("numpy", &DeviceArray::ToNumpy)
      .def("_export_dlpack", &ExportDLPack)
      .def("__repr__", [](const DeviceArray& a) {
        return "<kiln.DeviceArray " + a.view()->ShapeString() + " on " +
               a.device()->properties().uri + ">";
      });

  m.def("import_dlpack", &ImportDLPack, py::arg("device"), py::arg("capsule"));

  py::class_<Program, std::shared_ptr<Program>>(m, "Program")
      .def_static("load_file", &Program::LoadFile, py::arg("device"), py::arg("path"),
                  py::arg("parameters"))
      .def_static("load_bytes", &Program::LoadBytes, py::arg("device"), py::arg("data"),
                  py::arg("parameters"))
      .def_property_readonly("name", [](const Program& p) { return std::string(p.name()); })
      .def_property_readonly("exports", &Program::exports)
      .def_property_readonly("device", &Program::device)
      .def("lookup", &Program::Lookup, py::arg("name"));

  py::class_<ProgramFunction>(m, "ProgramFunction")
      .def_property_readonly("name", &ProgramFunction::name)
      .def_property_readonly("signature", &ProgramFunction::signature)
      .def("call", &ProgramFunction::Call, py::arg("arguments"), py::arg("keep_on_device"));
}
