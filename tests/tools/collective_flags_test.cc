// The collective flags of the tools (tools/common/collective_flags.h): the
// flags, an MPI launcher's environment, and the device a rank takes.
#include "tools/common/collective_flags.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "hal/builtin_drivers.h"

namespace kiln::tools {
namespace {

using Environment = std::map<std::string, std::string>;

EnvironmentLookup LookupIn(const Environment& environment) {
  return [environment](std::string_view name) -> std::optional<std::string> {
    auto it = environment.find(std::string(name));
    if (it == environment.end()) return std::nullopt;
    return it->second;
  };
}

Result<CollectiveSettings> Read(std::vector<std::string> arguments,
                                const Environment& environment = {}) {
  cxxopts::Options flags("test");
  AddCollectiveFlags(flags);
  std::vector<char*> argv;
  std::string program = "test";
  argv.push_back(program.data());
  for (std::string& argument : arguments) argv.push_back(argument.data());
  cxxopts::ParseResult result = flags.parse(static_cast<int>(argv.size()), argv.data());
  return ReadCollectiveFlags(result, LookupIn(environment));
}

TEST(CollectiveFlagsTest, NothingGivenIsAGroupOfOne) {
  auto settings = Read({});
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_EQ(settings->rank, 0);
  EXPECT_EQ(settings->world_size, 1);
  EXPECT_EQ(settings->local_rank, 0);
  EXPECT_TRUE(settings->rendezvous.empty());
  EXPECT_EQ(settings->source, "none");
}

TEST(CollectiveFlagsTest, FlagsGiveRankSizeAndRendezvous) {
  auto settings = Read({"--rank=2", "--world_size=3", "--rendezvous=tcp://localhost:29500",
                        "--rendezvous_timeout=1.5"});
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_EQ(settings->rank, 2);
  EXPECT_EQ(settings->world_size, 3);
  EXPECT_EQ(settings->local_rank, 2);
  EXPECT_EQ(settings->rendezvous, "tcp://localhost:29500");
  EXPECT_EQ(settings->timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(settings->source, "flags");
}

TEST(CollectiveFlagsTest, FlagsWinOverTheLauncher) {
  auto settings = Read({"--rank=0", "--world_size=1"},
                       {{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}});
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_EQ(settings->rank, 0);
  EXPECT_EQ(settings->world_size, 1);
}

TEST(CollectiveFlagsTest, BadFlagsNameTheFlag) {
  struct Case {
    std::vector<std::string> arguments;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--rank=1"}, "--rank, --world_size and --rendezvous go together"},
      {{"--rendezvous=/tmp/x"}, "--rank, --world_size and --rendezvous go together"},
      {{"--rank=2", "--world_size=2", "--rendezvous=/tmp/x"}, "--rank=2 is not in [0, 2)"},
      {{"--rank=-1", "--world_size=2", "--rendezvous=/tmp/x"}, "--rank=-1 is not in [0, 2)"},
      {{"--rank=0", "--world_size=0"}, "--world_size=0: must be between 1 and"},
      {{"--rank=0", "--world_size=2"}, "--world_size=2 needs --rendezvous"},
      {{"--rank=0", "--rank=0", "--world_size=1"}, "--rank given more than once"},
      {{"--rendezvous_timeout=0"}, "--rendezvous_timeout"},
  };
  for (const Case& c : cases) {
    auto settings = Read(c.arguments);
    ASSERT_FALSE(settings.ok()) << c.arguments[0];
    EXPECT_NE(settings.status().message().find(c.message), std::string::npos)
        << settings.status().ToString();
  }
}

TEST(CollectiveFlagsTest, OpenMpiEnvironmentNamesARendezvousAfterTheJob) {
  auto settings = Read({}, {{"OMPI_COMM_WORLD_RANK", "1"},
                            {"OMPI_COMM_WORLD_SIZE", "4"},
                            {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                            {"PMIX_NAMESPACE", "prterun-host-123@1"},
                            {"TMPDIR", "/scratch"}});
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_EQ(settings->rank, 1);
  EXPECT_EQ(settings->world_size, 4);
  EXPECT_EQ(settings->local_rank, 1);
  EXPECT_EQ(settings->rendezvous, "/scratch/kiln-rendezvous-prterun-host-123_1");
  EXPECT_EQ(settings->source, "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE");
}

TEST(CollectiveFlagsTest, PmiAndSlurmEnvironments) {
  auto pmi = Read({}, {{"PMI_RANK", "0"},
                       {"PMI_SIZE", "2"},
                       {"MPI_LOCALRANKID", "0"},
                       {"SLURM_JOB_ID", "77"},
                       {"SLURM_STEP_ID", "3"}});
  ASSERT_TRUE(pmi.ok()) << pmi.status().ToString();
  EXPECT_EQ(pmi->world_size, 2);
  EXPECT_EQ(pmi->rendezvous, "/tmp/kiln-rendezvous-slurm-77.3");
  auto slurm = Read({}, {{"SLURM_PROCID", "5"},
                         {"SLURM_NTASKS", "8"},
                         {"SLURM_LOCALID", "1"},
                         {"SLURM_JOB_ID", "9"}});
  ASSERT_TRUE(slurm.ok()) << slurm.status().ToString();
  EXPECT_EQ(slurm->rank, 5);
  EXPECT_EQ(slurm->local_rank, 1);
  EXPECT_EQ(slurm->rendezvous, "/tmp/kiln-rendezvous-slurm-9.0");
}

TEST(CollectiveFlagsTest, BadLauncherEnvironmentsNameTheVariable) {
  auto not_a_number = Read({}, {{"PMI_RANK", "one"}, {"PMI_SIZE", "2"}});
  ASSERT_FALSE(not_a_number.ok());
  EXPECT_NE(not_a_number.status().message().find("PMI_RANK='one' is not an integer"),
            std::string::npos)
      << not_a_number.status().ToString();
  auto out_of_range = Read({}, {{"PMI_RANK", "2"}, {"PMI_SIZE", "2"}});
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.status().message().find("PMI_RANK=2 is not in [0, 2)"), std::string::npos)
      << out_of_range.status().ToString();
  auto no_job = Read({}, {{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}});
  ASSERT_FALSE(no_job.ok());
  EXPECT_NE(no_job.status().message().find("no job id"), std::string::npos)
      << no_job.status().ToString();
  // A launcher of one process needs no job id.
  auto alone = Read({}, {{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "1"}});
  ASSERT_TRUE(alone.ok()) << alone.status().ToString();
  EXPECT_TRUE(alone->rendezvous.empty());
}

TEST(CollectiveFlagsTest, EachRankTakesTheDeviceOfItsLocalRank) {
  hal::DriverRegistry registry;
  ASSERT_TRUE(hal::RegisterBuiltinDrivers(registry).ok());
  CollectiveSettings settings;
  settings.rank = 3;
  settings.world_size = 4;
  settings.local_rank = 3;
  // The cpu driver has one device: every local rank takes it.
  auto uri = DeviceUriForRank(registry, "cpu", settings);
  ASSERT_TRUE(uri.ok()) << uri.status().ToString();
  EXPECT_EQ(*uri, "cpu://0");
  // An explicit device is taken as given, and a group of one keeps the flag.
  EXPECT_EQ(*DeviceUriForRank(registry, "cpu://0", settings), "cpu://0");
  settings.world_size = 1;
  EXPECT_EQ(*DeviceUriForRank(registry, "cpu", settings), "cpu");
  settings.world_size = 4;
  auto unknown = DeviceUriForRank(registry, "nope", settings);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("--device=nope"), std::string::npos);
}

TEST(CollectiveFlagsTest, AGroupOfOneOpensNoRendezvous) {
  CollectiveSettings settings;
  auto group = OpenCollectiveGroup(settings);
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  EXPECT_EQ(group->world_size, 1);
  EXPECT_EQ(group->rendezvous, nullptr);
}

}  // namespace
}  // namespace kiln::tools
