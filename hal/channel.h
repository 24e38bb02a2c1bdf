// Channel: one participant's membership in a collective group (MPI's
// communicator, NCCL's ncclComm_t), on one device.
//
// A device makes channels (Device::CreateChannel); command buffers record
// collectives on them (CommandBuffer::Collective, collective.h), which run
// in queue order with the device's other work. Each driver has its own
// kind: CUDA's is an NCCL communicator, the CPU driver's a mesh of sockets
// between the participating processes (local sockets on one host, TCP
// across hosts); Vulkan has none, and says so.
//
// A channel is created collectively: every participant of the group calls
// CreateChannel with the same group name and rendezvous and its own rank,
// and each call returns once all have joined (or the rendezvous times out).
// Split is collective over the channel in the same way.
#pragma once

#include <cstdint>
#include <string>

#include "base/ref.h"
#include "base/result.h"
#include "hal/rendezvous.h"

namespace kiln::hal {

// What a process knows of the group it runs in: its rank, the group's size
// and the rendezvous they share. The tools fill it from --rank,
// --world_size and --rendezvous, or from an MPI launcher's environment
// (tools/common); the hal module makes a program's default channels from it
// (HalModuleOptions::collectives).
struct CollectiveGroup {
  int32_t rank = 0;
  int32_t world_size = 1;
  // Null for a group of one (no other process to meet).
  Ref<Rendezvous> rendezvous;
};

struct ChannelParams {
  // Distinguishes the channels a group makes from one rendezvous (a
  // program's flow.channel.default "group"; empty for the default); the
  // rendezvous keys of the channel start with it.
  std::string group;
  int32_t rank = 0;
  int32_t count = 1;
  // Must be non-null when count > 1; its world_size must equal count.
  Ref<Rendezvous> rendezvous;
};

class Channel : public RefObject {
 public:
  int32_t rank() const { return rank_; }
  int32_t count() const { return count_; }

  // Partitions the group into disjoint subgroups, one per color: the
  // participants that pass the same color form one, ranked by key (ties by
  // rank in this channel). A color of -1 leaves this participant out: it
  // gets a null channel. Every participant must call it, in the same order
  // relative to other Splits of this channel.
  virtual Result<Ref<Channel>> Split(int32_t color, int32_t key) = 0;

 protected:
  Channel(int32_t rank, int32_t count) : rank_(rank), count_(count) {}

 private:
  int32_t rank_;
  int32_t count_;
};

}  // namespace kiln::hal
