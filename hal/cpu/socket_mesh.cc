#include "hal/cpu/socket_mesh.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "hal/collective.h"
#include "hal/element_type.h"

namespace kiln::hal::cpu {
namespace {

constexpr uint32_t kMagic = 0x314D434Bu;  // "KCM1" in memory order.

using Clock = utils::SocketClock;

void Encode(const MessageHeader& header, uint8_t* out) {
  std::vector<uint8_t> bytes;
  bytes.reserve(SocketMesh::kHeaderBytes);
  utils::PutU32(bytes, kMagic);
  utils::PutU32(bytes, header.step);
  utils::PutU64(bytes, header.channel);
  utils::PutU64(bytes, header.sequence);
  bytes.push_back(header.operation);
  bytes.push_back(header.reduction);
  bytes.push_back(0);
  bytes.push_back(0);
  utils::PutU32(bytes, header.element_type);
  utils::PutU64(bytes, header.bytes);
  std::memcpy(out, bytes.data(), SocketMesh::kHeaderBytes);
}

MessageHeader Decode(const uint8_t* in) {
  MessageHeader header;
  header.step = utils::GetU32(in + 4);
  header.channel = utils::GetU64(in + 8);
  header.sequence = utils::GetU64(in + 16);
  header.operation = in[24];
  header.reduction = in[25];
  header.element_type = utils::GetU32(in + 28);
  header.bytes = utils::GetU64(in + 32);
  return header;
}

std::string OperationName(const MessageHeader& header) {
  if (header.operation == kSplitOperation) return "split";
  if (header.operation == kBarrierOperation) return "barrier";
  CollectiveOp op;
  op.kind = static_cast<CollectiveKind>(header.operation);
  std::string text(CollectiveKindName(op.kind));
  const auto reduction = static_cast<CollectiveReduction>(header.reduction);
  if (reduction != CollectiveReduction::kNone) {
    text += " ";
    text += CollectiveReductionName(reduction);
  }
  text += " ";
  text += FormatElementType(static_cast<ElementType>(header.element_type));
  return text;
}

// The state of one peer's messages during an Exchange.
struct PeerTransfer {
  int fd = -1;
  const SocketMesh::Send* send = nullptr;
  uint8_t send_header[SocketMesh::kHeaderBytes];
  size_t sent = 0;  // Over header and payload.
  const SocketMesh::Receive* receive = nullptr;
  uint8_t receive_header[SocketMesh::kHeaderBytes];
  size_t received = 0;  // Over header and payload.

  bool sending() const {
    return send != nullptr && sent < SocketMesh::kHeaderBytes + send->payload.size();
  }
  bool receiving() const {
    return receive != nullptr && received < SocketMesh::kHeaderBytes + receive->payload.size();
  }
};

Status ClosedError(int32_t peer, const char* doing, int error) {
  return UnavailableError("group rank " + std::to_string(peer) + " closed its connection while " +
                          doing + " (did it exit?)" +
                          (error != 0 ? ": " + utils::ErrnoMessage(error) : std::string()));
}

// Sends what the socket takes now; `progress` is set when bytes moved.
Status PushSend(int32_t peer, PeerTransfer& t, bool* progress) {
  constexpr size_t H = SocketMesh::kHeaderBytes;
  while (t.sending()) {
    iovec parts[2];
    int count = 0;
    if (t.sent < H) parts[count++] = {t.send_header + t.sent, H - t.sent};
    const size_t payload_done = t.sent < H ? 0 : t.sent - H;
    if (payload_done < t.send->payload.size()) {
      parts[count++] = {const_cast<uint8_t*>(t.send->payload.data()) + payload_done,
                        t.send->payload.size() - payload_done};
    }
    msghdr message = {};
    message.msg_iov = parts;
    message.msg_iovlen = static_cast<size_t>(count);
    const ssize_t n = sendmsg(t.fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      t.sent += static_cast<size_t>(n);
      *progress = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return OkStatus();
    return ClosedError(peer, "this rank was sending to it", n < 0 ? errno : 0);
  }
  return OkStatus();
}

// Receives what has arrived, checking the header as soon as it is whole.
Status PullReceive(int32_t peer, PeerTransfer& t, bool* progress) {
  constexpr size_t H = SocketMesh::kHeaderBytes;
  while (t.receiving()) {
    uint8_t* target;
    size_t length;
    if (t.received < H) {
      target = t.receive_header + t.received;
      length = H - t.received;
    } else {
      const size_t done = t.received - H;
      target = t.receive->payload.data() + done;
      length = t.receive->payload.size() - done;
    }
    const ssize_t n = recv(t.fd, target, length, MSG_DONTWAIT);
    if (n > 0) {
      const bool header_was_partial = t.received < H;
      t.received += static_cast<size_t>(n);
      *progress = true;
      if (header_was_partial && t.received == H) {
        if (utils::GetU32(t.receive_header) != kMagic) {
          return DataLossError("group rank " + std::to_string(peer) +
                               " sent bytes that are not a channel message where this rank "
                               "expected " +
                               t.receive->expected.Describe());
        }
        const MessageHeader got = Decode(t.receive_header);
        if (!(got == t.receive->expected)) {
          return FailedPreconditionError(
              "group rank " + std::to_string(peer) + " sent " + got.Describe() +
              " where this rank expected " + t.receive->expected.Describe() +
              ": the participants do not run the same collectives in the same order");
        }
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return OkStatus();
    return ClosedError(peer, "this rank was receiving from it", n < 0 ? errno : 0);
  }
  return OkStatus();
}

std::string FormatRanks(const std::vector<int32_t>& ranks) {
  std::string text;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i != 0) text += ", ";
    text += std::to_string(ranks[i]);
  }
  return text;
}

}  // namespace

std::string MessageHeader::Describe() const {
  char channel_text[32];
  std::snprintf(channel_text, sizeof(channel_text), "%llx",
                static_cast<unsigned long long>(channel));
  return "operation #" + std::to_string(sequence) + " on channel " + channel_text + ": " +
         OperationName(*this) + ", step " + std::to_string(step) + ", " + std::to_string(bytes) +
         " bytes";
}

SocketMesh::SocketMesh(int32_t rank, std::vector<utils::UniqueFd> peers,
                       std::chrono::milliseconds timeout)
    : rank_(rank), peers_(std::move(peers)), timeout_(timeout) {}

Status SocketMesh::Exchange(std::span<const Send> sends, std::span<const Receive> receives) {
  if (!broken_.ok()) {
    return Status(broken_.code(), "the channel's connections failed earlier: " + broken_.message());
  }
  Status status = Run(sends, receives);
  if (!status.ok()) broken_ = status;
  return status;
}

Status SocketMesh::Run(std::span<const Send> sends, std::span<const Receive> receives) {
  std::vector<PeerTransfer> transfers(peers_.size());
  auto check_peer = [&](int32_t peer) -> Status {
    if (peer < 0 || peer >= size() || peer == rank_) {
      return InternalError("a channel message to or from group rank " + std::to_string(peer) +
                           " (this is rank " + std::to_string(rank_) + " of " +
                           std::to_string(size()) + ")");
    }
    return OkStatus();
  };
  for (const Send& send : sends) {
    KILN_RETURN_IF_ERROR(check_peer(send.peer));
    PeerTransfer& t = transfers[static_cast<size_t>(send.peer)];
    if (t.send != nullptr || send.payload.size() != send.header.bytes) {
      return InternalError("malformed sends of an exchange");
    }
    t.send = &send;
    Encode(send.header, t.send_header);
  }
  for (const Receive& receive : receives) {
    KILN_RETURN_IF_ERROR(check_peer(receive.peer));
    PeerTransfer& t = transfers[static_cast<size_t>(receive.peer)];
    if (t.receive != nullptr || receive.payload.size() != receive.expected.bytes) {
      return InternalError("malformed receives of an exchange");
    }
    t.receive = &receive;
  }
  std::vector<pollfd> fds;
  std::vector<int32_t> fd_peers;
  Clock::time_point deadline = Clock::now() + timeout_;
  while (true) {
    fds.clear();
    fd_peers.clear();
    for (size_t p = 0; p < transfers.size(); ++p) {
      PeerTransfer& t = transfers[p];
      t.fd = peers_[p].get();
      short events = 0;
      if (t.sending()) events |= POLLOUT;
      if (t.receiving()) events |= POLLIN;
      if (events == 0) continue;
      fds.push_back({t.fd, events, 0});
      fd_peers.push_back(static_cast<int32_t>(p));
    }
    if (fds.empty()) return OkStatus();
    const int ready = poll(fds.data(), fds.size(), utils::PollTimeoutMs(deadline));
    if (ready < 0 && errno != EINTR) return UnavailableError("poll: " + utils::ErrnoMessage(errno));
    bool progress = false;
    for (size_t i = 0; ready > 0 && i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      const int32_t peer = fd_peers[i];
      PeerTransfer& t = transfers[static_cast<size_t>(peer)];
      // An error or hang-up shows on the next send or receive. Sending
      // first puts this rank's header on the wire before a mismatch found
      // in the peer's ends this exchange, so both sides can name it.
      if (fds[i].revents & (POLLOUT | POLLHUP | POLLERR)) {
        if (t.sending()) KILN_RETURN_IF_ERROR(PushSend(peer, t, &progress));
      }
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        if (t.receiving()) KILN_RETURN_IF_ERROR(PullReceive(peer, t, &progress));
      }
    }
    if (progress) {
      deadline = Clock::now() + timeout_;
    } else if (Clock::now() >= deadline) {
      std::vector<int32_t> from, to;
      std::string what;
      for (size_t p = 0; p < transfers.size(); ++p) {
        if (transfers[p].receiving()) {
          from.push_back(static_cast<int32_t>(p));
          what = transfers[p].receive->expected.Describe();
        }
        if (transfers[p].sending()) {
          to.push_back(static_cast<int32_t>(p));
          what = transfers[p].send->header.Describe();
        }
      }
      std::string waiting;
      if (!from.empty()) waiting += "receiving from group ranks " + FormatRanks(from);
      if (!to.empty()) {
        waiting += (waiting.empty() ? "" : " and ") + std::string("sending to group ranks ") +
                   FormatRanks(to);
      }
      return DeadlineExceededError("no progress for " + std::to_string(timeout_.count()) + " ms " +
                                   waiting + " (" + what +
                                   "): a participant is not running this collective");
    }
  }
}

}  // namespace kiln::hal::cpu
