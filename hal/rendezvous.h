// Rendezvous: how the processes of one collective group find each other.
//
// A group is `world_size` processes, each knowing its own `rank` in
// [0, world_size) and one rendezvous spec that all of them were given:
//
//   - a filesystem path: a directory every participant can reach (created
//     if missing; a shared filesystem works across hosts). Each key is a
//     file written atomically (write, then rename) and read by polling.
//     The directory belongs to one run: what a rendezvous writes there it
//     removes when rank 0's Rendezvous is destroyed, and a run finds no
//     keys of an earlier one (each key carries rank 0's session nonce,
//     which the other ranks learn first, in answer to a nonce of their own:
//     utils/file_rendezvous.h has the protocol).
//   - "tcp://HOST:PORT": rank 0 serves the keys on PORT (every interface),
//     the other ranks connect to HOST:PORT, retrying until the timeout. This
//     is what works across hosts without a shared filesystem
//     (utils/tcp_rendezvous.h has the protocol).
//
// The rendezvous is a small blocking key-value store. Drivers use it once,
// when a channel is created (channel.h): NCCL's unique id travels from
// rank 0 to the others; the CPU channel's ranks publish the addresses they
// listen on. Values are small (bytes to kilobytes).
//
// Errors: a Get that waits past the timeout is DEADLINE_EXCEEDED naming the
// key, the spec and the ranks that have not arrived; a malformed spec, an
// unreachable host or a port in use is an error naming the spec.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/ref.h"
#include "base/result.h"

namespace kiln::hal {

class Rendezvous : public RefObject {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout{std::chrono::minutes(5)};

  // Opens the rendezvous `spec` as participant `rank` of `world_size`.
  // Returns once this participant is registered (rank 0: serving); it does
  // not wait for the others (Get does), except that a tcp:// rank > 0
  // registers by reaching rank 0 (until the timeout).
  // INVALID_ARGUMENT for an empty or malformed spec, an unresolvable host,
  // a rank outside [0, world_size), world_size < 1 or a timeout <= 0.
  static Result<Ref<Rendezvous>> Open(std::string_view spec, int32_t rank, int32_t world_size,
                                      std::chrono::milliseconds timeout = kDefaultTimeout);

  int32_t rank() const { return rank_; }
  int32_t world_size() const { return world_size_; }
  const std::string& spec() const { return spec_; }

  // Sets `key` (setting a key twice is an error: each key has one writer).
  virtual Status Set(std::string_view key, std::span<const uint8_t> value) = 0;
  // The value of `key`, waiting until some participant sets it.
  virtual Result<std::vector<uint8_t>> Get(std::string_view key) = 0;

  // Every participant calls it with its own value under the same `key`; each
  // gets all values in rank order (keys "<key>/<rank>").
  Result<std::vector<std::vector<uint8_t>>> AllGather(std::string_view key,
                                                      std::span<const uint8_t> value);
  // `root` passes its value, the others anything; each gets root's value.
  Result<std::vector<uint8_t>> Broadcast(std::string_view key, int32_t root,
                                         std::span<const uint8_t> value);

  // The name under which this process's next channel of `group` meets the
  // others: `group` the first time, then "group#1", "group#2", ... A
  // channel's rendezvous keys start with its name, and each key has one
  // writer, so two channels of one group (two contexts of one program in
  // each process) need distinct names; every process makes its channels of
  // a group in the same order, so the k-th one has the same name
  // everywhere. Thread-safe.
  std::string NextChannelName(std::string_view group);

 protected:
  Rendezvous(std::string spec, int32_t rank, int32_t world_size, std::chrono::milliseconds timeout)
      : spec_(std::move(spec)), rank_(rank), world_size_(world_size), timeout_(timeout) {}
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  std::string spec_;
  int32_t rank_;
  int32_t world_size_;
  std::chrono::milliseconds timeout_;
  std::mutex channel_names_mutex_;
  // How many channels of each group NextChannelName has named.
  std::map<std::string, uint32_t, std::less<>> channel_counts_;  // Guarded by the mutex.
};

}  // namespace kiln::hal
