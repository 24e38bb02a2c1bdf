// kiln.Error: how a kiln Status becomes a Python exception, for both
// extension modules.
//
// kiln.Error subclasses RuntimeError; str() is kiln's message (the one the
// command-line tools print after "error: ") and `code` the status code's
// name ("INVALID_ARGUMENT"). The class lives in kiln._runtime (made by
// DefineErrorClass when it loads); kiln._compiler raises the same class.
#pragma once

#include <pybind11/pybind11.h>

#include <utility>

#include "base/result.h"
#include "base/status.h"

namespace kiln::python {

// Creates kiln.Error in `module` (kiln._runtime's initialisation).
inline void DefineErrorClass(pybind11::module_& module) {
  pybind11::object error = pybind11::reinterpret_steal<pybind11::object>(
      PyErr_NewExceptionWithDoc("kiln.Error",
                                "An error kiln reported; str() is its message, `code` the "
                                "status code's name (e.g. 'INVALID_ARGUMENT').",
                                PyExc_RuntimeError, nullptr));
  if (!error) throw pybind11::error_already_set();
  module.add_object("Error", error);
}

// Raises kiln.Error for `status` (not OK). Needs the GIL.
[[noreturn]] inline void ThrowStatus(const Status& status) {
  pybind11::object error_class = pybind11::module_::import("kiln._runtime").attr("Error");
  pybind11::object error = error_class(status.message());
  error.attr("code") = std::string(StatusCodeName(status.code()));
  PyErr_SetObject(error_class.ptr(), error.ptr());
  throw pybind11::error_already_set();
}

inline void ThrowIfError(const Status& status) {
  if (!status.ok()) ThrowStatus(status);
}

// The value of `result`, or kiln.Error.
template <typename T>
T ValueOrThrow(Result<T> result) {
  if (!result.ok()) ThrowStatus(result.status());
  return std::move(*result);
}

}  // namespace kiln::python
