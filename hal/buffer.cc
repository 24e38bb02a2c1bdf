#include "hal/buffer.h"

#include <cstring>

namespace kiln::hal {

Buffer::~Buffer() {
  if (counters_) counters_->RecordFree(pool_, byte_length_);
}

void Buffer::CountAllocation(Ref<AllocationCounters> counters, MemoryPool pool) {
  counters_ = std::move(counters);
  pool_ = pool;
  counters_->RecordAllocation(pool_, byte_length_);
}

namespace {

std::string FormatBits(uint32_t bits,
                       std::initializer_list<std::pair<uint32_t, const char*>> names) {
  std::string out;
  for (const auto& [bit, name] : names) {
    if (bits & bit) {
      if (!out.empty()) out += "|";
      out += name;
    }
  }
  return out.empty() ? "none" : out;
}

}  // namespace

std::string FormatMemoryType(MemoryTypeBits bits) {
  return FormatBits(bits, {{kMemoryTypeDeviceLocal, "device-local"},
                           {kMemoryTypeHostVisible, "host-visible"},
                           {kMemoryTypeHostCoherent, "host-coherent"}});
}

std::string FormatBufferUsage(BufferUsageBits bits) {
  return FormatBits(bits, {{kBufferUsageTransfer, "transfer"},
                           {kBufferUsageDispatchStorage, "dispatch-storage"},
                           {kBufferUsageMapping, "mapping"}});
}

namespace {

Status NotHostVisible(MemoryTypeBits memory_type) {
  return FailedPreconditionError("cannot map a buffer whose memory is " +
                                 FormatMemoryType(memory_type) + " (not host-visible)");
}

}  // namespace

// A view of a range of an allocation; forwards mapping to the allocation.
class Buffer::SubspanBuffer final : public Buffer {
 public:
  SubspanBuffer(Ref<Buffer> allocation, size_t offset, size_t length)
      : Buffer(allocation->memory_type(), allocation->allowed_usage(), length) {
    allocation_ = std::move(allocation);
    byte_offset_ = offset;
  }

 protected:
  Result<uint8_t*> MapAllocation(size_t allocation_offset, size_t length) override {
    return allocation_->MapAllocation(allocation_offset, length);
  }
};

Result<size_t> Buffer::CheckRange(size_t offset, size_t length, std::string_view what) const {
  if (std::optional<size_t> resolved = ResolveRange(offset, length)) return *resolved;
  if (offset > byte_length_) {
    return OutOfRangeError(std::string(what) + ": offset " + std::to_string(offset) +
                           " is past the end of a buffer of " + std::to_string(byte_length_) +
                           " bytes");
  }
  return OutOfRangeError(std::string(what) + ": range [" + std::to_string(offset) + ", " +
                         std::to_string(offset) + " + " + std::to_string(length) +
                         ") exceeds a buffer of " + std::to_string(byte_length_) + " bytes");
}

Result<std::span<uint8_t>> Buffer::Map(size_t offset, size_t length) {
  if (!(memory_type_ & kMemoryTypeHostVisible)) return NotHostVisible(memory_type_);
  if (!(allowed_usage_ & kBufferUsageMapping)) {
    return FailedPreconditionError("cannot map a buffer allowed only for " +
                                   FormatBufferUsage(allowed_usage_) + " (no mapping usage)");
  }
  KILN_ASSIGN_OR_RETURN(size_t resolved, CheckRange(offset, length, "Map"));
  KILN_ASSIGN_OR_RETURN(uint8_t * data,
                        allocated_buffer()->MapAllocation(byte_offset_ + offset, resolved));
  return std::span<uint8_t>(data, resolved);
}

Status Buffer::ReadAllocation(size_t, std::span<uint8_t>) { return NotHostVisible(memory_type_); }

Status Buffer::WriteAllocation(size_t, std::span<const uint8_t>) {
  return NotHostVisible(memory_type_);
}

Status Buffer::ReadData(size_t offset, std::span<uint8_t> out) {
  KILN_RETURN_IF_ERROR(CheckRange(offset, out.size(), "ReadData").status());
  if (!(memory_type_ & kMemoryTypeHostVisible) && (allowed_usage_ & kBufferUsageMapping)) {
    if (out.empty()) return OkStatus();
    return allocated_buffer()->ReadAllocation(byte_offset_ + offset, out);
  }
  KILN_ASSIGN_OR_RETURN(std::span<uint8_t> mapped, Map(offset, out.size()));
  if (!out.empty()) std::memcpy(out.data(), mapped.data(), out.size());
  return OkStatus();
}

Status Buffer::WriteData(size_t offset, std::span<const uint8_t> data) {
  KILN_RETURN_IF_ERROR(CheckRange(offset, data.size(), "WriteData").status());
  if (!(memory_type_ & kMemoryTypeHostVisible) && (allowed_usage_ & kBufferUsageMapping)) {
    if (data.empty()) return OkStatus();
    return allocated_buffer()->WriteAllocation(byte_offset_ + offset, data);
  }
  KILN_ASSIGN_OR_RETURN(std::span<uint8_t> mapped, Map(offset, data.size()));
  if (!data.empty()) std::memcpy(mapped.data(), data.data(), data.size());
  return OkStatus();
}

Result<Ref<Buffer>> Buffer::Subspan(const Ref<Buffer>& buffer, size_t offset, size_t length) {
  if (!buffer) return InvalidArgumentError("Subspan of a null buffer");
  KILN_ASSIGN_OR_RETURN(size_t resolved, buffer->CheckRange(offset, length, "Subspan"));
  Ref<Buffer> allocation(buffer->allocated_buffer());
  return Ref<Buffer>(
      MakeRef<SubspanBuffer>(std::move(allocation), buffer->byte_offset_ + offset, resolved));
}

}  // namespace kiln::hal
