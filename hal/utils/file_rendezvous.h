// FileRendezvous: the rendezvous (hal/rendezvous.h) of a directory that
// every participant reaches (one host, or a shared filesystem).
//
// Each key is one file, written atomically (a temporary file in the same
// directory, then rename) and read by polling, so a reader sees a whole
// value or none. A directory serves one group at a time; it is created if
// missing.
//
// Telling this run from an earlier one. A run that crashed leaves its files
// behind, and the ranks of the next run start in any order: a rank that
// starts before the new rank 0 must not take the old run's files for the
// new run's. So every key lives under a session that rank 0 starts, and a
// rank trusts a session only when rank 0 has answered a nonce the rank made
// itself, after it started:
//
//   join.<r>          rank r > 0 writes a fresh random join nonce J_r when it
//                     opens (replacing an old run's file of the same name);
//   welcome.<r>       rank 0 answers "J_r S": the join nonce it read and its
//                     own fresh session nonce S;
//   session.<S>/k.<key>  the keys of session S (key bytes escaped).
//
// Rank 0, when it opens, makes S, removes what earlier runs left (their
// session folders, welcome and join files, temporaries) and then, on a
// thread that lives as long as its Rendezvous, keeps answering the join
// files it finds. Rank r > 0 takes S from welcome.<r> only when the file
// names its own J_r: an old run's welcome names an old nonce, and no old
// rank 0 can answer a nonce made after it ended. Rank 0's clean-up may
// remove the join file of a rank that started before it; that rank writes
// it again while it waits for its welcome, and removes it once welcomed.
// No clocks are compared, so hosts with skewed clocks on a shared
// filesystem agree too.
//
// A rank r > 0 learns S in its first Set or Get (Open only writes its join
// file), so those wait for rank 0 as long as the timeout allows. When rank
// 0's Rendezvous is destroyed it removes the session folder, the welcome
// files, the join files it answered that are still there, and the
// directory itself if it created it. Participants must therefore be done
// with the keys before rank 0 drops its Rendezvous (the CPU channel ends
// its creation with a barrier over its sockets for this reason).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/rendezvous.h"

namespace kiln::hal::utils {

class FileRendezvous final : public Rendezvous {
 public:
  // Called by Rendezvous::Open, which has checked rank and world size.
  static Result<Ref<FileRendezvous>> Open(std::string_view directory, int32_t rank,
                                          int32_t world_size, std::chrono::milliseconds timeout);
  ~FileRendezvous() override;

  Status Set(std::string_view key, std::span<const uint8_t> value) override;
  Result<std::vector<uint8_t>> Get(std::string_view key) override;

 private:
  FileRendezvous(std::string directory, int32_t rank, int32_t world_size,
                 std::chrono::milliseconds timeout);
  Status StartSession();  // Rank 0.
  Status Join();          // Ranks > 0.
  // The session nonce: rank 0's own; other ranks wait for their welcome
  // until `deadline`.
  Result<std::string> Session(std::chrono::steady_clock::time_point deadline, std::string_view key);
  // Rank 0's thread: answers join files until the Rendezvous is destroyed.
  void AdmitLoop();
  // "ranks not arrived: 1, 3" or "every rank has arrived".
  std::string DescribeArrivals(const std::string& session);
  std::string Path(std::string_view name) const;

  const std::string directory_;
  bool created_directory_ = false;  // Rank 0: whether Open made it.
  std::string join_nonce_;          // Ranks > 0.

  std::mutex mutex_;
  std::string session_;  // Guarded by mutex_ (known: rank 0 at open, others once welcomed).
  // Rank 0: the join nonce answered for each rank ("" when none yet).
  std::vector<std::string> admitted_;  // Guarded by mutex_.
  bool stopping_ = false;              // Guarded by mutex_.
  std::condition_variable stop_cv_;
  std::thread admitter_;  // Rank 0 of a group of several.
};

}  // namespace kiln::hal::utils
