// SocketMesh: the connections of a CPU channel's participants (one stream
// socket per pair of processes) and the framed messages that move over
// them.
//
// Every message carries a header that says which operation it belongs to:
//
//   u32 magic 'KCM1' | u32 step | u64 channel id | u64 sequence |
//   u8 operation | u8 reduction | u16 zero | u32 element type |
//   u64 payload bytes                                   (40 bytes, LE)
//
// `operation` is a CollectiveKind, or kSplitOperation / kBarrierOperation;
// `sequence` numbers the operations of one channel (every participant
// counts the same); `step` tells the messages of one operation apart. A
// receiver knows what it expects and compares every field: a peer that runs
// a different collective, another element count, or sends a message that
// nobody received earlier (mismatched programs) is an error naming both
// sides, never bytes silently taken for other bytes.
//
// Exchange moves all of one step's messages at once: the sockets are
// non-blocking and one poll() loop sends and receives on all of them as
// they become ready, so every participant sending to every other at the
// same time cannot deadlock, whatever the sizes. It fails (DEADLINE_EXCEEDED)
// when nothing moves on any of its sockets for the timeout, and
// (UNAVAILABLE) when a peer closes its connection or dies.
//
// The channels split from one channel share its mesh. Operations hold
// mutex() while they run, so one process never interleaves two operations'
// bytes on a socket. A failed exchange leaves the streams out of step, so
// it breaks the mesh: every later operation fails with the first error.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/utils/socket.h"

namespace kiln::hal::cpu {

inline constexpr uint8_t kSplitOperation = 0x80;
inline constexpr uint8_t kBarrierOperation = 0x81;

struct MessageHeader {
  uint32_t step = 0;
  uint64_t channel = 0;
  uint64_t sequence = 0;
  uint8_t operation = 0;
  uint8_t reduction = 0;
  uint32_t element_type = 0;
  uint64_t bytes = 0;

  // "operation #7 on channel 0x0: all_reduce sum f32, step 1, 4096 bytes".
  std::string Describe() const;
  bool operator==(const MessageHeader&) const = default;
};

class SocketMesh : public RefObject {
 public:
  static constexpr size_t kHeaderBytes = 40;

  // `peers[r]` is connected to rank r of the mesh (the entry of `rank`
  // itself is empty).
  SocketMesh(int32_t rank, std::vector<utils::UniqueFd> peers, std::chrono::milliseconds timeout);

  int32_t rank() const { return rank_; }
  int32_t size() const { return static_cast<int32_t>(peers_.size()); }
  std::chrono::milliseconds timeout() const { return timeout_; }

  // Held by an operation for as long as it runs.
  std::mutex& mutex() { return mutex_; }

  struct Send {
    int32_t peer;  // A mesh rank, not this one.
    MessageHeader header;
    std::span<const uint8_t> payload;  // header.bytes long.
  };
  struct Receive {
    int32_t peer;
    MessageHeader expected;
    std::span<uint8_t> payload;  // expected.bytes long.
  };
  // Sends and receives these messages, at most one of each per peer. Call
  // with mutex() held.
  Status Exchange(std::span<const Send> sends, std::span<const Receive> receives);
  // OK, or the error that broke the mesh. Call with mutex() held.
  const Status& broken() const { return broken_; }

 private:
  Status Run(std::span<const Send> sends, std::span<const Receive> receives);

  const int32_t rank_;
  std::vector<utils::UniqueFd> peers_;
  const std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  Status broken_;  // Guarded by mutex_.
};

}  // namespace kiln::hal::cpu
