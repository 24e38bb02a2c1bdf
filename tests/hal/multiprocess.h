// Helpers for the tests of collectives: running the ranks of a group as
// forked child processes, and scratch directories and ports for their
// rendezvous.
//
// A child runs its rank's body and reports through its exit code (0: the
// body returned "" and, in sanitizer builds, leaked nothing) and its stderr
// (what went wrong). The parent collects
// both, and kills children that outlive the limit, so a hang is a failed
// test, never a stuck one. Fork before making any device or thread in the
// parent: a child gets only the forking thread.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define KILN_TEST_LEAK_CHECK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_TEST_LEAK_CHECK 1
#endif
#endif
#ifdef KILN_TEST_LEAK_CHECK
#include <sanitizer/lsan_interface.h>
#endif

namespace kiln::hal::testing {

struct ChildOutcome {
  int rank = 0;
  int exit_code = -1;  // -1 when killed by a signal.
  int signal = 0;
  bool killed_for_time = false;
  std::string output;  // What the child wrote to stderr.

  bool ok() const { return exit_code == 0 && !killed_for_time; }
  std::string Describe() const {
    std::string text = "rank " + std::to_string(rank) + ": ";
    if (killed_for_time) {
      text += "still running at the time limit (killed)";
    } else if (exit_code >= 0) {
      text += "exit code " + std::to_string(exit_code);
    } else {
      text += "killed by signal " + std::to_string(signal);
    }
    return text + (output.empty() ? "" : "\n" + output);
  }
};

// Runs `body(rank)` in `count` forked children at once. A body returns ""
// on success or what went wrong.
inline std::vector<ChildOutcome> RunRanks(
    int count, const std::function<std::string(int rank)>& body,
    std::chrono::milliseconds limit = std::chrono::seconds(25)) {
  std::vector<ChildOutcome> outcomes(static_cast<size_t>(count));
  std::vector<pid_t> pids(static_cast<size_t>(count), -1);
  std::vector<int> pipes(static_cast<size_t>(count), -1);
  std::fflush(nullptr);
  for (int rank = 0; rank < count; ++rank) {
    outcomes[static_cast<size_t>(rank)].rank = rank;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe: " << std::strerror(errno);
      break;
    }
    const pid_t pid = fork();
    if (pid < 0) {
      ADD_FAILURE() << "fork: " << std::strerror(errno);
      close(fds[0]);
      close(fds[1]);
      break;
    }
    if (pid == 0) {
      close(fds[0]);
      dup2(fds[1], STDERR_FILENO);
      std::string failure = body(rank);
#ifdef KILN_TEST_LEAK_CHECK
      // _exit skips LeakSanitizer's check at exit: run it here, when the
      // body's objects are gone. (A body that _exits itself, as a crash
      // would, is not checked.)
      if (failure.empty() && __lsan_do_recoverable_leak_check() != 0) {
        failure = "LeakSanitizer found leaks (reported above)";
      }
#endif
      if (!failure.empty()) {
        failure = "rank " + std::to_string(rank) + ": " + failure + "\n";
        (void)!write(STDERR_FILENO, failure.data(), failure.size());
      }
      // _exit: no atexit handlers (gtest's), no second flush of the
      // parent's buffers.
      _exit(failure.empty() ? 0 : 1);
    }
    close(fds[1]);
    pids[static_cast<size_t>(rank)] = pid;
    pipes[static_cast<size_t>(rank)] = fds[0];
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  // Read every child's stderr until it closes (the child exits) or the
  // time is up.
  while (true) {
    std::vector<pollfd> fds;
    std::vector<size_t> which;
    for (size_t i = 0; i < pipes.size(); ++i) {
      if (pipes[i] < 0) continue;
      fds.push_back({pipes[i], POLLIN, 0});
      which.push_back(i);
    }
    if (fds.empty()) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    if (poll(fds.data(), fds.size(), static_cast<int>(left.count())) <= 0) continue;
    for (size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents == 0) continue;
      char buffer[4096];
      const ssize_t n = read(fds[k].fd, buffer, sizeof(buffer));
      if (n > 0) {
        outcomes[which[k]].output.append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(pipes[which[k]]);
        pipes[which[k]] = -1;
      }
    }
  }
  for (size_t i = 0; i < pids.size(); ++i) {
    if (pipes[i] >= 0) close(pipes[i]);
    if (pids[i] < 0) continue;
    int status = 0;
    pid_t done = waitpid(pids[i], &status, WNOHANG);
    // A child that closed stderr has exited or is about to: give it until
    // the deadline, then kill it.
    while (done == 0 && std::chrono::steady_clock::now() < deadline) {
      usleep(1000);
      done = waitpid(pids[i], &status, WNOHANG);
    }
    if (done == 0) {
      kill(pids[i], SIGKILL);
      waitpid(pids[i], &status, 0);
      outcomes[i].killed_for_time = true;
    }
    if (WIFEXITED(status)) {
      outcomes[i].exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      outcomes[i].signal = WTERMSIG(status);
    }
  }
  return outcomes;
}

// Checks inside a child's body, which reports by returning a message.
#define CHILD_CHECK(condition, what) \
  if (!(condition)) return std::string(what)
#define CHILD_ASSIGN(lhs, expr)                                    \
  auto lhs##_result = (expr);                                      \
  if (!lhs##_result.ok()) return lhs##_result.status().ToString(); \
  auto lhs = std::move(lhs##_result).value()
#define CHILD_OK(expr)                                        \
  do {                                                        \
    ::kiln::Status child_status_ = (expr);                    \
    if (!child_status_.ok()) return child_status_.ToString(); \
  } while (false)

// Expects every rank to have succeeded, showing what each one said.
#define KILN_EXPECT_RANKS_OK(outcomes)                           \
  for (const auto& kiln_outcome_ : (outcomes)) {                 \
    EXPECT_TRUE(kiln_outcome_.ok()) << kiln_outcome_.Describe(); \
  }

// A fresh empty directory, removed with its contents when destroyed.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kiln-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
    EXPECT_FALSE(path_.empty()) << "mkdtemp: " << std::strerror(errno);
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A TCP port that nothing listens on right now (the kernel's pick; another
// process could take it before the test does, which is unlikely).
inline int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace kiln::hal::testing
