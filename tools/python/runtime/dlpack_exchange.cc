#include "tools/python/runtime/dlpack_exchange.h"

#include <dlpack/dlpack.h>

#include <string>
#include <vector>

#include "tools/common/host_tensor.h"
#include "tools/python/runtime/element_types.h"
#include "tools/python/status_error.h"

namespace kiln::python {

namespace py = pybind11;

namespace {

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

// What an exported DLManagedTensor points into: the shape it describes and
// the view that keeps the memory alive.
struct ExportedTensor {
  DLManagedTensor managed{};
  std::vector<int64_t> shape;
  Ref<hal::BufferView> view;
};

void DeleteExported(DLManagedTensor* managed) {
  // Dropping the view may free device memory: no Python state is touched,
  // so any thread may call this, with or without the GIL.
  delete static_cast<ExportedTensor*>(managed->manager_ctx);
}

// The capsule's destructor: a capsule no consumer took still owns its tensor.
void DestroyCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kCapsuleName)) return;  // Consumed ("used_dltensor").
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (managed && managed->deleter) managed->deleter(managed);
}

std::string DescribeShape(const DLTensor& tensor) {
  std::string text = "[";
  for (int i = 0; i < tensor.ndim; ++i) text += (i ? ", " : "") + std::to_string(tensor.shape[i]);
  return text + "]";
}

// Null strides, or the row-major strides of the shape (in elements; a
// dimension of size 1 may carry any stride, as PyTorch gives them).
bool IsCContiguous(const DLTensor& tensor) {
  if (tensor.strides == nullptr) return true;
  int64_t expected = 1;
  for (int i = tensor.ndim - 1; i >= 0; --i) {
    if (tensor.shape[i] == 0) return true;  // No elements: any strides.
    if (tensor.shape[i] != 1 && tensor.strides[i] != expected) return false;
    expected *= tensor.shape[i];
  }
  return true;
}

}  // namespace

py::capsule ExportDLPack(const DeviceArray& array) {
  const hal::BufferView& view = *array.view();
  Device& device = *array.device();
  const auto [device_type, device_id] = device.DLPackDevice();
  hal::ExternalBuffer external =
      ValueOrThrow(device.hal_device().allocator().ExportBuffer(*view.buffer()));
  auto exported = std::make_unique<ExportedTensor>();
  exported->shape.assign(view.shape().begin(), view.shape().end());
  exported->view = array.view();
  DLTensor& tensor = exported->managed.dl_tensor;
  tensor.data = external.type == hal::ExternalBuffer::Type::kHostAllocation
                    ? external.host_pointer
                    : reinterpret_cast<void*>(static_cast<uintptr_t>(external.device_pointer));
  tensor.device = DLDevice{static_cast<DLDeviceType>(device_type), device_id};
  tensor.ndim = static_cast<int>(exported->shape.size());
  tensor.dtype = ValueOrThrow(DLDataTypeOf(view.element_type()));
  tensor.shape = exported->shape.data();
  tensor.strides = nullptr;  // Row-major.
  tensor.byte_offset = 0;
  exported->managed.manager_ctx = exported.get();
  exported->managed.deleter = DeleteExported;
  DLManagedTensor* managed = &exported.release()->managed;
  PyObject* capsule = PyCapsule_New(managed, kCapsuleName, DestroyCapsule);
  if (capsule == nullptr) {
    DeleteExported(managed);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

DeviceArray ImportDLPack(std::shared_ptr<Device> device, py::capsule capsule) {
  if (!PyCapsule_IsValid(capsule.ptr(), kCapsuleName)) {
    ThrowStatus(InvalidArgumentError(
        "from_dlpack needs an unconsumed DLPack capsule named 'dltensor' (a capsule is used "
        "once; a versioned 'dltensor_versioned' capsule is not supported)"));
  }
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
  const DLTensor& tensor = managed->dl_tensor;
  const auto [device_type, device_id] = device->DLPackDevice();
  const std::string& uri = device->properties().uri;
  if (tensor.device.device_type != device_type || tensor.device.device_id != device_id) {
    ThrowStatus(InvalidArgumentError(
        "the DLPack tensor lives on device (type " + std::to_string(tensor.device.device_type) +
        ", id " + std::to_string(tensor.device.device_id) + "), not in the memory of " + uri +
        " (type " + std::to_string(device_type) + ", id " + std::to_string(device_id) +
        "); from_dlpack never copies: pick the matching device"));
  }
  if (tensor.ndim < 0 || (tensor.ndim > 0 && tensor.shape == nullptr)) {
    ThrowStatus(InvalidArgumentError("the DLPack tensor has no valid shape"));
  }
  if (!IsCContiguous(tensor)) {
    ThrowStatus(InvalidArgumentError(
        "the DLPack tensor of shape " + DescribeShape(tensor) +
        " is not C-contiguous (strided views are not supported; make it contiguous first, "
        "e.g. tensor.contiguous())"));
  }
  const hal::ElementType element_type = ValueOrThrow(ElementTypeOfDLDataType(tensor.dtype));
  std::vector<int64_t> shape(tensor.shape, tensor.shape + tensor.ndim);
  const int64_t count =
      ValueOrThrow(tools::CheckedElementCount(shape, hal::ElementByteSize(element_type)));
  const size_t size = static_cast<size_t>(count) * hal::ElementByteSize(element_type);

  hal::ExternalBuffer external;
  external.size = size;
  if (device_type == kDLCPU) {
    external.type = hal::ExternalBuffer::Type::kHostAllocation;
    external.host_pointer = static_cast<uint8_t*>(tensor.data) + tensor.byte_offset;
  } else {
    external.type = hal::ExternalBuffer::Type::kDeviceAllocation;
    external.device_pointer =
        static_cast<uint64_t>(reinterpret_cast<uintptr_t>(tensor.data)) + tensor.byte_offset;
  }
  // The producer's deleter may release Python objects (NumPy's does, and
  // takes the GIL itself; others may not): it runs holding the GIL.
  auto release = [managed] {
    if (managed->deleter == nullptr) return;
    if (!Py_IsInitialized()) return;  // The interpreter is gone; so is the producer.
    py::gil_scoped_acquire gil;
    managed->deleter(managed);
  };
  Result<Ref<hal::Buffer>> buffer =
      device->hal_device().allocator().ImportBuffer({}, external, std::move(release));
  if (!buffer.ok()) ThrowStatus(buffer.status().WithContext("from_dlpack"));
  // The buffer owns the tensor now: its release runs the deleter.
  PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName);
  Result<Ref<hal::BufferView>> view =
      hal::BufferView::Create(std::move(*buffer), shape, element_type);
  if (!view.ok()) ThrowStatus(view.status().WithContext("from_dlpack"));
  return DeviceArray(std::move(device), std::move(*view));
}

}  // namespace kiln::python
