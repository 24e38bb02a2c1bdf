#include "tools/common/device_tensor.h"

#include <vector>

namespace kiln::tools {

Result<Ref<hal::BufferView>> UploadTensor(hal::Device& device, const HostTensor& tensor,
                                          TransferPath path) {
  const std::string shape = FormatShapeAndType(tensor.shape, tensor.element_type);
  KILN_ASSIGN_OR_RETURN(Ref<hal::Buffer> buffer,
                        hal::UploadBuffer(device, tensor.bytes, shape, path));
  return hal::BufferView::Create(std::move(buffer), tensor.shape, tensor.element_type);
}

Result<HostTensor> DownloadTensor(hal::Device& device, const hal::BufferView& view,
                                  TransferPath path) {
  std::vector<uint8_t> bytes(view.byte_length());
  KILN_RETURN_IF_ERROR(hal::ReadBuffer(device, view.buffer(), bytes, view.ShapeString(), path));
  std::vector<int64_t> shape(view.shape().begin(), view.shape().end());
  return HostTensor::FromBytes(std::move(shape), view.element_type(), bytes);
}

}  // namespace kiln::tools
