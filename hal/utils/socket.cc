#include "hal/utils/socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <random>

namespace kiln::hal::utils {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

std::string ErrnoMessage(int error) {
  char buffer[256];
  // The GNU strerror_r returns the message (possibly a static string).
  const char* message = strerror_r(error, buffer, sizeof(buffer));
  return message;
}

int PollTimeoutMs(SocketClock::time_point deadline) {
  const auto left = deadline - SocketClock::now();
  if (left <= SocketClock::duration::zero()) return 0;
  // Rounded up, so a wait never ends just before its deadline and spins.
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return ms > 60'000 ? 60'000 : static_cast<int>(ms);
}

Result<HostPort> ParseHostPort(std::string_view text, std::string_view what) {
  auto error = [&](std::string_view why) {
    // Appended piecewise: GCC 12 warns (-Wrestrict, falsely) on "'" + string.
    std::string message = "'";
    message.append(what).append("': ").append(why);
    return InvalidArgumentError(std::move(message));
  };
  HostPort result;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return error("an IPv6 address without its closing ']'");
    result.host = std::string(text.substr(1, close - 1));
    std::string_view rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') return error("no port (expected [HOST]:PORT)");
    port_text = rest.substr(1);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return error("no port (expected HOST:PORT)");
    result.host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
    if (result.host.find(':') != std::string::npos) {
      return error("an IPv6 address must be written in brackets ([::1]:PORT)");
    }
  }
  if (result.host.empty()) return error("no host (expected HOST:PORT)");
  if (port_text.empty()) return error("no port (expected HOST:PORT)");
  uint32_t port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 ||
      port > 65535) {
    return error("port '" + std::string(port_text) + "' is not a number in 1..65535");
  }
  result.port = static_cast<uint16_t>(port);
  return result;
}

std::string SocketAddress::NumericHost() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (family() == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&storage);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
  } else if (family() == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&storage);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
  }
  return text;
}

uint16_t SocketAddress::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
  if (family() == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  }
  return 0;
}

std::string SocketAddress::ToString() const {
  if (family() == AF_UNIX) {
    const auto* un = reinterpret_cast<const sockaddr_un*>(&storage);
    const size_t path_length = length - offsetof(sockaddr_un, sun_path);
    if (path_length > 0 && un->sun_path[0] == '\0') {
      return "unix:@" + std::string(un->sun_path + 1, path_length - 1);
    }
    return "unix:" + std::string(un->sun_path);
  }
  const std::string host = NumericHost();
  return (family() == AF_INET6 ? "[" + host + "]" : host) + ":" + std::to_string(port());
}

Result<std::vector<SocketAddress>> ResolveAddresses(const HostPort& host_port,
                                                    std::string_view what) {
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* list = nullptr;
  const std::string port = std::to_string(host_port.port);
  const int error = getaddrinfo(host_port.host.c_str(), port.c_str(), &hints, &list);
  if (error != 0) {
    return InvalidArgumentError("'" + std::string(what) + "': cannot resolve host '" +
                                host_port.host + "' (" + gai_strerror(error) + ")");
  }
  std::vector<SocketAddress> addresses;
  for (addrinfo* info = list; info != nullptr; info = info->ai_next) {
    if (info->ai_addrlen > sizeof(sockaddr_storage)) continue;
    SocketAddress address;
    std::memcpy(&address.storage, info->ai_addr, info->ai_addrlen);
    address.length = info->ai_addrlen;
    addresses.push_back(address);
  }
  freeaddrinfo(list);
  if (addresses.empty()) {
    return InvalidArgumentError("'" + std::string(what) + "': host '" + host_port.host +
                                "' has no IPv4 or IPv6 address");
  }
  return addresses;
}

Result<SocketAddress> NumericAddress(std::string_view host, uint16_t port) {
  SocketAddress address;
  const std::string text(host);
  auto* in = reinterpret_cast<sockaddr_in*>(&address.storage);
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&address.storage);
  if (inet_pton(AF_INET, text.c_str(), &in->sin_addr) == 1) {
    in->sin_family = AF_INET;
    in->sin_port = htons(port);
    address.length = sizeof(sockaddr_in);
    return address;
  }
  if (inet_pton(AF_INET6, text.c_str(), &in6->sin6_addr) == 1) {
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(port);
    address.length = sizeof(sockaddr_in6);
    return address;
  }
  return InvalidArgumentError("'" + text + "' is not a numeric IPv4 or IPv6 address");
}

Result<SocketAddress> AbstractUnixAddress(std::string_view name) {
  SocketAddress address;
  auto* un = reinterpret_cast<sockaddr_un*>(&address.storage);
  if (name.empty() || name.size() + 1 > sizeof(un->sun_path)) {
    return InvalidArgumentError("abstract socket name '" + std::string(name) +
                                "' is empty or longer than " +
                                std::to_string(sizeof(un->sun_path) - 1) + " bytes");
  }
  un->sun_family = AF_UNIX;
  un->sun_path[0] = '\0';
  std::memcpy(un->sun_path + 1, name.data(), name.size());
  address.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return address;
}

Result<SocketAddress> LocalAddress(int fd) {
  SocketAddress address;
  address.length = sizeof(address.storage);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address.storage), &address.length) != 0) {
    return UnavailableError("getsockname: " + ErrnoMessage(errno));
  }
  return address;
}

Result<SocketAddress> SourceAddressToward(const SocketAddress& remote) {
  UniqueFd fd(socket(remote.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return UnavailableError("socket: " + ErrnoMessage(errno));
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&remote.storage), remote.length) != 0) {
    return UnavailableError("no route to " + remote.ToString() + ": " + ErrnoMessage(errno));
  }
  return LocalAddress(fd.get());
}

namespace {

bool IsIp(int family) { return family == AF_INET || family == AF_INET6; }

// Waits for `events` on `fd` until `deadline`; DEADLINE_EXCEEDED when it
// passes first.
Status WaitFor(int fd, short events, SocketClock::time_point deadline, const char* what) {
  while (true) {
    pollfd entry = {fd, events, 0};
    const int ready = poll(&entry, 1, PollTimeoutMs(deadline));
    if (ready > 0) return OkStatus();
    if (ready < 0 && errno != EINTR)
      return UnavailableError(std::string("poll: ") + ErrnoMessage(errno));
    if (ready == 0 && SocketClock::now() >= deadline) {
      return DeadlineExceededError(std::string("timed out ") + what);
    }
  }
}

}  // namespace

Result<UniqueFd> ListenOn(const SocketAddress& address, int backlog) {
  UniqueFd fd(socket(address.family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return UnavailableError("socket: " + ErrnoMessage(errno));
  if (IsIp(address.family())) {
    const int one = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  }
  if (address.family() == AF_INET6) {
    // The wildcard takes IPv4 connections too (mapped addresses).
    const int zero = 0;
    setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
  }
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&address.storage), address.length) != 0) {
    return UnavailableError("cannot listen on " + address.ToString() + ": " + ErrnoMessage(errno));
  }
  if (listen(fd.get(), backlog) != 0) {
    return UnavailableError("listen on " + address.ToString() + ": " + ErrnoMessage(errno));
  }
  return fd;
}

Result<UniqueFd> AcceptBy(int listen_fd, SocketClock::time_point deadline) {
  while (true) {
    const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      UniqueFd accepted(fd);
      sockaddr_storage local = {};
      socklen_t length = sizeof(local);
      if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0 &&
          IsIp(local.ss_family)) {
        const int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      }
      return accepted;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return UnavailableError("accept: " + ErrnoMessage(errno));
    }
    KILN_RETURN_IF_ERROR(WaitFor(listen_fd, POLLIN, deadline, "waiting for a connection"));
  }
}

Result<UniqueFd> ConnectBy(const SocketAddress& address, SocketClock::time_point deadline) {
  UniqueFd fd(socket(address.family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return UnavailableError("socket: " + ErrnoMessage(errno));
  if (IsIp(address.family())) {
    const int one = 1;
    setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&address.storage), address.length) == 0) {
    return fd;
  }
  if (errno != EINPROGRESS && errno != EINTR) {
    return UnavailableError("cannot connect to " + address.ToString() + ": " + ErrnoMessage(errno));
  }
  KILN_RETURN_IF_ERROR(WaitFor(fd.get(), POLLOUT, deadline, "connecting"));
  int error = 0;
  socklen_t length = sizeof(error);
  getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length);
  if (error != 0) {
    return UnavailableError("cannot connect to " + address.ToString() + ": " + ErrnoMessage(error));
  }
  return fd;
}

Status SendAllBy(int fd, std::span<const uint8_t> bytes, SocketClock::time_point deadline) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      KILN_RETURN_IF_ERROR(WaitFor(fd, POLLOUT, deadline, "sending"));
      continue;
    }
    if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
      return UnavailableError("the connection was closed");
    }
    return UnavailableError("send: " + ErrnoMessage(errno));
  }
  return OkStatus();
}

Status RecvAllBy(int fd, std::span<uint8_t> bytes, SocketClock::time_point deadline) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = recv(fd, bytes.data() + done, bytes.size() - done, 0);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return UnavailableError("the connection was closed");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      KILN_RETURN_IF_ERROR(WaitFor(fd, POLLIN, deadline, "receiving"));
      continue;
    }
    if (errno == ECONNRESET) return UnavailableError("the connection was closed");
    return UnavailableError("recv: " + ErrnoMessage(errno));
  }
  return OkStatus();
}

void PutU32(std::vector<uint8_t>& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}
void PutU64(std::vector<uint8_t>& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}
uint32_t GetU32(const uint8_t* bytes) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= static_cast<uint32_t>(bytes[i]) << (8 * i);
  return value;
}
uint64_t GetU64(const uint8_t* bytes) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  return value;
}

std::string RandomHex(size_t bytes) {
  // std::random_device reads the kernel's entropy (getrandom or
  // /dev/urandom): distinct across processes started at the same instant,
  // which a time-seeded generator is not.
  std::random_device device;
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(bytes * 2);
  uint32_t word = 0;
  for (size_t i = 0; i < bytes; ++i) {
    if (i % 4 == 0) word = device();
    const uint8_t byte = static_cast<uint8_t>(word >> (8 * (i % 4)));
    text.push_back(kDigits[byte >> 4]);
    text.push_back(kDigits[byte & 15]);
  }
  return text;
}

}  // namespace kiln::hal::utils
