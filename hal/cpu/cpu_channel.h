// CpuChannel: the CPU driver's channel (hal/channel.h): collectives
// (hal/collective.h) on host memory between processes (or threads, each
// with its own channel), over a full mesh of stream sockets.
//
// Creation (collective, every participant at once):
//   1. each participant listens on a fresh socket:
//      - with a tcp:// rendezvous, a TCP socket on the address this host
//        uses to reach rank 0's HOST (found by routing, a UDP socket
//        "connected" there), any port: the interface the group's traffic
//        already takes, so it works across hosts and picks no unrelated
//        interface;
//      - otherwise (a directory rendezvous), a Unix socket in the abstract
//        namespace (a random name, nothing on the filesystem to clean up):
//        all participants must be on one host, checked by hostname (a
//        directory on a shared filesystem across hosts is an error that
//        says to use tcp://);
//   2. they all-gather "<kind> <address> <token> <hostname>" through the
//      rendezvous under "<group>/cpu_channel/address/<rank>";
//   3. each connects to every higher rank and sends a hello (magic, the
//      token that rank published, its own rank, the count); each accepts
//      its lower ranks, checks the hello (connections with another token
//      are dropped) and answers with its rank;
//   4. a barrier over the new sockets: once it passes, every participant
//      has read every rendezvous key it needs, so rank 0 may drop the
//      rendezvous.
// A channel of one participant needs no rendezvous and opens no socket.
// One rendezvous makes one channel per group name (the keys would
// collide: ALREADY_EXISTS).
//
// Collectives follow the table of hal/collective.h. Reductions are applied
// in rank order by one participant per element (collective_reduction.h),
// so every participant gets bit-identical bytes:
//   - all_reduce: the elements are cut into `count` near-equal segments;
//     each participant sends segment k to rank k, which reduces it in rank
//     order and sends the result to everyone (a reduce-scatter and an
//     all-gather: each participant moves 2 (count-1)/count of the buffer).
//   - reduce_scatter: the first half of that, on send chunk `rank`.
//   - all_gather, all_to_all, send_recv: the chunks go directly to their
//     ranks. send_recv with recv_rank -1 zero-fills recv; a participant that
//     sends to itself must also receive from itself (a copy).
// Messages carry a header (socket_mesh.h) checked on arrival, so
// mismatched programs fail with both sides named. An error (a peer that
// died, a mismatch, no progress for the device's collective timeout)
// breaks the channel, and every channel split from the same root: their
// sockets are out of step, so later collectives fail at once with the
// first error. Socket errors name peers by their rank in the root channel
// ("group rank").
//
// Split: an exchange of (color, key) over this channel; the sub-channel
// reuses the root's sockets to its members, ranked by key then by rank in
// this channel. Channels split from one root share its sockets, so one
// process runs their collectives one at a time (they hold the mesh's
// lock); every participant must order them the same way.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/channel.h"
#include "hal/collective.h"
#include "hal/cpu/socket_mesh.h"

namespace kiln::hal::cpu {

class CpuChannel final : public Channel {
 public:
  // Joins the group `params` describes; CpuDevice::CreateChannel has
  // checked them. `timeout` bounds connecting and every later wait on a
  // peer that makes no progress.
  static Result<Ref<CpuChannel>> Create(const ChannelParams& params,
                                        std::chrono::milliseconds timeout);

  Result<Ref<Channel>> Split(int32_t color, int32_t key) override;

  // Runs `op` with this participant's host buffers: `send` holds
  // CollectiveBufferCounts(op, element_count, count()).send elements and
  // `recv` .recv elements (the command buffer has checked the op, the
  // lengths and that the ranges are disjoint or, for all_reduce,
  // identical).
  Status Run(const CollectiveOp& op, const uint8_t* send, uint8_t* recv, uint64_t element_count);

 private:
  CpuChannel(int32_t rank, int32_t count, Ref<SocketMesh> mesh, std::vector<int32_t> members,
             uint64_t id);

  // With the mesh's lock held (current_ numbers the operation).
  Status RunLocked(const CollectiveOp& op, const uint8_t* send, uint8_t* recv, uint64_t n);
  Status AllReduce(const CollectiveOp& op, const uint8_t* send, uint8_t* recv, uint64_t n);
  Status ReduceScatter(const CollectiveOp& op, const uint8_t* send, uint8_t* recv, uint64_t n);
  Status AllGather(const CollectiveOp& op, const uint8_t* send, uint8_t* recv, uint64_t n);
  Status AllToAll(const CollectiveOp& op, const uint8_t* send, uint8_t* recv, uint64_t n);
  Status SendRecv(const CollectiveOp& op, const uint8_t* send, uint8_t* recv, uint64_t n);

  // The header of this operation's message of `step` with `bytes`.
  MessageHeader Header(const CollectiveOp& op, uint32_t step, uint64_t bytes) const;
  int32_t MeshRank(int32_t channel_rank) const {
    return members_[static_cast<size_t>(channel_rank)];
  }

  Ref<SocketMesh> mesh_;
  // The mesh rank of each rank of this channel.
  std::vector<int32_t> members_;
  // Tells this channel's messages from those of channels split from the
  // same root (every member computes the same id).
  uint64_t id_;
  // Guarded by the mesh's mutex.
  uint64_t sequence_ = 0;  // Operations run on this channel.
  uint64_t current_ = 0;   // The number of the operation running.
  uint64_t splits_ = 0;    // Splits of this channel.
};

}  // namespace kiln::hal::cpu
