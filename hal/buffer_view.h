// BufferView: a tensor, i.e. a buffer plus a shape and an element type.
//
// Shapes are written with dynamic dimensions in the program (tensor<?xf32>),
// but a buffer view is made at run time when every dimension is known, so its
// dims are concrete (>= 0). The view's byte length (the product of the dims
// times the element size) must fit in the buffer; the buffer may be larger
// (a view of the front of a pooled allocation).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/buffer.h"
#include "hal/element_type.h"

namespace kiln::hal {

class BufferView : public RefObject {
 public:
  // Fails when a dim is negative, the byte length overflows, or the buffer is
  // smaller than the view (naming both sizes and the shape).
  static Result<Ref<BufferView>> Create(Ref<Buffer> buffer, std::span<const int64_t> shape,
                                        ElementType element_type);

  const Ref<Buffer>& buffer() const { return buffer_; }
  std::span<const int64_t> shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  int64_t dim(size_t i) const { return shape_[i]; }
  ElementType element_type() const { return element_type_; }
  int64_t element_count() const { return element_count_; }
  size_t byte_length() const { return byte_length_; }

  // "2x3xf32" (a scalar is just "f32"), the way tensors are typed on the
  // command line.
  std::string ShapeString() const;

 private:
  BufferView(Ref<Buffer> buffer, std::vector<int64_t> shape, ElementType type, int64_t count,
             size_t byte_length)
      : buffer_(std::move(buffer)),
        shape_(std::move(shape)),
        element_type_(type),
        element_count_(count),
        byte_length_(byte_length) {}

  Ref<Buffer> buffer_;
  std::vector<int64_t> shape_;
  ElementType element_type_;
  int64_t element_count_;
  size_t byte_length_;
};

}  // namespace kiln::hal
