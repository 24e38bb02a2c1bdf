// The rendezvous (hal/rendezvous.h): its directory and tcp:// stores across
// forked processes, AllGather and Broadcast, timeouts that name the ranks
// missing, malformed specs, a directory left by an earlier (crashed) run,
// and groups of one.
#include "hal/rendezvous.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "tests/hal/multiprocess.h"

namespace kiln::hal {
namespace {

using namespace std::chrono_literals;
using testing::FreePort;
using testing::RunRanks;
using testing::ScratchDirectory;

std::vector<uint8_t> Bytes(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}
std::string Text(const std::vector<uint8_t>& bytes) {
  return std::string(bytes.begin(), bytes.end());
}

void ExpectError(const Status& status, StatusCode code, const std::string& fragment) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_NE(status.message().find(fragment), std::string::npos)
      << "'" << fragment << "' not in: " << status.message();
}

enum class Store { kDirectory, kTcp };
void PrintTo(Store store, std::ostream* os) {
  *os << (store == Store::kDirectory ? "directory" : "tcp");
}

class RendezvousTest : public ::testing::TestWithParam<Store> {
 protected:
  // A spec of the store under test that no other test uses.
  std::string FreshSpec() {
    if (GetParam() == Store::kDirectory) return scratch_.Sub("rv" + std::to_string(next_++));
    return "tcp://127.0.0.1:" + std::to_string(FreePort());
  }

  ScratchDirectory scratch_;
  int next_ = 0;
};

// The body every rank of a group runs: Set/Get, AllGather, Broadcast, a
// second Set of a key, and a finish that keeps rank 0 (whose Rendezvous
// holds the keys) alive until the others are done reading.
std::string ExerciseGroup(const std::string& spec, int rank, int count) {
  CHILD_ASSIGN(rendezvous, Rendezvous::Open(spec, rank, count, 10s));
  CHILD_CHECK(rendezvous->rank() == rank && rendezvous->world_size() == count,
              "rank or world size not kept");
  const std::string mine = "value of rank " + std::to_string(rank) + std::string(rank * 100, 'x');
  CHILD_OK(rendezvous->Set("plain/" + std::to_string(rank), Bytes(mine)));
  for (int r = 0; r < count; ++r) {
    CHILD_ASSIGN(value, rendezvous->Get("plain/" + std::to_string(r)));
    CHILD_CHECK(Text(value) == "value of rank " + std::to_string(r) + std::string(r * 100, 'x'),
                "Get plain/" + std::to_string(r) + " read '" + Text(value) + "'");
  }
  CHILD_ASSIGN(all, rendezvous->AllGather("gather", Bytes("g" + std::to_string(rank * 7))));
  CHILD_CHECK(static_cast<int>(all.size()) == count, "AllGather size");
  for (int r = 0; r < count; ++r) {
    CHILD_CHECK(Text(all[r]) == "g" + std::to_string(r * 7),
                "AllGather value " + std::to_string(r) + " is '" + Text(all[r]) + "'");
  }
  const int root = count - 1;
  CHILD_ASSIGN(broadcast,
               rendezvous->Broadcast("bcast", root, Bytes(rank == root ? "from root" : "ignored")));
  CHILD_CHECK(Text(broadcast) == "from root", "Broadcast gave '" + Text(broadcast) + "'");
  // Binary values survive (zeros, high bytes).
  if (rank == 0) {
    CHILD_OK(rendezvous->Set("binary", std::vector<uint8_t>{0, 255, 0, 1}));
  }
  CHILD_ASSIGN(binary, rendezvous->Get("binary"));
  CHILD_CHECK((binary == std::vector<uint8_t>{0, 255, 0, 1}), "binary value changed");
  Status again = rendezvous->Set("plain/" + std::to_string(rank), Bytes("again"));
  CHILD_CHECK(again.code() == StatusCode::kAlreadyExists, "second Set: " + again.ToString());
  // Rank 0 waits until every other rank has read all it needs.
  if (rank != 0) {
    CHILD_OK(rendezvous->Set("finished/" + std::to_string(rank), Bytes("1")));
  } else {
    for (int r = 1; r < count; ++r) {
      CHILD_ASSIGN(finished, rendezvous->Get("finished/" + std::to_string(r)));
    }
  }
  return "";
}

TEST_P(RendezvousTest, TwoProcesses) {
  const std::string spec = FreshSpec();
  KILN_EXPECT_RANKS_OK(RunRanks(2, [&](int rank) { return ExerciseGroup(spec, rank, 2); }));
}

TEST_P(RendezvousTest, ThreeProcesses) {
  const std::string spec = FreshSpec();
  KILN_EXPECT_RANKS_OK(RunRanks(3, [&](int rank) { return ExerciseGroup(spec, rank, 3); }));
}

TEST_P(RendezvousTest, RankZeroStartingLast) {
  const std::string spec = FreshSpec();
  KILN_EXPECT_RANKS_OK(RunRanks(3, [&](int rank) {
    if (rank == 0) std::this_thread::sleep_for(300ms);
    return ExerciseGroup(spec, rank, 3);
  }));
}

// A Get waiting on a key that another rank sets later returns as soon as
// it is set, not when its timeout passes, even when nothing else happens
// meanwhile (rank 0 sets nothing: its own Sets would wake a tcp server; rank
// 2 sets the key and then keeps quiet). Rank 2 joins last, so on the tcp
// server the connection of rank 1 waits ahead of the one that sets it.
TEST_P(RendezvousTest, GetReturnsWhenTheKeyIsSet) {
  const std::string spec = FreshSpec();
  KILN_EXPECT_RANKS_OK(RunRanks(3, [&](int rank) -> std::string {
    if (rank == 2) std::this_thread::sleep_for(300ms);
    CHILD_ASSIGN(rendezvous, Rendezvous::Open(spec, rank, 3, 20s));
    if (rank == 2) {
      std::this_thread::sleep_for(200ms);
      CHILD_OK(rendezvous->Set("late", Bytes("here")));
      std::this_thread::sleep_for(2500ms);
    } else if (rank == 1) {
      const auto start = std::chrono::steady_clock::now();
      CHILD_ASSIGN(late, rendezvous->Get("late"));
      const auto waited = std::chrono::steady_clock::now() - start;
      CHILD_CHECK(Text(late) == "here", "read '" + Text(late) + "'");
      CHILD_CHECK(waited < 2s, "waited " + std::to_string(waited.count() / 1000000) + " ms");
    }
    if (rank != 0) {
      CHILD_OK(rendezvous->Set("finished/" + std::to_string(rank), Bytes("1")));
    } else {
      for (int r = 1; r < 3; ++r) {
        CHILD_ASSIGN(finished, rendezvous->Get("finished/" + std::to_string(r)));
      }
    }
    return "";
  }));
}

// Ranks 0 and 1 of 3 meet; rank 2 never comes. Both time out naming it.
TEST_P(RendezvousTest, MissingRankTimesOutNamingIt) {
  const std::string spec = FreshSpec();
  std::vector<testing::ChildOutcome> outcomes = RunRanks(2, [&](int rank) -> std::string {
    CHILD_ASSIGN(rendezvous, Rendezvous::Open(spec, rank, 3, 700ms));
    const auto start = std::chrono::steady_clock::now();
    Result<std::vector<std::vector<uint8_t>>> all = rendezvous->AllGather("meet", Bytes("x"));
    const auto waited = std::chrono::steady_clock::now() - start;
    CHILD_CHECK(!all.ok(), "AllGather succeeded without rank 2");
    const Status& status = all.status();
    CHILD_CHECK(status.code() == StatusCode::kDeadlineExceeded, status.ToString());
    for (const std::string& fragment : {std::string("ranks not arrived: 2"), std::string("meet/2"),
                                        spec, std::string("rank 2 has not given its value")}) {
      CHILD_CHECK(status.message().find(fragment) != std::string::npos,
                  "'" + fragment + "' not in " + status.ToString());
    }
    CHILD_CHECK(waited >= 600ms && waited < 5s,
                "waited " + std::to_string(waited.count() / 1000000) + " ms");
    // Rank 0 outlives rank 1's last Get.
    if (rank == 1) {
      CHILD_OK(rendezvous->Set("done", Bytes("1")));
    } else {
      CHILD_ASSIGN(done, rendezvous->Get("done"));
    }
    return "";
  });
  KILN_EXPECT_RANKS_OK(outcomes);
}

TEST_P(RendezvousTest, RankZeroAloneNamesTheOthers) {
  Result<Ref<Rendezvous>> rendezvous = Rendezvous::Open(FreshSpec(), 0, 3, 200ms);
  ASSERT_TRUE(rendezvous.ok()) << rendezvous.status().ToString();
  Result<std::vector<uint8_t>> value = (*rendezvous)->Get("nobody/sets/this");
  ASSERT_FALSE(value.ok());
  ExpectError(value.status(), StatusCode::kDeadlineExceeded, "ranks not arrived: 1, 2");
  ExpectError(value.status(), StatusCode::kDeadlineExceeded, "'nobody/sets/this'");
  ExpectError(value.status(), StatusCode::kDeadlineExceeded, "200 ms");
}

TEST_P(RendezvousTest, WithoutRankZeroTimesOut) {
  const std::string spec = FreshSpec();
  const auto start = std::chrono::steady_clock::now();
  Result<Ref<Rendezvous>> rendezvous = Rendezvous::Open(spec, 1, 2, 300ms);
  Status status;
  if (rendezvous.ok()) {
    // The directory store registers at once and waits in Get.
    status = (*rendezvous)->Get("key").status();
  } else {
    status = rendezvous.status();  // TCP waits to reach rank 0 in Open.
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  ExpectError(status, StatusCode::kDeadlineExceeded, "ranks not arrived: 0");
  ExpectError(status, StatusCode::kDeadlineExceeded, spec);
}

// Two ranks of one group in one process (rank 0 serves or admits on its own
// thread): a second Set of a key is refused wherever it comes from.
TEST_P(RendezvousTest, KeysHaveOneWriter) {
  const std::string spec = FreshSpec();
  Result<Ref<Rendezvous>> zero = Rendezvous::Open(spec, 0, 2, 5s);
  ASSERT_TRUE(zero.ok()) << zero.status().ToString();
  Result<Ref<Rendezvous>> one = Rendezvous::Open(spec, 1, 2, 5s);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_TRUE((*one)->Set("k", Bytes("first")).ok());
  ExpectError((*zero)->Set("k", Bytes("second")), StatusCode::kAlreadyExists, "'k'");
  ExpectError((*one)->Set("k", Bytes("third")), StatusCode::kAlreadyExists, "was set already");
  Result<std::vector<uint8_t>> value = (*zero)->Get("k");
  ASSERT_TRUE(value.ok()) << value.status().ToString();
  EXPECT_EQ(Text(*value), "first");
}

TEST_P(RendezvousTest, GroupOfOne) {
  Result<Ref<Rendezvous>> rendezvous = Rendezvous::Open(FreshSpec(), 0, 1, 200ms);
  ASSERT_TRUE(rendezvous.ok()) << rendezvous.status().ToString();
  Rendezvous& r = **rendezvous;
  ASSERT_TRUE(r.Set("a", Bytes("alpha")).ok());
  Result<std::vector<uint8_t>> a = r.Get("a");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(Text(*a), "alpha");
  Result<std::vector<std::vector<uint8_t>>> all = r.AllGather("g", Bytes("mine"));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(Text((*all)[0]), "mine");
  Result<std::vector<uint8_t>> b = r.Broadcast("b", 0, Bytes("root"));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(Text(*b), "root");
  ExpectError(r.Broadcast("c", 1, Bytes("x")).status(), StatusCode::kInvalidArgument,
              "root 1 is not in [0, 1)");
  ExpectError(r.Get("missing").status(), StatusCode::kDeadlineExceeded, "every rank has arrived");
}

INSTANTIATE_TEST_SUITE_P(Stores, RendezvousTest, ::testing::Values(Store::kDirectory, Store::kTcp),
                         [](const ::testing::TestParamInfo<Store>& info) {
                           return info.param == Store::kDirectory ? "Directory" : "Tcp";
                         });

TEST(RendezvousSpecTest, MalformedSpecsAreInvalidArguments) {
  for (const std::string& spec :
       {std::string("tcp://localhost"), std::string("tcp://localhost:"),
        std::string("tcp://localhost:0"), std::string("tcp://localhost:65536"),
        std::string("tcp://localhost:99999999999"), std::string("tcp://localhost:http"),
        std::string("tcp://:1234"), std::string("tcp://::1:1234"), std::string("tcp://[::1]"),
        std::string("tcp://[::1:1234"), std::string("tcp://no-such-host.invalid:1234")}) {
    Result<Ref<Rendezvous>> rendezvous = Rendezvous::Open(spec, 1, 2, 200ms);
    ASSERT_FALSE(rendezvous.ok()) << spec;
    ExpectError(rendezvous.status(), StatusCode::kInvalidArgument, "'" + spec + "'");
  }
  ExpectError(Rendezvous::Open("", 0, 1).status(), StatusCode::kInvalidArgument, "empty spec");
  ExpectError(Rendezvous::Open("tcp://no-such-host.invalid:1234", 0, 2).status(),
              StatusCode::kInvalidArgument, "cannot resolve host 'no-such-host.invalid'");
}

TEST(RendezvousSpecTest, RanksAndSizesAreChecked) {
  ScratchDirectory scratch;
  ExpectError(Rendezvous::Open(scratch.path(), 2, 2).status(), StatusCode::kInvalidArgument,
              "rank 2 is not in [0, 2)");
  ExpectError(Rendezvous::Open(scratch.path(), -1, 2).status(), StatusCode::kInvalidArgument,
              "rank -1");
  ExpectError(Rendezvous::Open(scratch.path(), 0, 0).status(), StatusCode::kInvalidArgument,
              "world size 0");
  ExpectError(Rendezvous::Open(scratch.path(), 0, 1, 0ms).status(), StatusCode::kInvalidArgument,
              "timeout 0 ms");
}

TEST(RendezvousSpecTest, DirectoryThatIsAFile) {
  ScratchDirectory scratch;
  const std::string file = scratch.Sub("file");
  FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  ExpectError(Rendezvous::Open(file, 0, 1).status(), StatusCode::kInvalidArgument,
              "is not a directory");
}

TEST(RendezvousTcpTest, PortInUseNamesTheSpec) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof(address);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string spec = "tcp://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  Result<Ref<Rendezvous>> rendezvous = Rendezvous::Open(spec, 0, 2, 200ms);
  close(fd);
  ASSERT_FALSE(rendezvous.ok());
  ExpectError(rendezvous.status(), StatusCode::kUnavailable, "'" + spec + "'");
  ExpectError(rendezvous.status(), StatusCode::kUnavailable, "cannot serve on port");
}

TEST(RendezvousTcpTest, WorldSizeMismatchIsRefused) {
  const std::string spec = "tcp://127.0.0.1:" + std::to_string(FreePort());
  Result<Ref<Rendezvous>> zero = Rendezvous::Open(spec, 0, 2, 2s);
  ASSERT_TRUE(zero.ok()) << zero.status().ToString();
  Result<Ref<Rendezvous>> one = Rendezvous::Open(spec, 1, 3, 2s);
  ASSERT_FALSE(one.ok());
  ExpectError(one.status(), StatusCode::kInvalidArgument,
              "rank 1 was given world size 3 but rank 0 was given 2");
}

TEST(RendezvousTcpTest, Ipv6Literal) {
  const int probe = socket(AF_INET6, SOCK_STREAM, 0);
  sockaddr_in6 loopback = {};
  loopback.sin6_family = AF_INET6;
  loopback.sin6_addr = in6addr_loopback;
  const bool has_ipv6 =
      probe >= 0 && bind(probe, reinterpret_cast<sockaddr*>(&loopback), sizeof(loopback)) == 0;
  if (probe >= 0) close(probe);
  if (!has_ipv6) GTEST_SKIP() << "no IPv6 loopback on this machine";
  const std::string spec = "tcp://[::1]:" + std::to_string(FreePort());
  KILN_EXPECT_RANKS_OK(RunRanks(2, [&](int rank) { return ExerciseGroup(spec, rank, 2); }));
}

// A run whose processes died without cleaning up leaves its session, its
// welcome files and its keys. The next run, whose rank 1 starts before its
// rank 0, must read only its own keys; its rank 0 then leaves the
// directory as it found it.
TEST(RendezvousDirectoryTest, EarlierRunIsNotMistakenForThisOne) {
  ScratchDirectory scratch;
  const std::string spec = scratch.Sub("shared");
  // Run 1: both ranks meet, set "x", then "crash" (they exit without
  // destroying their Rendezvous objects).
  KILN_EXPECT_RANKS_OK(RunRanks(2, [&](int rank) -> std::string {
    CHILD_ASSIGN(rendezvous, Rendezvous::Open(spec, rank, 2, 5s));
    if (rank == 0) CHILD_OK(rendezvous->Set("x", Bytes("old")));
    CHILD_ASSIGN(x, rendezvous->Get("x"));
    CHILD_CHECK(Text(x) == "old", "run 1 read '" + Text(x) + "'");
    CHILD_OK(rendezvous->Set("seen/" + std::to_string(rank), Bytes("1")));
    CHILD_ASSIGN(seen, rendezvous->Get("seen/" + std::to_string(1 - rank)));
    _exit(0);  // As if killed: no destructor cleans up.
    return "";
  }));
  size_t leftovers = 0;
  for (const auto& entry : std::filesystem::directory_iterator(spec)) {
    (void)entry;
    ++leftovers;
  }
  ASSERT_GT(leftovers, 0u) << "run 1 was meant to leave its files behind";

  // Run 2: rank 1 asks for "x" before rank 0 exists.
  KILN_EXPECT_RANKS_OK(RunRanks(2, [&](int rank) -> std::string {
    if (rank == 0) std::this_thread::sleep_for(400ms);
    CHILD_ASSIGN(rendezvous, Rendezvous::Open(spec, rank, 2, 5s));
    if (rank == 0) CHILD_OK(rendezvous->Set("x", Bytes("new")));
    CHILD_ASSIGN(x, rendezvous->Get("x"));
    CHILD_CHECK(Text(x) == "new", "run 2 read '" + Text(x) + "'");
    if (rank == 1) {
      CHILD_OK(rendezvous->Set("finished", Bytes("1")));
    } else {
      CHILD_ASSIGN(finished, rendezvous->Get("finished"));
    }
    return "";
  }));
  // Rank 0 created the directory in run 1, not in run 2: it stays, empty.
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(spec)) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_TRUE(names.empty()) << "left behind: " << ::testing::PrintToString(names);
}

TEST(RendezvousDirectoryTest, RankZeroRemovesWhatItCreated) {
  ScratchDirectory scratch;
  const std::string spec = scratch.Sub("made/by/rank0");
  {
    Result<Ref<Rendezvous>> rendezvous = Rendezvous::Open(spec, 0, 1);
    ASSERT_TRUE(rendezvous.ok()) << rendezvous.status().ToString();
    ASSERT_TRUE((*rendezvous)->Set("key/with/slashes and spaces", Bytes("v")).ok());
    Result<std::vector<uint8_t>> value = (*rendezvous)->Get("key/with/slashes and spaces");
    ASSERT_TRUE(value.ok()) << value.status().ToString();
    EXPECT_EQ(Text(*value), "v");
    EXPECT_TRUE(std::filesystem::is_directory(spec));
  }
  EXPECT_FALSE(std::filesystem::exists(spec));
}

}  // namespace
}  // namespace kiln::hal
