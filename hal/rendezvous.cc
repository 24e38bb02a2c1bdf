#include "hal/rendezvous.h"

#include "hal/utils/file_rendezvous.h"
#include "hal/utils/tcp_rendezvous.h"

namespace kiln::hal {

Result<Ref<Rendezvous>> Rendezvous::Open(std::string_view spec, int32_t rank, int32_t world_size,
                                         std::chrono::milliseconds timeout) {
  auto error = [&](const std::string& why) {
    return InvalidArgumentError("rendezvous '" + std::string(spec) + "': " + why);
  };
  if (spec.empty()) {
    return InvalidArgumentError(
        "rendezvous '': empty spec (expected a directory or tcp://HOST:PORT)");
  }
  if (world_size < 1) return error("world size " + std::to_string(world_size) + " (must be >= 1)");
  if (rank < 0 || rank >= world_size) {
    return error("rank " + std::to_string(rank) + " is not in [0, " + std::to_string(world_size) +
                 ")");
  }
  if (timeout <= std::chrono::milliseconds::zero()) {
    return error("timeout " + std::to_string(timeout.count()) + " ms (must be > 0)");
  }
  if (utils::IsTcpRendezvousSpec(spec)) {
    KILN_ASSIGN_OR_RETURN(Ref<utils::TcpRendezvous> tcp,
                          utils::TcpRendezvous::Open(spec, rank, world_size, timeout));
    return Ref<Rendezvous>(std::move(tcp));
  }
  KILN_ASSIGN_OR_RETURN(Ref<utils::FileRendezvous> file,
                        utils::FileRendezvous::Open(spec, rank, world_size, timeout));
  return Ref<Rendezvous>(std::move(file));
}

Result<std::vector<std::vector<uint8_t>>> Rendezvous::AllGather(std::string_view key,
                                                                std::span<const uint8_t> value) {
  const std::string prefix = std::string(key) + "/";
  KILN_RETURN_IF_ERROR(Set(prefix + std::to_string(rank_), value));
  std::vector<std::vector<uint8_t>> values(static_cast<size_t>(world_size_));
  values[static_cast<size_t>(rank_)].assign(value.begin(), value.end());
  for (int32_t r = 0; r < world_size_; ++r) {
    if (r == rank_) continue;
    Result<std::vector<uint8_t>> got = Get(prefix + std::to_string(r));
    if (!got.ok()) {
      return got.status().WithContext("AllGather '" + std::string(key) + "': rank " +
                                      std::to_string(r) + " has not given its value");
    }
    values[static_cast<size_t>(r)] = std::move(got).value();
  }
  return values;
}

Result<std::vector<uint8_t>> Rendezvous::Broadcast(std::string_view key, int32_t root,
                                                   std::span<const uint8_t> value) {
  if (root < 0 || root >= world_size_) {
    return InvalidArgumentError("Broadcast '" + std::string(key) + "': root " +
                                std::to_string(root) + " is not in [0, " +
                                std::to_string(world_size_) + ")");
  }
  if (root == rank_) {
    KILN_RETURN_IF_ERROR(Set(key, value));
    return std::vector<uint8_t>(value.begin(), value.end());
  }
  Result<std::vector<uint8_t>> got = Get(key);
  if (!got.ok()) {
    return got.status().WithContext("Broadcast '" + std::string(key) + "' from rank " +
                                    std::to_string(root));
  }
  return got;
}

std::string Rendezvous::NextChannelName(std::string_view group) {
  std::lock_guard<std::mutex> lock(channel_names_mutex_);
  auto it = channel_counts_.find(group);
  if (it == channel_counts_.end()) it = channel_counts_.emplace(std::string(group), 0).first;
  const uint32_t made = it->second++;
  return made == 0 ? std::string(group) : std::string(group) + "#" + std::to_string(made);
}

}  // namespace kiln::hal
