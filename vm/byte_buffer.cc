#include "vm/byte_buffer.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace kiln::vm {

namespace {
// Cap on one allocation made from bytecode; larger requests are almost always a
// bug (or a hostile module) and should fail cleanly rather than exhaust memory.
constexpr size_t kMaxBufferLength = size_t{1} << 34;
constexpr size_t kBufferAlignment = 16;
}  // namespace

const RefType& ByteBuffer::Type() {
  static constexpr RefType kType{"vm.buffer"};
  return kType;
}

Result<Ref<ByteBuffer>> ByteBuffer::Allocate(size_t length) {
  if (length > kMaxBufferLength) {
    return ResourceExhaustedError("buffer of " + std::to_string(length) +
                                  " bytes exceeds the limit of " +
                                  std::to_string(kMaxBufferLength));
  }
  size_t rounded = (length + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  if (rounded == 0) rounded = kBufferAlignment;
  void* memory = std::aligned_alloc(kBufferAlignment, rounded);
  if (!memory) {
    return ResourceExhaustedError("out of memory allocating a " + std::to_string(length) +
                                  "-byte buffer");
  }
  std::memset(memory, 0, rounded);
  auto buffer = Ref<ByteBuffer>::Adopt(new ByteBuffer());
  buffer->data_ = static_cast<uint8_t*>(memory);
  buffer->length_ = length;
  buffer->owns_data_ = true;
  return buffer;
}

Ref<ByteBuffer> ByteBuffer::WrapReadOnly(std::span<const uint8_t> bytes,
                                         Ref<RefObject> keep_alive) {
  auto buffer = Ref<ByteBuffer>::Adopt(new ByteBuffer());
  buffer->data_ = bytes.data();
  buffer->length_ = bytes.size();
  buffer->read_only_ = true;
  buffer->keep_alive_ = std::move(keep_alive);
  return buffer;
}

ByteBuffer::~ByteBuffer() {
  if (owns_data_) std::free(const_cast<uint8_t*>(data_));
}

Status ByteBuffer::CheckRange(int64_t offset, int64_t length, bool for_write) const {
  if (for_write && read_only_) return FailedPreconditionError("buffer is read-only");
  if (offset < 0) return OutOfRangeError("negative buffer offset " + std::to_string(offset));
  if (length < 0) return OutOfRangeError("negative buffer length " + std::to_string(length));
  if (static_cast<uint64_t>(offset) > length_ ||
      static_cast<uint64_t>(length) > length_ - static_cast<uint64_t>(offset)) {
    return OutOfRangeError("buffer range [" + std::to_string(offset) + ", " +
                           std::to_string(offset) + "+" + std::to_string(length) +
                           ") out of bounds of a " + std::to_string(length_) + "-byte buffer");
  }
  return OkStatus();
}

}  // namespace kiln::vm
