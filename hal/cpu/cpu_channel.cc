#include "hal/cpu/cpu_channel.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <sstream>
#include <thread>

#include "hal/cpu/collective_reduction.h"
#include "hal/utils/socket.h"
#include "hal/utils/tcp_rendezvous.h"

namespace kiln::hal::cpu {
namespace {

using utils::SocketAddress;
using utils::SocketClock;
using utils::UniqueFd;

constexpr uint32_t kHelloMagic = 0x314C434Bu;  // "KCL1" in memory order.
constexpr size_t kTokenLength = 32;            // RandomHex(16).
constexpr size_t kHelloBytes = 4 + kTokenLength + 4 + 4;
constexpr size_t kAckBytes = 8;

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown-host";
  return name;
}

// What a participant publishes: where it listens, the token a connection
// must present, and its host.
struct Endpoint {
  std::string kind;  // "tcp" or "unix".
  std::string address;
  uint16_t port = 0;  // tcp.
  std::string token;
  std::string host;

  std::string Encode() const {
    return kind + " " + address + " " + std::to_string(port) + " " + token + " " + host;
  }
  static Result<Endpoint> Decode(std::span<const uint8_t> bytes, int32_t rank) {
    std::istringstream in(std::string(bytes.begin(), bytes.end()));
    Endpoint e;
    uint32_t port = 0;
    if (!(in >> e.kind >> e.address >> port >> e.token >> e.host) ||
        (e.kind != "tcp" && e.kind != "unix") || port > 65535 || e.token.size() != kTokenLength) {
      return InvalidArgumentError(
          "rank " + std::to_string(rank) + " published a malformed cpu channel address '" +
          std::string(bytes.begin(), bytes.end()) + "' (is it running another kiln version?)");
    }
    e.port = static_cast<uint16_t>(port);
    return e;
  }
  Result<SocketAddress> ToAddress() const {
    if (kind == "unix") return utils::AbstractUnixAddress(address);
    return utils::NumericAddress(address, port);
  }
};

// Listens where the group's other participants can reach this one.
Result<UniqueFd> ListenForPeers(const Rendezvous& rendezvous, Endpoint* endpoint) {
  endpoint->host = HostName();
  endpoint->token = utils::RandomHex(kTokenLength / 2);
  if (!utils::IsTcpRendezvousSpec(rendezvous.spec())) {
    endpoint->kind = "unix";
    endpoint->address = "kiln-cpu-channel-" + utils::RandomHex(12);
    KILN_ASSIGN_OR_RETURN(SocketAddress address, utils::AbstractUnixAddress(endpoint->address));
    return utils::ListenOn(address, 1024);
  }
  // The interface this host reaches rank 0's HOST through.
  KILN_ASSIGN_OR_RETURN(utils::HostPort host_port,
                        utils::ParseTcpRendezvousSpec(rendezvous.spec()));
  KILN_ASSIGN_OR_RETURN(std::vector<SocketAddress> remotes,
                        utils::ResolveAddresses(host_port, rendezvous.spec()));
  Status last = UnavailableError("no address");
  for (const SocketAddress& remote : remotes) {
    Result<SocketAddress> local = utils::SourceAddressToward(remote);
    if (!local.ok()) {
      last = local.status();
      continue;
    }
    const std::string host = local->NumericHost();
    KILN_ASSIGN_OR_RETURN(SocketAddress any_port, utils::NumericAddress(host, 0));
    Result<UniqueFd> listener = utils::ListenOn(any_port, 1024);
    if (!listener.ok()) {
      last = listener.status();
      continue;
    }
    KILN_ASSIGN_OR_RETURN(SocketAddress bound, utils::LocalAddress(listener->get()));
    endpoint->kind = "tcp";
    endpoint->address = host;
    endpoint->port = bound.port();
    return listener;
  }
  return last.WithContext("no interface reaches the rendezvous host '" + host_port.host + "'");
}

// A connection to a higher rank: connect (retrying while its listener's
// backlog is full) and send the hello.
Result<UniqueFd> ConnectToPeer(const Endpoint& peer, int32_t peer_rank, int32_t rank, int32_t count,
                               SocketClock::time_point deadline) {
  KILN_ASSIGN_OR_RETURN(SocketAddress address, peer.ToAddress());
  auto backoff = std::chrono::milliseconds(1);
  while (true) {
    Result<UniqueFd> fd = utils::ConnectBy(address, deadline);
    if (fd.ok()) {
      std::vector<uint8_t> hello;
      utils::PutU32(hello, kHelloMagic);
      hello.insert(hello.end(), peer.token.begin(), peer.token.end());
      utils::PutU32(hello, static_cast<uint32_t>(rank));
      utils::PutU32(hello, static_cast<uint32_t>(count));
      Status sent = utils::SendAllBy(fd->get(), hello, deadline);
      if (!sent.ok()) return sent.WithContext("hello to rank " + std::to_string(peer_rank));
      return fd;
    }
    if (fd.status().code() != StatusCode::kUnavailable || SocketClock::now() >= deadline) {
      return fd.status().WithContext("connecting to rank " + std::to_string(peer_rank) + " at " +
                                     address.ToString());
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(50));
  }
}

// splitmix64's finalizer: a sub-channel's id from its parent's, the split's
// number and the color, the same on every member.
uint64_t Mix(uint64_t value) {
  value += 0x9E3779B97F4A7C15ull;
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBull;
  return value ^ (value >> 31);
}

// Scratch memory for the messages a participant receives before it
// reduces them (uninitialized: every byte is received before it is read).
std::unique_ptr<uint8_t[]> Scratch(uint64_t bytes) {
  return std::unique_ptr<uint8_t[]>(new uint8_t[bytes == 0 ? 1 : bytes]);
}

}  // namespace

CpuChannel::CpuChannel(int32_t rank, int32_t count, Ref<SocketMesh> mesh,
                       std::vector<int32_t> members, uint64_t id)
    : Channel(rank, count), mesh_(std::move(mesh)), members_(std::move(members)), id_(id) {}

Result<Ref<CpuChannel>> CpuChannel::Create(const ChannelParams& params,
                                           std::chrono::milliseconds timeout) {
  const int32_t rank = params.rank;
  const int32_t count = params.count;
  if (count == 1) {
    std::vector<UniqueFd> none(1);
    return Ref<CpuChannel>::Adopt(
        new CpuChannel(0, 1, MakeRef<SocketMesh>(0, std::move(none), timeout), {0}, 0));
  }
  const std::string where = "CreateChannel (group '" + params.group + "', rank " +
                            std::to_string(rank) + " of " + std::to_string(count) + ")";
  auto fail = [&](const Status& status) { return status.WithContext(where); };
  Rendezvous& rendezvous = *params.rendezvous;

  Endpoint self;
  Result<UniqueFd> listener = ListenForPeers(rendezvous, &self);
  if (!listener.ok()) return fail(listener.status());
  const std::string record = self.Encode();
  Result<std::vector<std::vector<uint8_t>>> records = rendezvous.AllGather(
      params.group + "/cpu_channel/address",
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(record.data()), record.size()));
  if (!records.ok()) return fail(records.status());
  std::vector<Endpoint> endpoints;
  for (int32_t r = 0; r < count; ++r) {
    Result<Endpoint> endpoint = Endpoint::Decode((*records)[static_cast<size_t>(r)], r);
    if (!endpoint.ok()) return fail(endpoint.status());
    if (endpoint->kind == "unix" && endpoint->host != self.host) {
      return fail(FailedPreconditionError(
          "rank " + std::to_string(r) + " runs on host '" + endpoint->host +
          "' and this rank on '" + self.host +
          "': a directory rendezvous connects the cpu channel through local sockets, so all "
          "participants must share a host (use a tcp://HOST:PORT rendezvous across hosts)"));
    }
    endpoints.push_back(std::move(endpoint).value());
  }

  const auto deadline = SocketClock::now() + timeout;
  std::vector<UniqueFd> peers(static_cast<size_t>(count));
  // Hellos to every higher rank first: connecting needs only their
  // listeners (backlog), so no participant waits on another's progress.
  for (int32_t q = rank + 1; q < count; ++q) {
    Result<UniqueFd> fd =
        ConnectToPeer(endpoints[static_cast<size_t>(q)], q, rank, count, deadline);
    if (!fd.ok()) return fail(fd.status());
    peers[static_cast<size_t>(q)] = std::move(fd).value();
  }
  // Then every lower rank's connection, checked and answered.
  for (int32_t accepted = 0; accepted < rank;) {
    Result<UniqueFd> fd = utils::AcceptBy(listener->get(), deadline);
    if (!fd.ok()) {
      std::string missing;
      for (int32_t q = 0; q < rank; ++q) {
        if (!peers[static_cast<size_t>(q)].valid()) {
          missing += (missing.empty() ? "" : ", ") + std::to_string(q);
        }
      }
      return fail(fd.status().WithContext("waiting for ranks " + missing + " to connect"));
    }
    uint8_t hello[kHelloBytes];
    if (!utils::RecvAllBy(fd->get(), hello, deadline).ok()) continue;  // A stray connection.
    const std::string token(reinterpret_cast<const char*>(hello + 4), kTokenLength);
    if (utils::GetU32(hello) != kHelloMagic || token != self.token) continue;
    const auto from = static_cast<int32_t>(utils::GetU32(hello + 4 + kTokenLength));
    const auto their_count = static_cast<int32_t>(utils::GetU32(hello + 8 + kTokenLength));
    if (their_count != count || from < 0 || from >= rank ||
        peers[static_cast<size_t>(from)].valid()) {
      return fail(InvalidArgumentError("a participant that says it is rank " +
                                       std::to_string(from) + " of " + std::to_string(their_count) +
                                       " connected to rank " + std::to_string(rank) + " of " +
                                       std::to_string(count)));
    }
    std::vector<uint8_t> ack;
    utils::PutU32(ack, kHelloMagic);
    utils::PutU32(ack, static_cast<uint32_t>(rank));
    Status sent = utils::SendAllBy(fd->get(), ack, deadline);
    if (!sent.ok()) return fail(sent.WithContext("answering rank " + std::to_string(from)));
    peers[static_cast<size_t>(from)] = std::move(fd).value();
    ++accepted;
  }
  for (int32_t q = rank + 1; q < count; ++q) {
    uint8_t ack[kAckBytes];
    Status received = utils::RecvAllBy(peers[static_cast<size_t>(q)].get(), ack, deadline);
    if (!received.ok()) {
      return fail(received.WithContext("waiting for rank " + std::to_string(q) + "'s answer"));
    }
    if (utils::GetU32(ack) != kHelloMagic || utils::GetU32(ack + 4) != static_cast<uint32_t>(q)) {
      return fail(DataLossError("rank " + std::to_string(q) +
                                " answered with bytes that are not "
                                "a cpu channel answer"));
    }
  }

  std::vector<int32_t> members(static_cast<size_t>(count));
  std::iota(members.begin(), members.end(), 0);
  Ref<CpuChannel> channel = Ref<CpuChannel>::Adopt(new CpuChannel(
      rank, count, MakeRef<SocketMesh>(rank, std::move(peers), timeout), std::move(members), 0));
  // The barrier: past it, every participant has connected, so every one has
  // read every rendezvous key it needs.
  {
    std::lock_guard<std::mutex> lock(channel->mesh_->mutex());
    MessageHeader header;
    header.channel = channel->id_;
    header.sequence = channel->sequence_++;
    header.operation = kBarrierOperation;
    std::vector<SocketMesh::Send> sends;
    std::vector<SocketMesh::Receive> receives;
    for (int32_t q = 0; q < count; ++q) {
      if (q == rank) continue;
      sends.push_back({q, header, {}});
      receives.push_back({q, header, {}});
    }
    Status barrier = channel->mesh_->Exchange(sends, receives);
    if (!barrier.ok()) return fail(barrier.WithContext("the barrier after connecting"));
  }
  return channel;
}

MessageHeader CpuChannel::Header(const CollectiveOp& op, uint32_t step, uint64_t bytes) const {
  MessageHeader header;
  header.step = step;
  header.channel = id_;
  header.sequence = current_;
  header.operation = static_cast<uint8_t>(op.kind);
  header.reduction = static_cast<uint8_t>(op.reduction);
  header.element_type = static_cast<uint32_t>(op.element_type);
  header.bytes = bytes;
  return header;
}

Status CpuChannel::Run(const CollectiveOp& op, const uint8_t* send, uint8_t* recv,
                       uint64_t element_count) {
  std::lock_guard<std::mutex> lock(mesh_->mutex());
  current_ = sequence_++;
  Status status = mesh_->broken();
  if (!status.ok()) {
    status = Status(status.code(), "the channel's connections failed earlier: " + status.message());
  } else {
    status = RunLocked(op, send, recv, element_count);
  }
  if (status.ok()) return status;
  return status.WithContext("collective " + DescribeCollective(op) + " of " +
                            std::to_string(element_count) + " elements (operation #" +
                            std::to_string(current_) + ", rank " + std::to_string(rank()) + " of " +
                            std::to_string(count()) + ")");
}

Status CpuChannel::RunLocked(const CollectiveOp& op, const uint8_t* send, uint8_t* recv,
                             uint64_t n) {
  switch (op.kind) {
    case CollectiveKind::kAllReduce:
      return AllReduce(op, send, recv, n);
    case CollectiveKind::kReduceScatter:
      return ReduceScatter(op, send, recv, n);
    case CollectiveKind::kAllGather:
      return AllGather(op, send, recv, n);
    case CollectiveKind::kAllToAll:
      return AllToAll(op, send, recv, n);
    case CollectiveKind::kSendRecv:
      return SendRecv(op, send, recv, n);
  }
  return InternalError("unknown collective kind");
}

Status CpuChannel::AllReduce(const CollectiveOp& op, const uint8_t* send, uint8_t* recv,
                             uint64_t n) {
  const uint64_t size = ElementByteSize(op.element_type);
  const int32_t me = rank();
  const int32_t c = count();
  if (c == 1) {
    if (n != 0 && send != recv) std::memmove(recv, send, n * size);
    return OkStatus();
  }
  // Segment k is elements [bound(k), bound(k + 1)), reduced by rank k.
  auto bound = [&](int32_t k) { return n * static_cast<uint64_t>(k) / static_cast<uint64_t>(c); };
  const uint64_t mine = bound(me + 1) - bound(me);
  std::unique_ptr<uint8_t[]> scratch = Scratch(mine * size * static_cast<uint64_t>(c - 1));
  std::vector<SocketMesh::Send> sends;
  std::vector<SocketMesh::Receive> receives;
  std::vector<const uint8_t*> contributions(static_cast<size_t>(c));
  uint64_t slot = 0;
  for (int32_t q = 0; q < c; ++q) {
    if (q == me) {
      contributions[static_cast<size_t>(q)] = send + bound(me) * size;
      continue;
    }
    const uint64_t theirs = (bound(q + 1) - bound(q)) * size;
    sends.push_back({MeshRank(q), Header(op, 0, theirs), {send + bound(q) * size, theirs}});
    uint8_t* into = scratch.get() + slot++ * mine * size;
    receives.push_back({MeshRank(q), Header(op, 0, mine * size), {into, mine * size}});
    contributions[static_cast<size_t>(q)] = into;
  }
  KILN_RETURN_IF_ERROR(mesh_->Exchange(sends, receives));
  // In place, the contribution of this rank is the segment being written:
  // ReduceInRankOrder allows exactly that.
  ReduceInRankOrder(op.reduction, op.element_type, contributions, recv + bound(me) * size, mine);
  sends.clear();
  receives.clear();
  for (int32_t q = 0; q < c; ++q) {
    if (q == me) continue;
    const uint64_t theirs = (bound(q + 1) - bound(q)) * size;
    sends.push_back(
        {MeshRank(q), Header(op, 1, mine * size), {recv + bound(me) * size, mine * size}});
    receives.push_back({MeshRank(q), Header(op, 1, theirs), {recv + bound(q) * size, theirs}});
  }
  return mesh_->Exchange(sends, receives);
}

Status CpuChannel::ReduceScatter(const CollectiveOp& op, const uint8_t* send, uint8_t* recv,
                                 uint64_t n) {
  const uint64_t bytes = n * ElementByteSize(op.element_type);
  const int32_t me = rank();
  const int32_t c = count();
  const uint8_t* own = send + static_cast<uint64_t>(me) * bytes;
  if (c == 1) {
    if (bytes != 0) std::memmove(recv, own, bytes);
    return OkStatus();
  }
  std::unique_ptr<uint8_t[]> scratch = Scratch(bytes * static_cast<uint64_t>(c - 1));
  std::vector<SocketMesh::Send> sends;
  std::vector<SocketMesh::Receive> receives;
  std::vector<const uint8_t*> contributions(static_cast<size_t>(c));
  uint64_t slot = 0;
  for (int32_t q = 0; q < c; ++q) {
    if (q == me) {
      contributions[static_cast<size_t>(q)] = own;
      continue;
    }
    sends.push_back(
        {MeshRank(q), Header(op, 0, bytes), {send + static_cast<uint64_t>(q) * bytes, bytes}});
    uint8_t* into = scratch.get() + slot++ * bytes;
    receives.push_back({MeshRank(q), Header(op, 0, bytes), {into, bytes}});
    contributions[static_cast<size_t>(q)] = into;
  }
  KILN_RETURN_IF_ERROR(mesh_->Exchange(sends, receives));
  ReduceInRankOrder(op.reduction, op.element_type, contributions, recv, n);
  return OkStatus();
}

Status CpuChannel::AllGather(const CollectiveOp& op, const uint8_t* send, uint8_t* recv,
                             uint64_t n) {
  const uint64_t bytes = n * ElementByteSize(op.element_type);
  const int32_t me = rank();
  if (bytes != 0) std::memcpy(recv + static_cast<uint64_t>(me) * bytes, send, bytes);
  std::vector<SocketMesh::Send> sends;
  std::vector<SocketMesh::Receive> receives;
  for (int32_t q = 0; q < count(); ++q) {
    if (q == me) continue;
    sends.push_back({MeshRank(q), Header(op, 0, bytes), {send, bytes}});
    receives.push_back(
        {MeshRank(q), Header(op, 0, bytes), {recv + static_cast<uint64_t>(q) * bytes, bytes}});
  }
  return mesh_->Exchange(sends, receives);
}

Status CpuChannel::AllToAll(const CollectiveOp& op, const uint8_t* send, uint8_t* recv,
                            uint64_t n) {
  const uint64_t chunk = n / static_cast<uint64_t>(count()) * ElementByteSize(op.element_type);
  const int32_t me = rank();
  const uint64_t own = static_cast<uint64_t>(me) * chunk;
  if (chunk != 0) std::memcpy(recv + own, send + own, chunk);
  std::vector<SocketMesh::Send> sends;
  std::vector<SocketMesh::Receive> receives;
  for (int32_t q = 0; q < count(); ++q) {
    if (q == me) continue;
    const uint64_t at = static_cast<uint64_t>(q) * chunk;
    sends.push_back({MeshRank(q), Header(op, 0, chunk), {send + at, chunk}});
    receives.push_back({MeshRank(q), Header(op, 0, chunk), {recv + at, chunk}});
  }
  return mesh_->Exchange(sends, receives);
}

Status CpuChannel::SendRecv(const CollectiveOp& op, const uint8_t* send, uint8_t* recv,
                            uint64_t n) {
  const uint64_t bytes = n * ElementByteSize(op.element_type);
  const int32_t me = rank();
  if ((op.send_rank == me) != (op.recv_rank == me)) {
    return FailedPreconditionError(
        "rank " + std::to_string(me) +
        (op.send_rank == me
             ? " sends to itself but receives from rank " + std::to_string(op.recv_rank)
             : " receives from itself but sends to rank " + std::to_string(op.send_rank)) +
        " (a participant that sends to itself must receive from itself)");
  }
  if (op.send_rank == me) {
    if (bytes != 0) std::memcpy(recv, send, bytes);
    return OkStatus();
  }
  if (op.recv_rank == -1 && bytes != 0) std::memset(recv, 0, bytes);
  std::vector<SocketMesh::Send> sends;
  std::vector<SocketMesh::Receive> receives;
  if (op.send_rank != -1)
    sends.push_back({MeshRank(op.send_rank), Header(op, 0, bytes), {send, bytes}});
  if (op.recv_rank != -1) {
    receives.push_back({MeshRank(op.recv_rank), Header(op, 0, bytes), {recv, bytes}});
  }
  return mesh_->Exchange(sends, receives);
}

Result<Ref<Channel>> CpuChannel::Split(int32_t color, int32_t key) {
  std::lock_guard<std::mutex> lock(mesh_->mutex());
  current_ = sequence_++;
  const uint64_t split = splits_++;
  const int32_t me = rank();
  const int32_t c = count();
  std::vector<int32_t> colors(static_cast<size_t>(c)), keys(static_cast<size_t>(c));
  colors[static_cast<size_t>(me)] = color;
  keys[static_cast<size_t>(me)] = key;
  if (c > 1) {
    if (!mesh_->broken().ok()) {
      return Status(mesh_->broken().code(), "Split: the channel's connections failed earlier: " +
                                                mesh_->broken().message());
    }
    // Every participant's (color, key), checked by all of them alike: a bad
    // color fails the split everywhere, not only where it was passed.
    std::vector<uint8_t> mine;
    utils::PutU32(mine, static_cast<uint32_t>(color));
    utils::PutU32(mine, static_cast<uint32_t>(key));
    std::vector<uint8_t> theirs(8 * static_cast<size_t>(c));
    MessageHeader header;
    header.channel = id_;
    header.sequence = current_;
    header.operation = kSplitOperation;
    header.bytes = 8;
    std::vector<SocketMesh::Send> sends;
    std::vector<SocketMesh::Receive> receives;
    for (int32_t q = 0; q < c; ++q) {
      if (q == me) continue;
      sends.push_back({MeshRank(q), header, mine});
      receives.push_back({MeshRank(q), header, {theirs.data() + 8 * q, 8}});
    }
    Status exchanged = mesh_->Exchange(sends, receives);
    if (!exchanged.ok()) {
      return exchanged.WithContext("Split (rank " + std::to_string(me) + " of " +
                                   std::to_string(c) + ")");
    }
    for (int32_t q = 0; q < c; ++q) {
      if (q == me) continue;
      colors[static_cast<size_t>(q)] = static_cast<int32_t>(utils::GetU32(&theirs[8 * q]));
      keys[static_cast<size_t>(q)] = static_cast<int32_t>(utils::GetU32(&theirs[8 * q + 4]));
    }
  }
  for (int32_t q = 0; q < c; ++q) {
    if (colors[static_cast<size_t>(q)] < -1) {
      return InvalidArgumentError("Split: rank " + std::to_string(q) + " passed color " +
                                  std::to_string(colors[static_cast<size_t>(q)]) +
                                  " (a color is >= 0, or -1 to stay out)");
    }
  }
  if (color == -1) return Ref<Channel>();
  std::vector<int32_t> ranks;
  for (int32_t q = 0; q < c; ++q) {
    if (colors[static_cast<size_t>(q)] == color) ranks.push_back(q);
  }
  std::stable_sort(ranks.begin(), ranks.end(), [&](int32_t a, int32_t b) {
    return keys[static_cast<size_t>(a)] < keys[static_cast<size_t>(b)];
  });
  std::vector<int32_t> members;
  int32_t new_rank = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == me) new_rank = static_cast<int32_t>(i);
    members.push_back(MeshRank(ranks[i]));
  }
  const uint64_t id = Mix(Mix(id_ ^ Mix(split)) ^ static_cast<uint32_t>(color));
  const auto new_count = static_cast<int32_t>(members.size());
  return Ref<Channel>(
      Ref<CpuChannel>::Adopt(new CpuChannel(new_rank, new_count, mesh_, std::move(members), id)));
}

}  // namespace kiln::hal::cpu
