// Stream sockets for the processes of a collective group: what the TCP
// rendezvous (tcp_rendezvous.h) and the CPU driver's channel
// (hal/cpu/cpu_channel.h) share.
//
// Every socket here is non-blocking and every wait has a deadline, so a peer
// that never answers is an error (DEADLINE_EXCEEDED), never a hang; a peer
// that has gone away is UNAVAILABLE. Sends never raise SIGPIPE
// (MSG_NOSIGNAL). Messages say what failed in socket terms; callers add which
// peer, key or spec it was.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace kiln::hal::utils {

using SocketClock = std::chrono::steady_clock;

// An owned file descriptor, closed when destroyed.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// "HOST:PORT" or "[IPV6]:PORT" split into its parts.
struct HostPort {
  std::string host;  // Without brackets.
  uint16_t port = 0;
};

// Parses `text` ("HOST:PORT", "[IPV6]:PORT"; PORT in 1..65535). A missing or
// malformed port, an empty host or an unbracketed IPv6 address is
// INVALID_ARGUMENT naming `what` (the spec the text came from).
Result<HostPort> ParseHostPort(std::string_view text, std::string_view what);

// A socket address: IPv4, IPv6 or a Unix-domain (abstract) name.
struct SocketAddress {
  sockaddr_storage storage = {};
  socklen_t length = 0;

  int family() const { return storage.ss_family; }
  // "1.2.3.4:80", "[::1]:80", "unix:@name".
  std::string ToString() const;
  // The numeric host alone ("1.2.3.4", "::1"); empty for Unix addresses.
  std::string NumericHost() const;
  uint16_t port() const;
};

// The addresses `host_port` resolves to (getaddrinfo, IPv4 and IPv6, stream
// sockets). An unresolvable host is INVALID_ARGUMENT naming `what`.
Result<std::vector<SocketAddress>> ResolveAddresses(const HostPort& host_port,
                                                    std::string_view what);
// A numeric host ("10.0.0.1", "::1") and port; INVALID_ARGUMENT otherwise.
Result<SocketAddress> NumericAddress(std::string_view host, uint16_t port);
// A Linux abstract-namespace Unix address (no file, gone with its socket).
Result<SocketAddress> AbstractUnixAddress(std::string_view name);

// The local address of a socket (getsockname).
Result<SocketAddress> LocalAddress(int fd);
// The local address this host sends from to reach `remote` (a UDP socket
// connected there: no packet is sent, the routing table answers).
Result<SocketAddress> SourceAddressToward(const SocketAddress& remote);

// A non-blocking stream socket listening on `address` (port 0: any port).
// SO_REUSEADDR is set on IP sockets, so a restarted group can listen on a
// port its previous run left in TIME_WAIT. For the IPv6 wildcard address
// the socket also takes IPv4 connections.
Result<UniqueFd> ListenOn(const SocketAddress& address, int backlog);
// Accepts one connection by `deadline` (returned non-blocking).
Result<UniqueFd> AcceptBy(int listen_fd, SocketClock::time_point deadline);
// One attempt to connect to `address` by `deadline` (returned non-blocking,
// TCP_NODELAY on IP sockets). ECONNREFUSED and the like are UNAVAILABLE, so
// callers that retry can tell them from a deadline.
Result<UniqueFd> ConnectBy(const SocketAddress& address, SocketClock::time_point deadline);

// Writes every byte (or reads until `bytes` is full) by `deadline`. A closed
// connection is UNAVAILABLE ("the connection was closed"), the deadline
// DEADLINE_EXCEEDED.
Status SendAllBy(int fd, std::span<const uint8_t> bytes, SocketClock::time_point deadline);
Status RecvAllBy(int fd, std::span<uint8_t> bytes, SocketClock::time_point deadline);

// "Connection refused" for an errno value.
std::string ErrnoMessage(int error);

// Milliseconds left until `deadline` (0 when past), for poll().
int PollTimeoutMs(SocketClock::time_point deadline);

// Little-endian encoding of the wire formats' integers.
void PutU32(std::vector<uint8_t>& out, uint32_t value);
void PutU64(std::vector<uint8_t>& out, uint64_t value);
uint32_t GetU32(const uint8_t* bytes);
uint64_t GetU64(const uint8_t* bytes);

// 128 random bits as 32 hex digits (the rendezvous' nonces, the channel's
// socket names and tokens).
std::string RandomHex(size_t bytes = 16);

}  // namespace kiln::hal::utils
