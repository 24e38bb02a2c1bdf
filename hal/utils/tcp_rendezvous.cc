#include "hal/utils/tcp_rendezvous.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

namespace kiln::hal::utils {
namespace {

constexpr std::string_view kScheme = "tcp://";
constexpr std::string_view kHello = "kiln-rendezvous/1";
constexpr size_t kRequestHeader = 9;   // op, key length, value length.
constexpr size_t kResponseHeader = 5;  // status, length.
constexpr uint32_t kMaxKey = 4096;
constexpr uint32_t kMaxValue = 16u << 20;
// How long a client waits past a get's timeout for rank 0's answer before
// it takes rank 0 for gone.
constexpr std::chrono::seconds kAnswerGrace{5};

std::vector<uint8_t> Frame(uint8_t head, std::string_view key, std::span<const uint8_t> value) {
  std::vector<uint8_t> frame;
  frame.reserve(kRequestHeader + key.size() + value.size());
  frame.push_back(head);
  PutU32(frame, static_cast<uint32_t>(key.size()));
  PutU32(frame, static_cast<uint32_t>(value.size()));
  frame.insert(frame.end(), key.begin(), key.end());
  frame.insert(frame.end(), value.begin(), value.end());
  return frame;
}

std::vector<uint8_t> Response(const Status& status, std::span<const uint8_t> value) {
  std::vector<uint8_t> frame;
  const std::string& message = status.message();
  std::span<const uint8_t> payload =
      status.ok() ? value
                  : std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(message.data()),
                                             message.size());
  frame.push_back(static_cast<uint8_t>(status.code()));
  PutU32(frame, static_cast<uint32_t>(payload.size()));
  frame.insert(frame.end(), payload.begin(), payload.end());
  return frame;
}

std::string NotArrived(const std::vector<bool>& arrived) {
  std::string text;
  for (size_t r = 0; r < arrived.size(); ++r) {
    if (arrived[r]) continue;
    text += (text.empty() ? "" : ", ") + std::to_string(r);
  }
  return text.empty() ? "every rank has arrived" : "ranks not arrived: " + text;
}

}  // namespace

bool IsTcpRendezvousSpec(std::string_view spec) {
  return spec.substr(0, kScheme.size()) == kScheme;
}

Result<HostPort> ParseTcpRendezvousSpec(std::string_view spec) {
  if (!IsTcpRendezvousSpec(spec)) {
    return InvalidArgumentError("rendezvous '" + std::string(spec) + "' is not tcp://HOST:PORT");
  }
  Result<HostPort> parsed = ParseHostPort(spec.substr(kScheme.size()), spec);
  if (!parsed.ok()) return parsed.status().WithContext("rendezvous");
  return parsed;
}

// Rank 0's key store and the thread that serves it to the other ranks.
class TcpRendezvous::Server {
 public:
  Server(std::string spec, int32_t world_size)
      : spec_(std::move(spec)), arrived_(static_cast<size_t>(world_size)) {
    arrived_[0] = true;
  }
  ~Server() {
    if (thread_.joinable()) {
      stop_.store(true);
      Wake();
      thread_.join();
    }
  }

  // Listens on `port` on every interface and starts serving.
  Status Start(uint16_t port) {
    // The IPv6 wildcard takes IPv4 too; a host without IPv6 gets IPv4's.
    KILN_ASSIGN_OR_RETURN(SocketAddress any6, NumericAddress("::", port));
    KILN_ASSIGN_OR_RETURN(SocketAddress any4, NumericAddress("0.0.0.0", port));
    Result<UniqueFd> listener = ListenOn(any6, 128);
    if (!listener.ok()) {
      Result<UniqueFd> listener4 = ListenOn(any4, 128);
      if (!listener4.ok()) {
        return UnavailableError("rendezvous '" + spec_ + "': rank 0 cannot serve on port " +
                                std::to_string(port) + ": " + listener.status().message());
      }
      listener = std::move(listener4);
    }
    listener_ = std::move(listener).value();
    wake_ = UniqueFd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    if (!wake_.valid()) return UnavailableError("eventfd: " + ErrnoMessage(errno));
    thread_ = std::thread([this] { Loop(); });
    return OkStatus();
  }

  Status Set(std::string_view key, std::span<const uint8_t> value) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      KILN_RETURN_IF_ERROR(Insert(key, value));
    }
    cv_.notify_all();
    Wake();
    return OkStatus();
  }

  Result<std::vector<uint8_t>> Get(std::string_view key, std::chrono::milliseconds timeout) {
    const auto deadline = SocketClock::now() + timeout;
    std::unique_lock<std::mutex> lock(mutex_);
    const std::string name(key);
    if (!cv_.wait_until(lock, deadline, [&] { return values_.count(name) != 0; })) {
      return DeadlineError(name, timeout);
    }
    return values_[name];
  }

 private:
  struct Connection {
    UniqueFd fd;
    std::vector<uint8_t> in;
    std::vector<uint8_t> out;
    size_t out_done = 0;
    int32_t rank = -1;  // Once it said hello.
    bool closed = false;
    // An unanswered get (a client makes one request at a time).
    bool waiting = false;
    std::string waiting_key;
    std::chrono::milliseconds waiting_timeout{0};
    SocketClock::time_point waiting_deadline;
  };

  void Wake() {
    const uint64_t one = 1;
    if (wake_.valid()) (void)!write(wake_.get(), &one, sizeof(one));
  }

  // Requires mutex_.
  Status Insert(std::string_view key, std::span<const uint8_t> value) {
    auto [it, inserted] = values_.try_emplace(std::string(key));
    if (!inserted) {
      return Status(StatusCode::kAlreadyExists, "rendezvous '" + spec_ + "': key '" +
                                                    std::string(key) +
                                                    "' was set already (each key has one writer)");
    }
    it->second.assign(value.begin(), value.end());
    return OkStatus();
  }

  // Requires mutex_.
  Status DeadlineError(const std::string& key, std::chrono::milliseconds timeout) const {
    return DeadlineExceededError("rendezvous '" + spec_ + "': key '" + key +
                                 "' was not set within " + std::to_string(timeout.count()) +
                                 " ms (" + NotArrived(arrived_) + ")");
  }

  void Reply(Connection& c, const Status& status, std::span<const uint8_t> value = {}) {
    std::vector<uint8_t> frame = Response(status, value);
    c.out.insert(c.out.end(), frame.begin(), frame.end());
  }

  // Handles the complete requests buffered on `c` until one must wait.
  void HandleRequests(Connection& c) {
    size_t used = 0;
    while (!c.waiting && !c.closed && c.in.size() - used >= kRequestHeader) {
      const uint8_t* head = c.in.data() + used;
      const uint32_t key_length = GetU32(head + 1);
      const uint32_t value_length = GetU32(head + 5);
      if (key_length > kMaxKey || value_length > kMaxValue) {
        c.closed = true;  // Not our protocol, or hostile.
        break;
      }
      const size_t total = kRequestHeader + key_length + value_length;
      if (c.in.size() - used < total) break;
      const std::string key(reinterpret_cast<const char*>(head + kRequestHeader), key_length);
      const std::span<const uint8_t> value(head + kRequestHeader + key_length, value_length);
      used += total;
      Handle(c, static_cast<char>(head[0]), key, value);
    }
    c.in.erase(c.in.begin(), c.in.begin() + static_cast<ptrdiff_t>(used));
  }

  void Handle(Connection& c, char op, const std::string& key, std::span<const uint8_t> value) {
    if (op == 'H') {
      if (key != kHello || value.size() != 8) {
        c.closed = true;
        return;
      }
      const auto rank = static_cast<int32_t>(GetU32(value.data()));
      const auto world_size = static_cast<int32_t>(GetU32(value.data() + 4));
      std::lock_guard<std::mutex> lock(mutex_);
      const auto expected = static_cast<int32_t>(arrived_.size());
      if (world_size != expected) {
        Reply(c, InvalidArgumentError("rendezvous '" + spec_ + "': rank " + std::to_string(rank) +
                                      " was given world size " + std::to_string(world_size) +
                                      " but rank 0 was given " + std::to_string(expected)));
        return;
      }
      if (rank <= 0 || rank >= expected) {
        Reply(c, InvalidArgumentError("rendezvous '" + spec_ + "': rank " + std::to_string(rank) +
                                      " is not in [1, " + std::to_string(expected) + ")"));
        return;
      }
      c.rank = rank;
      arrived_[static_cast<size_t>(rank)] = true;
      Reply(c, OkStatus());
      return;
    }
    if (c.rank < 0 || (op != 'S' && op != 'G')) {
      c.closed = true;
      return;
    }
    if (op == 'S') {
      Status status;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        status = Insert(key, value);
      }
      if (status.ok()) {
        cv_.notify_all();  // Rank 0's own Get.
        // Gets of other connections wait in poll(): wake it so that the next
        // round answers them (this round may have passed them already).
        Wake();
      }
      Reply(c, status);
      return;
    }
    if (value.size() != 8) {
      c.closed = true;
      return;
    }
    // Bounded so that the deadline arithmetic cannot overflow.
    const uint64_t timeout_ms = std::min<uint64_t>(GetU64(value.data()), uint64_t{1} << 40);
    c.waiting = true;
    c.waiting_key = key;
    c.waiting_timeout = std::chrono::milliseconds(timeout_ms);
    c.waiting_deadline = SocketClock::now() + c.waiting_timeout;
  }

  // Answers `c`'s get if its key is set or its time is up; true if answered.
  bool Answer(Connection& c) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = values_.find(c.waiting_key);
    if (it != values_.end()) {
      Reply(c, OkStatus(), it->second);
    } else if (SocketClock::now() >= c.waiting_deadline) {
      Reply(c, DeadlineError(c.waiting_key, c.waiting_timeout));
    } else {
      return false;
    }
    c.waiting = false;
    return true;
  }

  void Read(Connection& c) {
    uint8_t buffer[65536];
    while (true) {
      const ssize_t n = recv(c.fd.get(), buffer, sizeof(buffer), 0);
      if (n > 0) {
        c.in.insert(c.in.end(), buffer, buffer + n);
        // A client sends one request and waits: more than one maximal
        // request buffered is not our protocol.
        if (c.in.size() > 2 * (kRequestHeader + kMaxKey + kMaxValue)) c.closed = true;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      c.closed = true;  // EOF or error.
      return;
    }
  }

  void Write(Connection& c) {
    while (c.out_done < c.out.size()) {
      const ssize_t n =
          send(c.fd.get(), c.out.data() + c.out_done, c.out.size() - c.out_done, MSG_NOSIGNAL);
      if (n > 0) {
        c.out_done += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      c.closed = true;
      return;
    }
    c.out.clear();
    c.out_done = 0;
  }

  void Loop() {
    std::vector<std::unique_ptr<Connection>> connections;
    std::vector<pollfd> fds;
    while (!stop_.load()) {
      fds.clear();
      fds.push_back({wake_.get(), POLLIN, 0});
      fds.push_back({listener_.get(), POLLIN, 0});
      SocketClock::time_point next = SocketClock::time_point::max();
      for (const auto& c : connections) {
        short events = POLLIN;
        if (c->out_done < c->out.size()) events |= POLLOUT;
        fds.push_back({c->fd.get(), events, 0});
        if (c->waiting) next = std::min(next, c->waiting_deadline);
      }
      const int timeout = next == SocketClock::time_point::max() ? -1 : PollTimeoutMs(next);
      if (poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) break;
      if (fds[0].revents != 0) {
        uint64_t count = 0;
        (void)!read(wake_.get(), &count, sizeof(count));
      }
      if (fds[1].revents != 0) {
        while (true) {
          const int fd = accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
          if (fd < 0) break;
          auto c = std::make_unique<Connection>();
          c->fd = UniqueFd(fd);
          connections.push_back(std::move(c));
        }
      }
      for (size_t i = 0; i < connections.size(); ++i) {
        Connection& c = *connections[i];
        // New connections have no pollfd this round (i + 2 is past them).
        const short revents = i + 2 < fds.size() && fds[i + 2].fd == c.fd.get()
                                  ? fds[i + 2].revents
                                  : static_cast<short>(0);
        if (revents & (POLLIN | POLLHUP | POLLERR)) Read(c);
        // Answer what waits (a key set meanwhile, a timeout), then what
        // came in behind it.
        while (!c.closed) {
          if (c.waiting && !Answer(c)) break;
          const size_t before = c.in.size();
          HandleRequests(c);
          if (!c.waiting && c.in.size() == before) break;
        }
        if (!c.out.empty()) Write(c);
      }
      std::erase_if(connections, [](const auto& c) { return c->closed; });
    }
  }

  const std::string spec_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, std::vector<uint8_t>> values_;  // Guarded by mutex_.
  std::vector<bool> arrived_;                           // Guarded by mutex_.
  UniqueFd listener_;
  UniqueFd wake_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TcpRendezvous::TcpRendezvous(std::string spec, int32_t rank, int32_t world_size,
                             std::chrono::milliseconds timeout)
    : Rendezvous(std::move(spec), rank, world_size, timeout) {}

TcpRendezvous::~TcpRendezvous() = default;

Result<Ref<TcpRendezvous>> TcpRendezvous::Open(std::string_view spec, int32_t rank,
                                               int32_t world_size,
                                               std::chrono::milliseconds timeout) {
  KILN_ASSIGN_OR_RETURN(HostPort host_port, ParseTcpRendezvousSpec(spec));
  // Every rank resolves HOST, so a mistyped spec fails on each of them (not
  // only on the ranks that connect to it).
  Result<std::vector<SocketAddress>> addresses = ResolveAddresses(host_port, spec);
  if (!addresses.ok()) return addresses.status().WithContext("rendezvous");
  Ref<TcpRendezvous> rendezvous =
      Ref<TcpRendezvous>::Adopt(new TcpRendezvous(std::string(spec), rank, world_size, timeout));
  rendezvous->host_port_ = host_port;
  if (rank == 0) {
    rendezvous->server_ = std::make_unique<Server>(std::string(spec), world_size);
    // A group of one has nobody to serve: its keys stay in this process.
    if (world_size > 1) KILN_RETURN_IF_ERROR(rendezvous->server_->Start(host_port.port));
    return rendezvous;
  }
  std::lock_guard<std::mutex> lock(rendezvous->client_mutex_);
  KILN_RETURN_IF_ERROR(rendezvous->Connect(SocketClock::now() + timeout));
  return rendezvous;
}

Status TcpRendezvous::Connect(SocketClock::time_point deadline) {
  if (connection_.valid()) return OkStatus();
  std::string last_error = "no address";
  auto backoff = std::chrono::milliseconds(5);
  while (true) {
    // Resolved again at each attempt: rank 0's address may have changed
    // since Open (a restarted host, a DNS update).
    Result<std::vector<SocketAddress>> addresses = ResolveAddresses(host_port_, spec());
    if (!addresses.ok()) return addresses.status().WithContext("rendezvous");
    for (const SocketAddress& address : *addresses) {
      const auto attempt_deadline =
          std::min(deadline, SocketClock::now() + std::chrono::seconds(2));
      Result<UniqueFd> fd = ConnectBy(address, attempt_deadline);
      if (!fd.ok()) {
        last_error = fd.status().message();
        continue;
      }
      // Say which rank this is; rank 0 checks it against the group.
      std::vector<uint8_t> hello;
      PutU32(hello, static_cast<uint32_t>(rank()));
      PutU32(hello, static_cast<uint32_t>(world_size()));
      std::vector<uint8_t> frame = Frame('H', kHello, hello);
      uint8_t header[kResponseHeader];
      Status io = SendAllBy(fd->get(), frame, deadline);
      if (io.ok()) io = RecvAllBy(fd->get(), header, deadline);
      if (!io.ok()) {
        // Rank 0 went away between accept and answer: try again.
        last_error = io.message();
        continue;
      }
      const uint32_t length = GetU32(header + 1);
      if (header[0] != 0) {
        std::string message(std::min<uint32_t>(length, 4096), '\0');
        (void)RecvAllBy(
            fd->get(),
            std::span<uint8_t>(reinterpret_cast<uint8_t*>(message.data()), message.size()),
            deadline);
        return Status(static_cast<StatusCode>(header[0]), message);
      }
      connection_ = std::move(fd).value();
      return OkStatus();
    }
    if (SocketClock::now() >= deadline) {
      return DeadlineExceededError("rendezvous '" + spec() + "': rank " + std::to_string(rank()) +
                                   " could not reach rank 0 within " +
                                   std::to_string(timeout().count()) +
                                   " ms (last error: " + last_error + "; ranks not arrived: 0)");
    }
    std::this_thread::sleep_for(
        std::min<SocketClock::duration>(backoff, deadline - SocketClock::now()));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(200));
  }
}

Result<std::vector<uint8_t>> TcpRendezvous::Request(char op, std::string_view key,
                                                    std::span<const uint8_t> value,
                                                    SocketClock::time_point deadline) {
  std::lock_guard<std::mutex> lock(client_mutex_);
  KILN_RETURN_IF_ERROR(Connect(SocketClock::now() + timeout()));
  const std::vector<uint8_t> frame = Frame(static_cast<uint8_t>(op), key, value);
  uint8_t header[kResponseHeader];
  Status io = SendAllBy(connection_.get(), frame, deadline);
  if (io.ok()) io = RecvAllBy(connection_.get(), header, deadline);
  std::vector<uint8_t> payload;
  if (io.ok()) {
    const uint32_t length = GetU32(header + 1);
    if (length > kMaxValue + kMaxKey) {
      io = DataLossError("an answer of " + std::to_string(length) + " bytes");
    } else {
      payload.resize(length);
      io = RecvAllBy(connection_.get(), payload, deadline);
    }
  }
  if (!io.ok()) {
    // Out of step with rank 0 (or it is gone): the next request reconnects.
    connection_.reset();
    return Status(io.code(), "rendezvous '" + spec() + "': key '" + std::string(key) +
                                 "': no answer from rank 0 (" + io.message() + "; has it exited?)");
  }
  if (header[0] != 0) {
    return Status(static_cast<StatusCode>(header[0]), std::string(payload.begin(), payload.end()));
  }
  return payload;
}

Status TcpRendezvous::Set(std::string_view key, std::span<const uint8_t> value) {
  if (key.empty() || key.size() > kMaxKey || value.size() > kMaxValue) {
    return InvalidArgumentError("rendezvous '" + spec() + "': key '" + std::string(key) +
                                "': keys are 1 to 4096 bytes and values at most 16 MiB");
  }
  if (server_) return server_->Set(key, value);
  return Request('S', key, value, SocketClock::now() + timeout()).status();
}

Result<std::vector<uint8_t>> TcpRendezvous::Get(std::string_view key) {
  if (key.empty() || key.size() > kMaxKey) {
    return InvalidArgumentError("rendezvous '" + spec() + "': key '" + std::string(key) +
                                "': keys are 1 to 4096 bytes");
  }
  if (server_) return server_->Get(key, timeout());
  std::vector<uint8_t> timeout_ms;
  PutU64(timeout_ms, static_cast<uint64_t>(timeout().count()));
  return Request('G', key, timeout_ms, SocketClock::now() + timeout() + kAnswerGrace);
}

}  // namespace kiln::hal::utils
