// Intrusive, atomically reference-counted objects.
//
// RefObject is the base of every object the VM can hold in a ref register, a
// list or a global (byte buffers, lists, HAL buffers, ...). Ref<T> is the
// owning smart pointer: copying retains, destruction releases, and the object
// deletes itself when the last reference goes. Counts are atomic so refs may
// cross threads (a context on one thread, results read on another).
//
// The count lives in the object (not in a control block as with shared_ptr),
// which lets the interpreter store refs as plain pointers and adopt/release
// them without allocation.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace kiln {

class RefObject {
 public:
  RefObject() = default;
  RefObject(const RefObject&) = delete;
  RefObject& operator=(const RefObject&) = delete;

  void Retain() const { ref_count_.fetch_add(1, std::memory_order_relaxed); }
  void Release() const {
    if (ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  int32_t ref_count() const { return ref_count_.load(std::memory_order_relaxed); }

 protected:
  virtual ~RefObject() = default;

 private:
  mutable std::atomic<int32_t> ref_count_{1};  // New objects start owned by their creator.
};

// Owning pointer to a RefObject subclass.
template <typename T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}  // NOLINT
  // Retains `ptr` (the caller keeps its own reference).
  explicit Ref(T* ptr) : ptr_(ptr) {
    if (ptr_) ptr_->Retain();
  }
  Ref(const Ref& other) : ptr_(other.ptr_) {
    if (ptr_) ptr_->Retain();
  }
  Ref(Ref&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  Ref(const Ref<U>& other) : ptr_(other.get()) {  // NOLINT: upcast.
    if (ptr_) ptr_->Retain();
  }
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  Ref(Ref<U>&& other) : ptr_(other.Detach()) {}  // NOLINT: upcast.
  ~Ref() {
    if (ptr_) ptr_->Release();
  }

  Ref& operator=(Ref other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }

  // Takes over a reference the caller already owns (no retain).
  static Ref Adopt(T* ptr) {
    Ref ref;
    ref.ptr_ = ptr;
    return ref;
  }
  // Gives up ownership without releasing; the caller now owns the reference.
  T* Detach() { return std::exchange(ptr_, nullptr); }

  T* get() const { return ptr_; }
  T* operator->() const { return ptr_; }
  T& operator*() const { return *ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }
  bool operator==(const Ref& other) const { return ptr_ == other.ptr_; }
  bool operator==(std::nullptr_t) const { return ptr_ == nullptr; }

 private:
  T* ptr_ = nullptr;
};

// Creates a new T and adopts its initial reference.
template <typename T, typename... Args>
Ref<T> MakeRef(Args&&... args) {
  return Ref<T>::Adopt(new T(std::forward<Args>(args)...));
}

}  // namespace kiln
