#include "tools/common/collective_flags.h"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace kiln::tools {

namespace {

// A whole decimal int32 (no sign for counts, no trailing characters).
std::optional<int32_t> ParseInt32(std::string_view text) {
  int32_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

// The launcher's rank and size, read from the variables named.
Status CheckRankAndSize(int32_t rank, int32_t world_size, std::string_view rank_name,
                        std::string_view size_name) {
  if (world_size < 1) {
    return InvalidArgumentError(std::string(size_name) + "=" + std::to_string(world_size) +
                                ": the world size must be at least 1");
  }
  if (rank < 0 || rank >= world_size) {
    return InvalidArgumentError(std::string(rank_name) + "=" + std::to_string(rank) +
                                " is not in [0, " + std::to_string(world_size) + ") (" +
                                std::string(size_name) + "=" + std::to_string(world_size) + ")");
  }
  return OkStatus();
}

// The rank and size variables of the launchers, in the order they are tried.
struct LauncherVariables {
  const char* rank;
  const char* size;
};
constexpr LauncherVariables kLaunchers[] = {
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI_RANK", "PMI_SIZE"},
    {"SLURM_PROCID", "SLURM_NTASKS"},
};
constexpr const char* kLocalRankVariables[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                               "SLURM_LOCALID", "LOCAL_RANK"};

Result<int32_t> ReadVariable(const char* name, const std::string& value) {
  std::optional<int32_t> parsed = ParseInt32(value);
  if (!parsed) {
    return InvalidArgumentError(std::string("environment variable ") + name + "='" + value +
                                "' is not an integer");
  }
  return *parsed;
}

// A name for the launcher's job that all its processes see, or empty.
std::string JobId(const EnvironmentLookup& environment) {
  if (auto ns = environment("PMIX_NAMESPACE")) return *ns;
  if (auto job = environment("OMPI_MCA_ess_base_jobid")) return "ompi-" + *job;
  if (auto job = environment("SLURM_JOB_ID")) {
    return "slurm-" + *job + "." + environment("SLURM_STEP_ID").value_or("0");
  }
  return "";
}

// The job id as one path component.
std::string PathComponent(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '.';
    out += plain ? c : '_';
  }
  return out;
}

}  // namespace

EnvironmentLookup ProcessEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

void AddCollectiveFlags(cxxopts::Options& flags) {
  flags.add_options()  //
      ("rank",
       "this process's rank in the collective group, in [0, --world_size) (default: from an MPI "
       "launcher's environment, else 0)",
       cxxopts::value<int64_t>())  //
      ("world_size", "the number of processes in the collective group",
       cxxopts::value<int64_t>())  //
      ("rendezvous",
       "where the group's processes meet: a directory all of them reach (one run's own), or "
       "tcp://HOST:PORT (rank 0 listens on PORT); needed when --world_size > 1",
       cxxopts::value<std::string>())  //
      ("rendezvous_timeout", "seconds to wait for the other processes of the group (default 300)",
       cxxopts::value<double>());
}

Result<CollectiveSettings> ReadCollectiveFlags(const cxxopts::ParseResult& result,
                                               const EnvironmentLookup& environment) {
  for (const char* name : {"rank", "world_size", "rendezvous", "rendezvous_timeout"}) {
    if (result.count(name) > 1) {
      return InvalidArgumentError(std::string("--") + name + " given more than once");
    }
  }
  CollectiveSettings settings;
  if (result.count("rendezvous_timeout")) {
    const double seconds = result["rendezvous_timeout"].as<double>();
    if (!(seconds > 0) || seconds > 86400) {
      return InvalidArgumentError("--rendezvous_timeout=" + std::to_string(seconds) +
                                  ": must be more than 0 and at most 86400 seconds");
    }
    settings.timeout = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0 + 0.5));
  }
  const bool flagged =
      result.count("rank") || result.count("world_size") || result.count("rendezvous");
  if (flagged) {
    if (!result.count("rank") || !result.count("world_size")) {
      return InvalidArgumentError(
          "--rank, --world_size and --rendezvous go together: give --rank and --world_size "
          "(and --rendezvous when the world size is more than 1)");
    }
    const int64_t rank = result["rank"].as<int64_t>();
    const int64_t world_size = result["world_size"].as<int64_t>();
    if (world_size < 1 || world_size > INT32_MAX) {
      return InvalidArgumentError("--world_size=" + std::to_string(world_size) +
                                  ": must be between 1 and " + std::to_string(INT32_MAX));
    }
    if (rank < 0 || rank >= world_size) {
      return InvalidArgumentError("--rank=" + std::to_string(rank) + " is not in [0, " +
                                  std::to_string(world_size) +
                                  ") (--world_size=" + std::to_string(world_size) + ")");
    }
    settings.rank = static_cast<int32_t>(rank);
    settings.world_size = static_cast<int32_t>(world_size);
    if (result.count("rendezvous")) settings.rendezvous = result["rendezvous"].as<std::string>();
    if (settings.world_size > 1 && settings.rendezvous.empty()) {
      return InvalidArgumentError("--world_size=" + std::to_string(settings.world_size) +
                                  " needs --rendezvous=DIRECTORY or tcp://HOST:PORT");
    }
    settings.source = "flags";
  } else {
    for (const LauncherVariables& launcher : kLaunchers) {
      std::optional<std::string> rank_text = environment(launcher.rank);
      std::optional<std::string> size_text = environment(launcher.size);
      if (!rank_text || !size_text) continue;
      KILN_ASSIGN_OR_RETURN(settings.rank, ReadVariable(launcher.rank, *rank_text));
      KILN_ASSIGN_OR_RETURN(settings.world_size, ReadVariable(launcher.size, *size_text));
      KILN_RETURN_IF_ERROR(CheckRankAndSize(settings.rank, settings.world_size,
                                            std::string("environment variable ") + launcher.rank,
                                            std::string("environment variable ") + launcher.size));
      settings.source = std::string(launcher.rank) + "/" + launcher.size;
      if (settings.world_size > 1) {
        const std::string job = JobId(environment);
        if (job.empty()) {
          return InvalidArgumentError(
              "a launcher set " + settings.source +
              " but no job id (PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid or SLURM_JOB_ID) to "
              "name a rendezvous after: give --rank, --world_size and --rendezvous");
        }
        const std::string base = environment("TMPDIR").value_or("/tmp");
        settings.rendezvous =
            (base.empty() ? std::string("/tmp") : base) + "/kiln-rendezvous-" + PathComponent(job);
      }
      break;
    }
  }
  settings.local_rank = settings.rank;
  for (const char* name : kLocalRankVariables) {
    if (std::optional<std::string> text = environment(name)) {
      KILN_ASSIGN_OR_RETURN(int32_t local_rank, ReadVariable(name, *text));
      if (local_rank < 0) {
        return InvalidArgumentError(std::string("environment variable ") + name + "=" + *text +
                                    " is negative");
      }
      settings.local_rank = local_rank;
      break;
    }
  }
  return settings;
}

Result<std::string> DeviceUriForRank(const hal::DriverRegistry& registry, const std::string& uri,
                                     const CollectiveSettings& settings) {
  if (settings.world_size <= 1 || uri.find("://") != std::string::npos) return uri;
  auto driver = registry.CreateDriver(uri);
  if (!driver.ok()) return driver.status().WithContext("--device=" + uri);
  auto devices = (*driver)->ListDevices();
  if (!devices.ok()) return devices.status().WithContext("--device=" + uri);
  if (devices->empty()) {
    return UnavailableError("--device=" + uri + ": the driver has no devices");
  }
  const size_t index = static_cast<size_t>(settings.local_rank) % devices->size();
  return (*devices)[index].uri;
}

Result<hal::CollectiveGroup> OpenCollectiveGroup(const CollectiveSettings& settings) {
  hal::CollectiveGroup group;
  group.rank = settings.rank;
  group.world_size = settings.world_size;
  if (settings.world_size > 1) {
    auto rendezvous = hal::Rendezvous::Open(settings.rendezvous, settings.rank, settings.world_size,
                                            settings.timeout);
    if (!rendezvous.ok()) {
      return rendezvous.status().WithContext("rendezvous '" + settings.rendezvous + "' (rank " +
                                             std::to_string(settings.rank) + " of " +
                                             std::to_string(settings.world_size) + ")");
    }
    group.rendezvous = *std::move(rendezvous);
  }
  return group;
}

}  // namespace kiln::tools
