#include "hal/utils/file_rendezvous.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "base/file_io.h"
#include "hal/utils/socket.h"

namespace kiln::hal::utils {
namespace {

using Clock = std::chrono::steady_clock;

// Polling starts fast (a value often arrives within a millisecond of being
// waited for) and backs off so that idle waiters cost little.
class Backoff {
 public:
  void Sleep() {
    std::this_thread::sleep_for(delay_);
    delay_ = std::min(delay_ * 2, kMaxDelay);
  }
  std::chrono::microseconds delay() const { return delay_; }
  void Grow() { delay_ = std::min(delay_ * 2, kMaxDelay); }
  void Reset() { delay_ = kMinDelay; }

 private:
  static constexpr std::chrono::microseconds kMinDelay{500};
  static constexpr std::chrono::microseconds kMaxDelay{20'000};
  std::chrono::microseconds delay_ = kMinDelay;
};

bool IsHexNonce(std::string_view text) {
  return !text.empty() && text.size() <= 64 && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// The whole file, or nullopt when it does not exist (or cannot be read:
// the caller polls again).
std::optional<std::string> ReadWholeFile(const std::string& path) {
  Result<AlignedBuffer> bytes = ReadFile(path);
  if (!bytes.ok()) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

// Writes `bytes` to `folder`/`name` at once: a temporary in the same
// folder (so rename does not cross filesystems), then rename, which
// replaces an existing file atomically. A reader sees the old file, the
// new one, or none; never part of one.
Status WriteAtomically(const std::string& folder, const std::string& name,
                       std::span<const uint8_t> bytes) {
  const std::string temporary = folder + "/.tmp." + RandomHex(8);
  if (Status written = WriteFile(temporary, bytes); !written.ok()) {
    unlink(temporary.c_str());
    return UnavailableError("rendezvous: " + written.message());
  }
  const std::string path = folder + "/" + name;
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    unlink(temporary.c_str());
    return UnavailableError("cannot rename " + temporary + " to " + path + ": " +
                            ErrnoMessage(error));
  }
  return OkStatus();
}

Status WriteAtomically(const std::string& folder, const std::string& name, std::string_view text) {
  return WriteAtomically(
      folder, name,
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

// mkdir -p; `created` tells whether the last component was made here.
Status MakeDirectories(const std::string& path, bool* created) {
  *created = false;
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    const bool made = !prefix.empty() && mkdir(prefix.c_str(), 0777) == 0;
    if (!made && !prefix.empty() && errno != EEXIST) {
      return UnavailableError("cannot create directory " + prefix + ": " + ErrnoMessage(errno));
    }
    if (slash == std::string::npos) {
      *created = made;
      break;
    }
  }
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return InvalidArgumentError("'" + path + "' is not a directory");
  }
  return OkStatus();
}

std::vector<std::string> ListDirectory(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  closedir(dir);
  return names;
}

// Removes a session folder (files only) and the folder.
void RemoveSessionFolder(const std::string& path) {
  for (const std::string& name : ListDirectory(path)) unlink((path + "/" + name).c_str());
  rmdir(path.c_str());
}

// A key as a file name: letters, digits, '-' and '_' stay; every other
// byte (including '/', '.', '%') becomes %XX, so no key names a folder,
// a hidden file or "..".
Result<std::string> KeyFileName(std::string_view key, const std::string& spec) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string name = "k.";
  for (char c : key) {
    const auto byte = static_cast<unsigned char>(c);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_') {
      name.push_back(c);
    } else {
      name.push_back('%');
      name.push_back(kDigits[byte >> 4]);
      name.push_back(kDigits[byte & 15]);
    }
  }
  if (key.empty() || name.size() > 200) {
    return InvalidArgumentError("rendezvous '" + spec + "': key '" + std::string(key) +
                                "' is empty or too long for a file name");
  }
  return name;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

FileRendezvous::FileRendezvous(std::string directory, int32_t rank, int32_t world_size,
                               std::chrono::milliseconds timeout)
    : Rendezvous(directory, rank, world_size, timeout), directory_(std::move(directory)) {}

Result<Ref<FileRendezvous>> FileRendezvous::Open(std::string_view directory, int32_t rank,
                                                 int32_t world_size,
                                                 std::chrono::milliseconds timeout) {
  std::string path(directory);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  Ref<FileRendezvous> rendezvous =
      Ref<FileRendezvous>::Adopt(new FileRendezvous(path, rank, world_size, timeout));
  bool created = false;
  Status made = MakeDirectories(path, &created);
  if (!made.ok()) return made.WithContext("rendezvous '" + std::string(directory) + "'");
  if (rank == 0) {
    rendezvous->created_directory_ = created;
    KILN_RETURN_IF_ERROR(rendezvous->StartSession());
  } else {
    KILN_RETURN_IF_ERROR(rendezvous->Join());
  }
  return rendezvous;
}

std::string FileRendezvous::Path(std::string_view name) const {
  return directory_ + "/" + std::string(name);
}

Status FileRendezvous::StartSession() {
  const std::string session = RandomHex();
  // What earlier runs left. The join file of a rank of this run that
  // started first may go too: it writes it again (Session).
  for (const std::string& name : ListDirectory(directory_)) {
    if (StartsWith(name, "session.")) {
      RemoveSessionFolder(Path(name));
    } else if (StartsWith(name, "welcome.") || StartsWith(name, "join.") ||
               StartsWith(name, ".tmp.")) {
      unlink(Path(name).c_str());
    }
  }
  if (mkdir(Path("session." + session).c_str(), 0777) != 0) {
    return UnavailableError("rendezvous '" + spec() + "': cannot create " +
                            Path("session." + session) + ": " + ErrnoMessage(errno));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    session_ = session;
    admitted_.assign(static_cast<size_t>(world_size()), std::string());
  }
  if (world_size() > 1) admitter_ = std::thread([this] { AdmitLoop(); });
  return OkStatus();
}

Status FileRendezvous::Join() {
  join_nonce_ = RandomHex();
  // Rank 0 may be clearing an earlier run's files right now and take the
  // temporary or the join file with them: try again (Session also
  // rewrites the join file while it waits).
  Status written;
  for (int attempt = 0; attempt < 5; ++attempt) {
    written = WriteAtomically(directory_, "join." + std::to_string(rank()), join_nonce_);
    if (written.ok()) return written;
  }
  return written.WithContext("rendezvous '" + spec() + "': rank " + std::to_string(rank()) +
                             " cannot register");
}

void FileRendezvous::AdmitLoop() {
  Backoff backoff;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    const std::string session = session_;
    std::vector<std::string> admitted = admitted_;
    lock.unlock();
    bool admitted_any = false;
    for (int32_t r = 1; r < world_size(); ++r) {
      std::optional<std::string> nonce = ReadWholeFile(Path("join." + std::to_string(r)));
      if (!nonce || !IsHexNonce(*nonce) || *nonce == admitted[static_cast<size_t>(r)]) continue;
      // A failed write is retried at the next poll (the join file stays).
      if (WriteAtomically(directory_, "welcome." + std::to_string(r), *nonce + " " + session)
              .ok()) {
        admitted[static_cast<size_t>(r)] = *nonce;
        admitted_any = true;
      }
    }
    lock.lock();
    admitted_ = admitted;
    if (admitted_any) backoff.Reset();
    stop_cv_.wait_for(lock, backoff.delay(), [this] { return stopping_; });
    backoff.Grow();
  }
}

FileRendezvous::~FileRendezvous() {
  if (rank() != 0) {
    // Not yet welcomed: the join file is ours to remove (if still ours).
    const std::string path = Path("join." + std::to_string(rank()));
    if (!join_nonce_.empty() && ReadWholeFile(path) == join_nonce_) unlink(path.c_str());
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (admitter_.joinable()) admitter_.join();
  if (session_.empty()) return;  // StartSession failed: nothing was written.
  RemoveSessionFolder(Path("session." + session_));
  for (int32_t r = 1; r < world_size(); ++r) {
    const std::string suffix = std::to_string(r);
    unlink(Path("welcome." + suffix).c_str());
    const std::string& nonce = admitted_[static_cast<size_t>(r)];
    const std::string join = Path("join." + suffix);
    if (!nonce.empty() && ReadWholeFile(join) == nonce) unlink(join.c_str());
  }
  if (created_directory_) rmdir(directory_.c_str());
}

Result<std::string> FileRendezvous::Session(Clock::time_point deadline, std::string_view key) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!session_.empty()) return session_;
  }
  const std::string suffix = std::to_string(rank());
  const std::string welcome_path = Path("welcome." + suffix);
  const std::string join_path = Path("join." + suffix);
  Backoff backoff;
  while (true) {
    if (std::optional<std::string> welcome = ReadWholeFile(welcome_path)) {
      const size_t space = welcome->find(' ');
      if (space != std::string::npos && welcome->substr(0, space) == join_nonce_) {
        const std::string session = welcome->substr(space + 1);
        if (IsHexNonce(session)) {
          // Welcomed: the join file has done its work.
          if (ReadWholeFile(join_path) == join_nonce_) unlink(join_path.c_str());
          std::lock_guard<std::mutex> lock(mutex_);
          session_ = session;
          return session_;
        }
      }
    }
    // Rank 0 clears earlier runs' join files when it starts, perhaps ours.
    if (ReadWholeFile(join_path) != join_nonce_) {
      (void)WriteAtomically(directory_, "join." + suffix, join_nonce_);
    }
    if (Clock::now() >= deadline) {
      return DeadlineExceededError("rendezvous '" + spec() + "': key '" + std::string(key) +
                                   "' not available within " + std::to_string(timeout().count()) +
                                   " ms: rank 0 has not answered rank " + suffix +
                                   "'s join (ranks not arrived: 0)");
    }
    backoff.Sleep();
  }
}

std::string FileRendezvous::DescribeArrivals(const std::string& session) {
  std::vector<int32_t> missing;
  if (rank() == 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int32_t r = 1; r < world_size(); ++r) {
      if (admitted_[static_cast<size_t>(r)].empty()) missing.push_back(r);
    }
  } else {
    for (int32_t r = 1; r < world_size(); ++r) {
      if (r == rank()) continue;
      std::optional<std::string> welcome = ReadWholeFile(Path("welcome." + std::to_string(r)));
      const std::string suffix = " " + session;
      if (!welcome || welcome->size() < suffix.size() ||
          welcome->compare(welcome->size() - suffix.size(), suffix.size(), suffix) != 0) {
        missing.push_back(r);
      }
    }
  }
  if (missing.empty()) return "every rank has arrived";
  std::string text = "ranks not arrived: ";
  for (size_t i = 0; i < missing.size(); ++i) {
    if (i != 0) text += ", ";
    text += std::to_string(missing[i]);
  }
  return text;
}

Status FileRendezvous::Set(std::string_view key, std::span<const uint8_t> value) {
  KILN_ASSIGN_OR_RETURN(std::string name, KeyFileName(key, spec()));
  KILN_ASSIGN_OR_RETURN(std::string session, Session(Clock::now() + timeout(), key));
  const std::string folder = Path("session." + session);
  if (access((folder + "/" + name).c_str(), F_OK) == 0) {
    return Status(StatusCode::kAlreadyExists, "rendezvous '" + spec() + "': key '" +
                                                  std::string(key) +
                                                  "' was set already (each key has one writer)");
  }
  Status written = WriteAtomically(folder, name, value);
  if (!written.ok()) {
    return written.WithContext("rendezvous '" + spec() + "': setting key '" + std::string(key) +
                               "' (has rank 0 ended the session?)");
  }
  return OkStatus();
}

Result<std::vector<uint8_t>> FileRendezvous::Get(std::string_view key) {
  const Clock::time_point deadline = Clock::now() + timeout();
  KILN_ASSIGN_OR_RETURN(std::string name, KeyFileName(key, spec()));
  KILN_ASSIGN_OR_RETURN(std::string session, Session(deadline, key));
  const std::string path = Path("session." + session + "/" + name);
  Backoff backoff;
  while (true) {
    if (std::optional<std::string> value = ReadWholeFile(path)) {
      return std::vector<uint8_t>(value->begin(), value->end());
    }
    if (Clock::now() >= deadline) {
      return DeadlineExceededError("rendezvous '" + spec() + "': key '" + std::string(key) +
                                   "' was not set within " + std::to_string(timeout().count()) +
                                   " ms (" + DescribeArrivals(session) + ")");
    }
    backoff.Sleep();
  }
}

}  // namespace kiln::hal::utils
