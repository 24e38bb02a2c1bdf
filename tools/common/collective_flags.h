// Collective flags: how a tool learns the collective group its process runs
// in (hal/channel.h), for programs that use channels (flow.channel.default):
//
//   kiln-run-module --rank=1 --world_size=2 --rendezvous=/tmp/run7 ...
//   kiln-run-module --rank=0 --world_size=4 --rendezvous=tcp://node0:29500 ...
//   mpirun -np 4 kiln-run-module --module=tp.kmod --device=cuda ...
//
// Either --rank and --world_size are given (with --rendezvous when the
// world is larger than one), or none of the three and the process reads an
// MPI launcher's environment: Open MPI's OMPI_COMM_WORLD_RANK/_SIZE,
// MPICH's and Intel MPI's PMI_RANK/PMI_SIZE, Slurm's SLURM_PROCID/
// SLURM_NTASKS (the first pair present wins). Under a launcher the
// rendezvous defaults to a directory named after the job (PMIx's
// PMIX_NAMESPACE, Open MPI's OMPI_MCA_ess_base_jobid, Slurm's
// SLURM_JOB_ID.SLURM_STEP_ID) under $TMPDIR (or /tmp): that works on one
// host; across hosts give --rendezvous=tcp://HOST:PORT. With neither flags
// nor a launcher, the process is a group of one, whose collectives copy.
//
// Each process takes the GPU of its local rank: when the group has more
// than one process and --device names a driver without an index
// (--device=cuda), the device becomes cuda://<local rank modulo the
// driver's device count>; --device=cuda://K is taken as given. The local
// rank is OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID or
// LOCAL_RANK, else the rank (one host).
#pragma once

#include <chrono>
#include <cstdint>
#include <cxxopts.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "hal/channel.h"
#include "hal/driver_registry.h"

namespace kiln::tools {

struct CollectiveSettings {
  int32_t rank = 0;
  int32_t world_size = 1;
  int32_t local_rank = 0;
  std::string rendezvous;  // Empty for a group of one.
  std::chrono::milliseconds timeout = hal::Rendezvous::kDefaultTimeout;
  // Where the settings came from, for messages: "flags", "OMPI_COMM_WORLD_*",
  // ... or "none".
  std::string source = "none";
};

// Reads an environment variable: nullopt when it is unset.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;
// The process's environment (getenv).
EnvironmentLookup ProcessEnvironment();

// Declares --rank, --world_size, --rendezvous and --rendezvous_timeout.
void AddCollectiveFlags(cxxopts::Options& flags);
// Reads the flags, or the launcher's environment from `environment` when no
// flag is given. Errors name the flag or the variable: a rank outside
// [0, world_size), a world size below 1, --rank without --world_size, a
// world larger than one without a rendezvous (flags) or a job id
// (environment), a value that is not an integer.
Result<CollectiveSettings> ReadCollectiveFlags(const cxxopts::ParseResult& result,
                                               const EnvironmentLookup& environment);

// The device URI a process of `settings` uses for --device=`uri` (see
// above); `registry` gives the driver's device count.
Result<std::string> DeviceUriForRank(const hal::DriverRegistry& registry, const std::string& uri,
                                     const CollectiveSettings& settings);

// Opens the rendezvous of `settings` (none for a group of one) and returns
// the group the hal module makes default channels from.
Result<hal::CollectiveGroup> OpenCollectiveGroup(const CollectiveSettings& settings);

}  // namespace kiln::tools
