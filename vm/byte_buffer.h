// ByteBuffer: a byte array the VM can hold in a ref ("vm.buffer").
//
// Either owned (allocated by buffer.alloc or by the host, 16-byte aligned and
// zero-filled) or a read-only view of module rodata that keeps the module's
// bytes alive through `keep_alive`. Bytecode accesses are bounds-checked and a
// store into a read-only buffer is an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "base/result.h"
#include "vm/object.h"

namespace kiln::vm {

class ByteBuffer final : public Object {
 public:
  static const RefType& Type();
  // A zero-filled, writable buffer of `length` bytes.
  static Result<Ref<ByteBuffer>> Allocate(size_t length);
  // A read-only view of `bytes`; `keep_alive` owns the memory.
  static Ref<ByteBuffer> WrapReadOnly(std::span<const uint8_t> bytes, Ref<RefObject> keep_alive);

  size_t length() const { return length_; }
  bool read_only() const { return read_only_; }
  const uint8_t* data() const { return data_; }
  // Null for read-only buffers.
  uint8_t* mutable_data() { return read_only_ ? nullptr : const_cast<uint8_t*>(data_); }
  std::span<const uint8_t> bytes() const { return {data_, length_}; }

  // Checks that [offset, offset + length) lies inside the buffer (and, when
  // `for_write`, that the buffer is writable). Messages name the range.
  Status CheckRange(int64_t offset, int64_t length, bool for_write) const;

 private:
  ByteBuffer() : Object(Type()) {}
  ~ByteBuffer() override;

  const uint8_t* data_ = nullptr;
  size_t length_ = 0;
  bool read_only_ = false;
  bool owns_data_ = false;
  Ref<RefObject> keep_alive_;
};

}  // namespace kiln::vm
