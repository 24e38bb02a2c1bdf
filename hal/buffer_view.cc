#include "hal/buffer_view.h"

namespace kiln::hal {
namespace {

std::string FormatShape(std::span<const int64_t> shape, ElementType type) {
  std::string out;
  for (int64_t dim : shape) out += std::to_string(dim) + "x";
  out += FormatElementType(type);
  return out;
}

}  // namespace

Result<Ref<BufferView>> BufferView::Create(Ref<Buffer> buffer, std::span<const int64_t> shape,
                                           ElementType element_type) {
  // The shape is described only on error: a compiled function makes a view
  // of its result on every call.
  auto described = [&] { return FormatShape(shape, element_type); };
  if (!buffer) return InvalidArgumentError("buffer view " + described() + " of a null buffer");
  if (element_type == ElementType::kNone) {
    return InvalidArgumentError("buffer view needs an element type");
  }
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return InvalidArgumentError("buffer view " + described() + ": dim " + std::to_string(i) +
                                  " is " + std::to_string(shape[i]) +
                                  " (dims must be concrete and non-negative)");
    }
    if (shape[i] != 0 && count > INT64_MAX / shape[i]) {
      return OutOfRangeError("buffer view " + described() + ": element count overflows");
    }
    count *= shape[i];
  }
  size_t element_size = ElementByteSize(element_type);
  if (static_cast<uint64_t>(count) > SIZE_MAX / element_size) {
    return OutOfRangeError("buffer view " + described() + ": byte length overflows");
  }
  size_t byte_length = static_cast<size_t>(count) * element_size;
  if (byte_length > buffer->byte_length()) {
    return OutOfRangeError("buffer view " + described() + " needs " +
                           std::to_string(byte_length) + " bytes but its buffer has " +
                           std::to_string(buffer->byte_length()));
  }
  return Ref<BufferView>::Adopt(new BufferView(std::move(buffer),
                                               std::vector<int64_t>(shape.begin(), shape.end()),
                                               element_type, count, byte_length));
}

std::string BufferView::ShapeString() const { return FormatShape(shape_, element_type_); }

}  // namespace kiln::hal
