#include "hal/instrumentation.h"

#include <cstring>

#include "hal/transfer.h"

namespace kiln::hal {

Status CheckInstrumentRingSize(uint64_t byte_length) {
  if (byte_length < kInstrumentRingHeaderBytes + kInstrumentRecordBytes ||
      byte_length % kInstrumentRecordBytes != 0) {
    return InvalidArgumentError(
        "an instrumentation ring of " + std::to_string(byte_length) +
        " bytes: it must hold the 32-byte header and at least one 32-byte record, in whole "
        "records (a multiple of 32 bytes, at least 64)");
  }
  return OkStatus();
}

std::vector<uint8_t> NewInstrumentRingImage(uint64_t byte_length) {
  std::vector<uint8_t> image(byte_length, 0);
  kiln_hal_instrument_ring_header_t header{};
  header.next = 0;
  const uint64_t capacity = (byte_length - kInstrumentRingHeaderBytes) / kInstrumentRecordBytes;
  header.capacity = capacity > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(capacity);
  header.magic = KILN_HAL_INSTRUMENT_RING_MAGIC;
  header.record_size = static_cast<uint32_t>(kInstrumentRecordBytes);
  std::memcpy(image.data(), &header, sizeof(header));
  return image;
}

void InstrumentationRings::Register(InstrumentationRing ring) {
  std::lock_guard<std::mutex> lock(mutex_);
  rings_.push_back(std::move(ring));
}

std::vector<InstrumentationRing> InstrumentationRings::rings() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return rings_;
}

Result<RingContents> ParseInstrumentRing(std::span<const uint8_t> bytes) {
  RingContents contents;
  if (bytes.size() < kInstrumentRingHeaderBytes) {
    return DataLossError("an instrumentation ring of " + std::to_string(bytes.size()) +
                         " bytes is shorter than its 32-byte header");
  }
  std::memcpy(&contents.header, bytes.data(), sizeof(contents.header));
  const kiln_hal_instrument_ring_header_t& header = contents.header;
  if (header.magic != KILN_HAL_INSTRUMENT_RING_MAGIC ||
      header.record_size != kInstrumentRecordBytes) {
    return DataLossError(
        "not an instrumentation ring (its header's magic or record size is wrong)");
  }
  const uint64_t room = (bytes.size() - kInstrumentRingHeaderBytes) / kInstrumentRecordBytes;
  if (header.capacity > room) {
    return DataLossError("an instrumentation ring says it holds " +
                         std::to_string(header.capacity) + " records, but its " +
                         std::to_string(bytes.size()) + " bytes hold " + std::to_string(room));
  }
  const uint64_t written = header.next;
  const uint64_t kept = written < header.capacity ? written : header.capacity;
  contents.dropped = written - kept;
  contents.records.resize(kept);
  // Oldest first: with wrap-around the oldest kept record is at next % capacity.
  const uint64_t first = written > header.capacity ? written % header.capacity : 0;
  for (uint64_t i = 0; i < kept; ++i) {
    const uint64_t slot = header.capacity ? (first + i) % header.capacity : 0;
    std::memcpy(&contents.records[i],
                bytes.data() + kInstrumentRingHeaderBytes + slot * kInstrumentRecordBytes,
                kInstrumentRecordBytes);
  }
  return contents;
}

Result<RingContents> ReadInstrumentationRing(Device& device, const Ref<Buffer>& buffer) {
  std::vector<uint8_t> bytes(buffer->byte_length());
  KILN_RETURN_IF_ERROR(ReadBuffer(device, buffer, bytes, "the instrumentation ring"));
  return ParseInstrumentRing(bytes);
}

}  // namespace kiln::hal
