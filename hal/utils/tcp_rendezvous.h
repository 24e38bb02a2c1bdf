// TcpRendezvous: the rendezvous (hal/rendezvous.h) "tcp://HOST:PORT",
// served by rank 0; what works across hosts without a shared filesystem.
//
// Rank 0 listens on PORT on every interface (IPv6 and IPv4) and keeps the
// keys in memory, on a server thread that poll()s its connections for as
// long as its Rendezvous lives. The other ranks resolve HOST (IPv4 or IPv6,
// "[::1]:PORT" for literals), connect (retrying until the timeout: rank 0
// may start last) and say which rank they are; Open returns once rank 0
// has answered. The keys die with rank 0's Rendezvous: nothing of an
// earlier run can be read by a later one.
//
// The protocol, every integer little-endian:
//   request:  u8 op, u32 key length, u32 value length, key, value
//     'H' hello: key "kiln-rendezvous/1", value u32 rank, u32 world size
//     'S' set:   key, value
//     'G' get:   key, value u64 timeout in milliseconds
//   response: u8 status code (0: OK), u32 length, value or error message
// A get is answered when its key is set or, with DEADLINE_EXCEEDED naming
// the ranks that have not said hello, when its timeout passes; rank 0
// answers, so the message and the connection stay in step. A client that
// hears nothing a while past its own timeout drops the connection (and
// reconnects for its next request). Keys are at most 4 KiB and values
// 16 MiB; a request that breaks the protocol closes its connection.
//
// A rank > 0 has one connection and makes one request at a time: threads
// of one process that Set and Get at once take turns (a Get that waits
// holds up the others until it is answered).
//
// Runs are told apart by time alone: the keys live as long as rank 0's
// Rendezvous, and a rank that reached a rank 0 still serving an earlier run
// would join that run. Runs on one port must not overlap.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/rendezvous.h"
#include "hal/utils/socket.h"

namespace kiln::hal::utils {

// Whether `spec` names a TCP rendezvous (starts with "tcp://").
bool IsTcpRendezvousSpec(std::string_view spec);
// HOST and PORT of "tcp://HOST:PORT"; INVALID_ARGUMENT naming the spec.
Result<HostPort> ParseTcpRendezvousSpec(std::string_view spec);

class TcpRendezvous final : public Rendezvous {
 public:
  // Called by Rendezvous::Open, which has checked rank and world size.
  static Result<Ref<TcpRendezvous>> Open(std::string_view spec, int32_t rank, int32_t world_size,
                                         std::chrono::milliseconds timeout);
  ~TcpRendezvous() override;

  Status Set(std::string_view key, std::span<const uint8_t> value) override;
  Result<std::vector<uint8_t>> Get(std::string_view key) override;

 private:
  class Server;

  TcpRendezvous(std::string spec, int32_t rank, int32_t world_size,
                std::chrono::milliseconds timeout);

  // Ranks > 0: the connection to rank 0, made (and said hello on) when
  // missing. Called with client_mutex_ held.
  Status Connect(SocketClock::time_point deadline);
  // Ranks > 0: one request and its response.
  Result<std::vector<uint8_t>> Request(char op, std::string_view key,
                                       std::span<const uint8_t> value,
                                       SocketClock::time_point deadline);

  HostPort host_port_;
  std::unique_ptr<Server> server_;  // Rank 0.
  std::mutex client_mutex_;         // Ranks > 0: one request at a time.
  UniqueFd connection_;             // Guarded by client_mutex_.
};

}  // namespace kiln::hal::utils
