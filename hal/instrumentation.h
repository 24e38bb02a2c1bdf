// Dispatch instrumentation: the rings that instrumented kernels write one
// record per workgroup into (kiln-compile --instrument-dispatches, or a
// hand-written kernel whose layout's last binding is an Instrumentation
// binding), and what the host does with them.
//
// The ring's layout is the device's ABI and is documented, in C, in
// hal/cpu/kernel_abi.h (kiln_hal_instrument_ring_header_t and
// kiln_hal_instrument_record_t): a 32-byte header whose `next` counter
// kernels advance atomically, then `capacity` records of 32 bytes, written
// at `next % capacity`, so the ring keeps the last `capacity` records.
//
// A program makes its ring once per context (the hal module's
// `device.instrumentation_ring` import, called by the module initializer);
// the hal module registers it in the InstrumentationRings given in its
// options, from which a tool reads it back after a call:
//
//   auto rings = MakeRef<hal::InstrumentationRings>();
//   hal_options.instrumentation = rings;          // HalModuleOptions
//   ... create the context, invoke ...
//   for (const hal::InstrumentationRing& ring : rings->rings()) {
//     KILN_ASSIGN_OR_RETURN(hal::RingContents contents,
//                           hal::ReadInstrumentationRing(*ring.device, ring.buffer));
//   }
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/buffer.h"
#include "hal/cpu/kernel_abi.h"
#include "hal/device.h"

namespace kiln::hal {

inline constexpr uint64_t kInstrumentRingHeaderBytes = sizeof(kiln_hal_instrument_ring_header_t);
inline constexpr uint64_t kInstrumentRecordBytes = sizeof(kiln_hal_instrument_record_t);
static_assert(kInstrumentRingHeaderBytes == 32 && kInstrumentRecordBytes == 32);

// OK when `byte_length` can hold a ring (the header and at least one record,
// whole records only); else INVALID_ARGUMENT naming it.
Status CheckInstrumentRingSize(uint64_t byte_length);

// The bytes a new ring of `byte_length` bytes starts with: the header
// (next 0, capacity, magic, record size) and zeroed records.
std::vector<uint8_t> NewInstrumentRingImage(uint64_t byte_length);

// One ring a context made.
struct InstrumentationRing {
  Ref<Device> device;
  Ref<Buffer> buffer;
  uint64_t byte_length = 0;
};

// The rings the contexts of a hal module made, for the host to read back.
// Thread-safe.
class InstrumentationRings final : public RefObject {
 public:
  void Register(InstrumentationRing ring);
  std::vector<InstrumentationRing> rings() const;

 private:
  mutable std::mutex mutex_;
  std::vector<InstrumentationRing> rings_;
};

// What a ring holds, parsed.
struct RingContents {
  kiln_hal_instrument_ring_header_t header{};
  // The records that are still in the ring, oldest first: min(next,
  // capacity) of them.
  std::vector<kiln_hal_instrument_record_t> records;
  // Records overwritten because more were written than the ring holds.
  uint64_t dropped = 0;
};

// Parses a ring's bytes; DATA_LOSS when the header is not a ring's (magic,
// record size, capacity larger than the bytes).
Result<RingContents> ParseInstrumentRing(std::span<const uint8_t> bytes);

// Reads `buffer` (a ring on `device`) back and parses it. The device's work
// that writes it must be complete.
Result<RingContents> ReadInstrumentationRing(Device& device, const Ref<Buffer>& buffer);

}  // namespace kiln::hal
