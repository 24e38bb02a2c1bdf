#include "tests/tools/test_instruments.h"

#include <cstddef>
#include <cstring>
#include <iterator>

#include "hal/instrumentation.h"

namespace kiln::testing {
namespace {

kiln_hal_instrument_record_t Record(uint32_t site, uint32_t x, uint32_t y, uint32_t z,
                                    uint64_t start, uint64_t end) {
  kiln_hal_instrument_record_t record{};
  record.site_id = site;
  record.workgroup_id[0] = x;
  record.workgroup_id[1] = y;
  record.workgroup_id[2] = z;
  record.start = start;
  record.end = end;
  return record;
}

// Writes `record` into slot `slot` of a ring image.
void Put(std::vector<uint8_t>& ring, uint32_t slot, const kiln_hal_instrument_record_t& record) {
  std::memcpy(ring.data() + hal::kInstrumentRingHeaderBytes + slot * hal::kInstrumentRecordBytes,
              &record, sizeof(record));
}

// Sets the header's `next` counter, as the kernels would have advanced it.
void SetNext(std::vector<uint8_t>& ring, uint32_t next) {
  std::memcpy(ring.data() + offsetof(kiln_hal_instrument_ring_header_t, next), &next, sizeof(next));
}

}  // namespace

tools::InstrumentFileContents BuildTestInstrumentFile() {
  tools::InstrumentFileContents contents;
  contents.tool = "kiln-run-module";
  contents.driver = "cpu";
  contents.device = "cpu://0";
  contents.clock = "ns";
  contents.sites = {
      {0, "prog", "ex0", "mul", "main", "prog.mlir:5:3"},
      {1, "prog", "ex1", "add", "main", "prog.mlir:9:3"},
      {2, "prog", "ex0", "mul", "loop", "prog.mlir:14:5"},
  };

  // Records in the order workgroups claimed their slots (workgroups of one
  // dispatch interleave with no order among them).
  std::vector<uint8_t> ring0 = hal::NewInstrumentRingImage(32 + 16 * 32);
  const kiln_hal_instrument_record_t records0[] = {
      Record(0, 1, 0, 0, 1500, 2500),   Record(0, 0, 0, 0, 1000, 3000),
      Record(1, 0, 0, 0, 5000, 5500),   Record(1, 0, 2, 0, 5100, 5800),
      Record(1, 0, 1, 0, 5000, 5600),   Record(0, 0, 0, 0, 10000, 14000),
      Record(0, 1, 0, 0, 10000, 11000),
  };
  for (uint32_t i = 0; i < std::size(records0); ++i) Put(ring0, i, records0[i]);
  SetNext(ring0, std::size(records0));

  // Five records claimed in a ring of two: records 3 and 4 survive, in
  // slots 3 % 2 = 1 and 4 % 2 = 0; the slots of 0..2 were overwritten.
  std::vector<uint8_t> ring1 = hal::NewInstrumentRingImage(32 + 2 * 32);
  Put(ring1, 1, Record(2, 2, 0, 0, 20000, 20300));
  Put(ring1, 0, Record(2, 0, 0, 0, 21000, 21100));
  SetNext(ring1, 5);

  contents.rings = {{"cpu://0", std::move(ring0)}, {"cpu://0", std::move(ring1)}};
  return contents;
}

}  // namespace kiln::testing
