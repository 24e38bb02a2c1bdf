// Buffer: a range of memory that dispatches, copies and the host read and
// write.
//
// A buffer is either an allocation (made by an Allocator, see allocator.h) or
// a subspan: a view of a byte range of another buffer that shares its storage
// and keeps it alive. Offsets given to a buffer's methods are relative to the
// buffer itself (for a subspan, to the start of the subspan), and every
// access is checked against its length: an out-of-range access is an
// OUT_OF_RANGE error naming the offset, the length and the buffer size.
//
// Each allocation has memory type bits (where it lives and whether the host
// can see it) and usage bits (what it may be used for). Host access (Map,
// ReadData, WriteData) needs host-visible memory and the mapping usage;
// drivers check the transfer and dispatch usages when commands are recorded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "base/ref.h"
#include "base/result.h"
#include "hal/allocator_statistics.h"

namespace kiln::hal {

// Where memory lives. Bits combine.
enum MemoryType : uint32_t {
  kMemoryTypeNone = 0,
  kMemoryTypeDeviceLocal = 1u << 0,   // Fast for the device.
  kMemoryTypeHostVisible = 1u << 1,   // The host can map it.
  kMemoryTypeHostCoherent = 1u << 2,  // Host writes need no explicit flush.
};
using MemoryTypeBits = uint32_t;

// What a buffer may be used for. Bits combine.
enum BufferUsage : uint32_t {
  kBufferUsageNone = 0,
  kBufferUsageTransfer = 1u << 0,         // Copy/fill/update source or target.
  kBufferUsageDispatchStorage = 1u << 1,  // A dispatch binding.
  kBufferUsageMapping = 1u << 2,          // Map/ReadData/WriteData from the host.
  kBufferUsageDefault = kBufferUsageTransfer | kBufferUsageDispatchStorage | kBufferUsageMapping,
};
using BufferUsageBits = uint32_t;

// "device-local|host-visible", "transfer|dispatch-storage", for messages.
std::string FormatMemoryType(MemoryTypeBits bits);
std::string FormatBufferUsage(BufferUsageBits bits);

// Means "from the offset to the end of the buffer" wherever a length is asked.
inline constexpr size_t kWholeBuffer = ~size_t{0};

class Buffer : public RefObject {
 public:
  ~Buffer() override;

  // Bytes visible through this buffer.
  size_t byte_length() const { return byte_length_; }
  MemoryTypeBits memory_type() const { return memory_type_; }
  BufferUsageBits allowed_usage() const { return allowed_usage_; }
  // The allocation that owns the storage (this buffer unless a subspan) and
  // where this buffer starts in it.
  Buffer* allocated_buffer() { return allocation_ ? allocation_.get() : this; }
  const Buffer* allocated_buffer() const { return allocation_ ? allocation_.get() : this; }
  size_t byte_offset() const { return byte_offset_; }

  // Resolves `length` (kWholeBuffer = to the end) and checks that
  // [offset, offset + length) lies inside this buffer. `what` names the
  // access in the error ("ReadData", "dispatch binding 2", ...).
  Result<size_t> CheckRange(size_t offset, size_t length, std::string_view what) const;
  // The same check without a message: the resolved length, or nullopt when
  // the range does not fit. For hot paths that name the access only on error.
  std::optional<size_t> ResolveRange(size_t offset, size_t length) const {
    if (offset > byte_length_) return std::nullopt;
    if (length == kWholeBuffer) return byte_length_ - offset;
    if (length > byte_length_ - offset) return std::nullopt;
    return length;
  }

  // Host pointer to [offset, offset + length) of this buffer. The pointer
  // stays valid as long as the buffer lives. Needs host-visible memory and
  // the mapping usage.
  Result<std::span<uint8_t>> Map(size_t offset = 0, size_t length = kWholeBuffer);
  // Copies bytes out of / into the buffer, starting at `offset`. Needs the
  // mapping usage. Host-visible memory is copied through Map; other memory
  // (device-local GPU memory) through the driver's synchronous copy hooks
  // below, so the host can always read and write a buffer it may map.
  Status ReadData(size_t offset, std::span<uint8_t> out);
  Status WriteData(size_t offset, std::span<const uint8_t> data);

  // A buffer that views [offset, offset + length) of `buffer` and shares its
  // storage (a subspan of a subspan views the same allocation).
  static Result<Ref<Buffer>> Subspan(const Ref<Buffer>& buffer, size_t offset, size_t length);

  // For allocators: counts this allocation's bytes in `counters` (its
  // allocator's) now, and as freed when the buffer goes. Called once, by the
  // allocator that made it (allocator_statistics.h).
  void CountAllocation(Ref<AllocationCounters> counters, MemoryPool pool);

 protected:
  Buffer(MemoryTypeBits memory_type, BufferUsageBits usage, size_t byte_length)
      : memory_type_(memory_type), allowed_usage_(usage), byte_length_(byte_length) {}

  // Implemented by allocations: the host address of the allocation's byte
  // `allocation_offset`, or an error when the memory cannot be mapped.
  virtual Result<uint8_t*> MapAllocation(size_t allocation_offset, size_t length) = 0;
  // Implemented by allocations whose memory the host cannot map: copy bytes
  // between the allocation (from byte `allocation_offset`) and host memory,
  // synchronously. The default says the memory is not host-visible.
  virtual Status ReadAllocation(size_t allocation_offset, std::span<uint8_t> out);
  virtual Status WriteAllocation(size_t allocation_offset, std::span<const uint8_t> data);

 private:
  class SubspanBuffer;

  MemoryTypeBits memory_type_;
  BufferUsageBits allowed_usage_;
  size_t byte_length_;
  Ref<Buffer> allocation_;            // Null for an allocation.
  size_t byte_offset_ = 0;            // Within allocated_buffer().
  Ref<AllocationCounters> counters_;  // Null: not counted (subspans, imports).
  MemoryPool pool_ = MemoryPool::kHost;
};

}  // namespace kiln::hal
