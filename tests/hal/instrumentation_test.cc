// Instrumentation rings on the host: the image a new ring starts with, the
// sizes a ring may have, and how the host parses what kernels wrote (the
// records kept oldest first across a wrap-around, the count of those
// overwritten, and the headers that are not a ring's). The kernels' side of
// the ABI is tested with the targets; the hal module's import that makes
// rings is tested in module/hal_module_test.cc.
#include "hal/instrumentation.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace kiln::hal {
namespace {

kiln_hal_instrument_ring_header_t HeaderOf(const std::vector<uint8_t>& bytes) {
  kiln_hal_instrument_ring_header_t header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  return header;
}

// A ring of `capacity` records after kernels claimed `next` of them: slot
// s holds the record claimed last at it (site id = its claim index).
std::vector<uint8_t> RingAfter(uint32_t capacity, uint32_t next) {
  std::vector<uint8_t> bytes =
      NewInstrumentRingImage(kInstrumentRingHeaderBytes + capacity * kInstrumentRecordBytes);
  for (uint32_t i = 0; i < next; ++i) {
    kiln_hal_instrument_record_t record{};
    record.site_id = i;
    record.workgroup_id[0] = i + 1;
    record.start = 1000 + i;
    record.end = 2000 + i;
    std::memcpy(bytes.data() + kInstrumentRingHeaderBytes + (i % capacity) * kInstrumentRecordBytes,
                &record, sizeof(record));
  }
  std::memcpy(bytes.data(), &next, sizeof(next));  // header.next is the first field.
  return bytes;
}

std::vector<uint32_t> SiteIds(const RingContents& contents) {
  std::vector<uint32_t> ids;
  for (const kiln_hal_instrument_record_t& record : contents.records) ids.push_back(record.site_id);
  return ids;
}

TEST(InstrumentationTest, NewRingImageHasTheHeaderAndZeroedRecords) {
  const std::vector<uint8_t> image = NewInstrumentRingImage(32 + 4 * 32);
  ASSERT_EQ(image.size(), 160u);
  const kiln_hal_instrument_ring_header_t header = HeaderOf(image);
  EXPECT_EQ(header.next, 0u);
  EXPECT_EQ(header.capacity, 4u);
  EXPECT_EQ(header.magic, KILN_HAL_INSTRUMENT_RING_MAGIC);
  EXPECT_EQ(header.record_size, 32u);
  for (uint32_t reserved : header.reserved) EXPECT_EQ(reserved, 0u);
  // The magic reads "KINS" in memory (little-endian), as a dump shows it.
  EXPECT_EQ(std::memcmp(image.data() + 8, "KINS", 4), 0);
  for (size_t i = 32; i < image.size(); ++i) ASSERT_EQ(image[i], 0) << "byte " << i;
}

TEST(InstrumentationTest, RingSizes) {
  EXPECT_TRUE(CheckInstrumentRingSize(64).ok());
  EXPECT_TRUE(CheckInstrumentRingSize(1 << 20).ok());
  for (uint64_t bad : {0ull, 32ull, 48ull, 65ull, 100ull, (1ull << 20) + 16}) {
    Status status = CheckInstrumentRingSize(bad);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find(std::to_string(bad) + " bytes"), std::string::npos)
        << status.message();
  }
}

TEST(InstrumentationTest, ParsesAnEmptyRing) {
  auto contents = ParseInstrumentRing(NewInstrumentRingImage(128));
  ASSERT_TRUE(contents.ok()) << contents.status().ToString();
  EXPECT_EQ(contents->header.capacity, 3u);
  EXPECT_TRUE(contents->records.empty());
  EXPECT_EQ(contents->dropped, 0u);
}

TEST(InstrumentationTest, ParsesAPartlyFilledRingInClaimOrder) {
  auto contents = ParseInstrumentRing(RingAfter(/*capacity=*/4, /*next=*/3));
  ASSERT_TRUE(contents.ok()) << contents.status().ToString();
  EXPECT_EQ(SiteIds(*contents), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(contents->dropped, 0u);
  const kiln_hal_instrument_record_t& last = contents->records.back();
  EXPECT_EQ(last.workgroup_id[0], 3u);
  EXPECT_EQ(last.start, 1002u);
  EXPECT_EQ(last.end, 2002u);
}

TEST(InstrumentationTest, AFullRingDropsNothing) {
  auto contents = ParseInstrumentRing(RingAfter(/*capacity=*/4, /*next=*/4));
  ASSERT_TRUE(contents.ok()) << contents.status().ToString();
  EXPECT_EQ(SiteIds(*contents), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(contents->dropped, 0u);
}

// After a wrap-around the ring keeps the last `capacity` records, the oldest
// at next % capacity, and counts the ones overwritten.
TEST(InstrumentationTest, AWrappedRingKeepsTheLastRecordsOldestFirst) {
  auto contents = ParseInstrumentRing(RingAfter(/*capacity=*/4, /*next=*/10));
  ASSERT_TRUE(contents.ok()) << contents.status().ToString();
  EXPECT_EQ(SiteIds(*contents), (std::vector<uint32_t>{6, 7, 8, 9}));
  EXPECT_EQ(contents->dropped, 6u);
  EXPECT_EQ(contents->header.next, 10u);
}

TEST(InstrumentationTest, RejectsWhatIsNotARing) {
  std::vector<uint8_t> bytes = NewInstrumentRingImage(128);
  bytes[8] ^= 0xFF;  // The magic.
  auto contents = ParseInstrumentRing(bytes);
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(contents.status().message().find("not an instrumentation ring"), std::string::npos);

  bytes = NewInstrumentRingImage(128);
  bytes[12] = 16;  // The record size.
  EXPECT_EQ(ParseInstrumentRing(bytes).status().code(), StatusCode::kDataLoss);

  // A header whose capacity the bytes cannot hold (a ring read back short).
  bytes = NewInstrumentRingImage(128);
  bytes.resize(96);
  contents = ParseInstrumentRing(bytes);
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(contents.status().message().find("holds 3 records, but its 96 bytes hold 2"),
            std::string::npos)
      << contents.status().message();

  bytes.resize(16);
  EXPECT_EQ(ParseInstrumentRing(bytes).status().code(), StatusCode::kDataLoss);
}

TEST(InstrumentationTest, RingsRegisteredAreListedInOrder) {
  auto rings = MakeRef<InstrumentationRings>();
  EXPECT_TRUE(rings->rings().empty());
  rings->Register({nullptr, nullptr, 64});
  rings->Register({nullptr, nullptr, 128});
  const std::vector<InstrumentationRing> listed = rings->rings();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].byte_length, 64u);
  EXPECT_EQ(listed[1].byte_length, 128u);
}

}  // namespace
}  // namespace kiln::hal
