#include "hal/cpu/onednn_call.h"

#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace kiln::hal::cpu {

namespace {

// Memory oneDNN sees as its own (the scratchpad, an addend copied aside):
// 64-byte aligned, like every host buffer.
struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<void, AlignedFree>;

AlignedBytes AllocateAligned(size_t bytes) {
  const size_t rounded = (bytes + 63) / 64 * 64;
  return AlignedBytes(std::aligned_alloc(64, rounded == 0 ? 64 : rounded));
}

// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte.
bool Overlap(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  const auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}

// What oneDNN refuses at load is a limit of the library for a validated
// call: the export runs its kernel (UNIMPLEMENTED), never a load error.
Status AsUnimplemented(Status status) {
  if (status.ok() || status.code() != StatusCode::kInvalidArgument) return status;
  return UnimplementedError(status.message());
}

class OnednnCall final : public CpuLibraryCall {
 public:
  OnednnCall(Ref<OnednnLibrary> library, OnednnCallParams params)
      : library_(std::move(library)), params_(std::move(params)) {}
  ~OnednnCall() override {
    const OnednnSymbols& s = library_->symbols();
    for (dnnl_memory_t memory : memories_) {
      if (memory != nullptr) s.dnnl_memory_destroy(memory);
    }
    for (const std::unique_ptr<Reordered>& r : reordered_) {
      if (!r) continue;
      if (r->reorder != nullptr) s.dnnl_primitive_destroy(r->reorder);
      if (r->plain != nullptr) s.dnnl_memory_destroy(r->plain);
    }
    if (init_reorder_ != nullptr) s.dnnl_primitive_destroy(init_reorder_);
    if (init_memory_ != nullptr) s.dnnl_memory_destroy(init_memory_);
    if (scratchpad_memory_ != nullptr) s.dnnl_memory_destroy(scratchpad_memory_);
    if (primitive_ != nullptr) s.dnnl_primitive_destroy(primitive_);
    if (stream_ != nullptr) s.dnnl_stream_destroy(stream_);
  }

  const std::string& description() const override { return description_; }
  uint64_t RequiredBytes(uint32_t binding) const override {
    return binding < params_.required.size() ? params_.required[binding] : 0;
  }
  Status Execute(std::span<void* const> bindings, std::span<const size_t> lengths) const override;

  Status Initialize();

 private:
  // An operand the primitive holds in a layout of its choosing
  // (OnednnOperand::chosen) other than its binding's.
  struct Reordered {
    // Binding -> chosen (an input), chosen -> binding (the result).
    dnnl_primitive_t reorder = nullptr;
    dnnl_memory_t plain = nullptr;  // The binding's layout; its handle set per run.
    size_t bytes = 0;               // Of the chosen layout.
    AlignedBytes buffer;            // The operand in the chosen layout (not constants).
    // Constants: the reordered copy of each address the call was given.
    std::unordered_map<const void*, AlignedBytes> copies;
  };

  // Sets up the reorders of operand `i` once the primitive chose `chosen`.
  Status PrepareReorder(size_t i, const dnnl_memory_desc_t& chosen);
  // A reorder primitive from layout `from` to `to` into *reorder.
  Status CreateReorder(const dnnl_memory_desc_t& from, const dnnl_memory_desc_t& to,
                       dnnl_primitive_t* reorder, const std::string& what);
  // Runs `reorder` from `from` to `to`.
  Status RunReorder(dnnl_primitive_t reorder, dnnl_memory_t from, dnnl_memory_t to) const;

  Ref<OnednnLibrary> library_;
  OnednnCallParams params_;
  std::string description_;
  dnnl_primitive_t primitive_ = nullptr;
  dnnl_stream_t stream_ = nullptr;
  std::vector<dnnl_memory_t> memories_;  // One per operand.
  size_t addend_bytes_ = 0;
  AlignedBytes scratchpad_;
  dnnl_memory_t scratchpad_memory_ = nullptr;

  // One per operand: null where the primitive reads or writes the binding
  // itself. (Their constant copies are filled in during executions.)
  std::vector<std::unique_ptr<Reordered>> reordered_;
  // Where result_init's layout is not the result memory's: the reorder from
  // one to the other, and a memory of result_init's binding (its handle set
  // per run). Null where the bytes are copied as they are.
  dnnl_primitive_t init_reorder_ = nullptr;
  dnnl_memory_t init_memory_ = nullptr;
  size_t result_bytes_ = 0;  // Of the result's memory (its chosen layout or its binding's).

  mutable std::mutex mutex_;  // Serializes executions (stream, memories, scratchpad).
  mutable std::vector<dnnl_exec_arg_t> args_;
  mutable AlignedBytes addend_copy_;  // Allocated at the first overlapping execution.
};

Status OnednnCall::Initialize() {
  const OnednnSymbols& s = library_->symbols();
  const std::string& d = params_.description;
  description_ = "oneDNN " + d;
  OnednnLibrary::ThreadScope threads(*library_);

  dnnl_post_ops_t post_ops = nullptr;
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  auto build = [&]() -> Status {
    KILN_RETURN_IF_ERROR(s.Check(s.dnnl_post_ops_create(&post_ops), d + ": dnnl_post_ops_create"));
    for (const OnednnPostOp& op : params_.post_ops) {
      switch (op.kind) {
        case OnednnPostOp::kSum:
          KILN_RETURN_IF_ERROR(s.Check(s.dnnl_post_ops_append_sum(post_ops, 1.0f),
                                       d + ": dnnl_post_ops_append_sum"));
          break;
        case OnednnPostOp::kBinaryAdd:
          KILN_RETURN_IF_ERROR(
              s.Check(s.dnnl_post_ops_append_binary(post_ops, dnnl_binary_add, &op.src1),
                      d + ": dnnl_post_ops_append_binary"));
          break;
        case OnednnPostOp::kEltwise:
          KILN_RETURN_IF_ERROR(
              s.Check(s.dnnl_post_ops_append_eltwise(post_ops, 1.0f, op.eltwise, 0.0f, 0.0f),
                      d + ": dnnl_post_ops_append_eltwise"));
          break;
      }
    }
    KILN_RETURN_IF_ERROR(
        s.Check(s.dnnl_primitive_attr_create(&attr), d + ": dnnl_primitive_attr_create"));
    KILN_RETURN_IF_ERROR(
        s.Check(s.dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user),
                d + ": dnnl_primitive_attr_set_scratchpad_mode"));
    KILN_RETURN_IF_ERROR(s.Check(s.dnnl_primitive_attr_set_post_ops(attr, post_ops),
                                 d + ": dnnl_primitive_attr_set_post_ops"));
    KILN_RETURN_IF_ERROR(s.Check(
        s.dnnl_primitive_desc_create(&pd, params_.op_desc, attr, library_->engine(), nullptr),
        d + ": dnnl_primitive_desc_create"));
    const char* impl = nullptr;
    if (s.dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success &&
        impl != nullptr) {
      description_ += std::string(" (") + impl + ")";
    }
    // The scratchpad: allocated once, here, and reused by every execution.
    const dnnl_memory_desc_t* scratchpad_md =
        s.dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    const size_t scratchpad_bytes =
        scratchpad_md != nullptr ? s.dnnl_memory_desc_get_size(scratchpad_md) : 0;
    if (scratchpad_bytes > 0) {
      scratchpad_ = AllocateAligned(scratchpad_bytes);
      if (!scratchpad_) {
        return ResourceExhaustedError(d + ": allocating the " + std::to_string(scratchpad_bytes) +
                                      "-byte scratchpad");
      }
      KILN_RETURN_IF_ERROR(s.Check(s.dnnl_memory_create(&scratchpad_memory_, scratchpad_md,
                                                        library_->engine(), scratchpad_.get()),
                                   d + ": dnnl_memory_create (scratchpad)"));
    }
    KILN_RETURN_IF_ERROR(
        s.Check(s.dnnl_primitive_create(&primitive_, pd), d + ": dnnl_primitive_create"));
    KILN_RETURN_IF_ERROR(
        s.Check(s.dnnl_stream_create(&stream_, library_->engine(), dnnl_stream_default_flags),
                d + ": dnnl_stream_create"));
    memories_.assign(params_.operands.size(), nullptr);
    reordered_.resize(params_.operands.size());
    dnnl_memory_desc_t result_md = {};  // The layout the primitive writes.
    for (size_t i = 0; i < params_.operands.size(); ++i) {
      const OnednnOperand& operand = params_.operands[i];
      const dnnl_memory_desc_t* desc = &operand.desc;
      if (operand.chosen != dnnl_query_undef) {
        desc = s.dnnl_primitive_desc_query_md(pd, operand.chosen, 0);
        if (desc == nullptr) return InternalError(d + ": the primitive has no chosen layout");
        if (!s.dnnl_memory_desc_equal(desc, &operand.desc)) {
          KILN_RETURN_IF_ERROR(PrepareReorder(i, *desc));
        }
      }
      KILN_RETURN_IF_ERROR(
          s.Check(s.dnnl_memory_create(&memories_[i], desc, library_->engine(), DNNL_MEMORY_NONE),
                  d + ": dnnl_memory_create"));
      if (static_cast<int>(i) == params_.result) result_md = *desc;
    }
    // The result starts from result_init's contents: reordered where the
    // two layouts differ, else copied.
    result_bytes_ = s.dnnl_memory_desc_get_size(&result_md);
    if (params_.result_init >= 0 &&
        !s.dnnl_memory_desc_equal(&params_.result_init_desc, &result_md)) {
      KILN_RETURN_IF_ERROR(
          CreateReorder(params_.result_init_desc, result_md, &init_reorder_, "addend"));
      KILN_RETURN_IF_ERROR(s.Check(s.dnnl_memory_create(&init_memory_, &params_.result_init_desc,
                                                        library_->engine(), DNNL_MEMORY_NONE),
                                   d + ": dnnl_memory_create (addend)"));
    }
    if (params_.addend >= 0) {
      addend_bytes_ = s.dnnl_memory_desc_get_size(&params_.operands[params_.addend].desc);
    }
    for (size_t i = 0; i < params_.operands.size(); ++i) {
      args_.push_back({params_.operands[i].arg, memories_[i]});
    }
    if (scratchpad_memory_ != nullptr) args_.push_back({DNNL_ARG_SCRATCHPAD, scratchpad_memory_});
    return OkStatus();
  };
  Status status = build();
  params_.op_desc = nullptr;  // The caller's, alive only during creation.
  if (pd != nullptr) s.dnnl_primitive_desc_destroy(pd);
  if (attr != nullptr) s.dnnl_primitive_attr_destroy(attr);
  if (post_ops != nullptr) s.dnnl_post_ops_destroy(post_ops);
  return AsUnimplemented(std::move(status));
}

Status OnednnCall::PrepareReorder(size_t i, const dnnl_memory_desc_t& chosen) {
  const OnednnSymbols& s = library_->symbols();
  const std::string& d = params_.description;
  const OnednnOperand& operand = params_.operands[i];
  auto r = std::make_unique<Reordered>();
  r->bytes = s.dnnl_memory_desc_get_size(&chosen);
  KILN_RETURN_IF_ERROR(
      s.Check(s.dnnl_memory_create(&r->plain, &operand.desc, library_->engine(), DNNL_MEMORY_NONE),
              d + ": dnnl_memory_create (plain)"));
  const bool is_result = static_cast<int>(i) == params_.result;
  KILN_RETURN_IF_ERROR(CreateReorder(is_result ? chosen : operand.desc,
                                     is_result ? operand.desc : chosen, &r->reorder,
                                     is_result ? "result" : "operand"));
  if (!operand.constant) {
    r->buffer = AllocateAligned(r->bytes);
    if (!r->buffer) {
      return ResourceExhaustedError(d + ": allocating " + std::to_string(r->bytes) +
                                    " bytes for an operand in oneDNN's layout");
    }
  }
  reordered_[i] = std::move(r);
  return OkStatus();
}

Status OnednnCall::CreateReorder(const dnnl_memory_desc_t& from, const dnnl_memory_desc_t& to,
                                 dnnl_primitive_t* reorder, const std::string& what) {
  const OnednnSymbols& s = library_->symbols();
  const std::string& d = params_.description;
  dnnl_primitive_desc_t rpd = nullptr;
  KILN_RETURN_IF_ERROR(
      s.Check(s.dnnl_reorder_primitive_desc_create(&rpd, &from, library_->engine(), &to,
                                                   library_->engine(), nullptr),
              d + ": dnnl_reorder_primitive_desc_create (" + what + ")"));
  Status created =
      s.Check(s.dnnl_primitive_create(reorder, rpd), d + ": dnnl_primitive_create (" + what + ")");
  s.dnnl_primitive_desc_destroy(rpd);
  return created;
}

Status OnednnCall::RunReorder(dnnl_primitive_t reorder, dnnl_memory_t from,
                              dnnl_memory_t to) const {
  const OnednnSymbols& s = library_->symbols();
  const dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  return s.Check(s.dnnl_primitive_execute(reorder, stream_, 2, args),
                 description_ + ": dnnl_primitive_execute (reorder)");
}

Status OnednnCall::Execute(std::span<void* const> bindings, std::span<const size_t> lengths) const {
  const OnednnSymbols& s = library_->symbols();
  std::lock_guard<std::mutex> lock(mutex_);
  OnednnLibrary::ThreadScope threads(*library_);
  for (size_t i = 0; i < params_.operands.size(); ++i) {
    const OnednnOperand& operand = params_.operands[i];
    if (static_cast<size_t>(operand.binding) >= bindings.size()) {
      return InvalidArgumentError(description_ + ": given " + std::to_string(bindings.size()) +
                                  " bindings, an operand is binding " +
                                  std::to_string(operand.binding));
    }
    void* data = static_cast<char*>(bindings[operand.binding]) + operand.offset_bytes;
    if (static_cast<int>(i) == params_.addend) {
      const OnednnOperand& result = params_.operands[params_.result];
      const size_t result_bytes = params_.required[result.binding];
      // The post-op reads the addend while the result is written: a copy
      // keeps it intact where the two share bytes.
      // (`required` counts from the binding's address, offsets included.)
      if (Overlap(data, addend_bytes_, bindings[result.binding], result_bytes)) {
        if (!addend_copy_) {
          addend_copy_ = AllocateAligned(addend_bytes_);
          if (!addend_copy_) {
            return ResourceExhaustedError(description_ + ": allocating a copy of the addend");
          }
        }
        std::memcpy(addend_copy_.get(), data, addend_bytes_);
        data = addend_copy_.get();
      }
    }
    // The primitive's own layout: the binding is reordered into it (or,
    // for the result, out of it after the primitive ran); a constant once
    // per address, into a copy the call keeps.
    Reordered* r = reordered_[i].get();
    bool first_use = false;
    if (r != nullptr) {
      KILN_RETURN_IF_ERROR(s.Check(s.dnnl_memory_set_data_handle(r->plain, data),
                                   description_ + ": dnnl_memory_set_data_handle"));
      if (operand.constant) {
        auto [it, inserted] = r->copies.try_emplace(data);
        if (inserted) {
          it->second = AllocateAligned(r->bytes);
          if (!it->second) {
            r->copies.erase(it);
            return ResourceExhaustedError(description_ + ": allocating " +
                                          std::to_string(r->bytes) + " bytes for a filter");
          }
        }
        first_use = inserted;
        data = it->second.get();
      } else {
        data = r->buffer.get();
      }
    }
    KILN_RETURN_IF_ERROR(s.Check(s.dnnl_memory_set_data_handle(memories_[i], data),
                                 description_ + ": dnnl_memory_set_data_handle"));
    if (first_use) KILN_RETURN_IF_ERROR(RunReorder(r->reorder, r->plain, memories_[i]));
  }
  const OnednnOperand& result = params_.operands[params_.result];
  Reordered* reordered_result = reordered_[params_.result].get();
  // Inputs into the primitive's layouts (constants were, above).
  for (size_t i = 0; i < params_.operands.size(); ++i) {
    Reordered* r = reordered_[i].get();
    if (r == nullptr || params_.operands[i].constant || static_cast<int>(i) == params_.result) {
      continue;
    }
    KILN_RETURN_IF_ERROR(RunReorder(r->reorder, r->plain, memories_[i]));
  }
  // The result's starting contents (a sum post-op's addend).
  if (params_.result_init >= 0) {
    if (static_cast<size_t>(params_.result_init) >= bindings.size()) {
      return InvalidArgumentError(description_ + ": given " + std::to_string(bindings.size()) +
                                  " bindings, the addend is binding " +
                                  std::to_string(params_.result_init));
    }
    void* init = bindings[params_.result_init];
    void* start = reordered_result != nullptr
                      ? reordered_result->buffer.get()
                      : static_cast<char*>(bindings[result.binding]) + result.offset_bytes;
    if (init_reorder_ != nullptr) {
      KILN_RETURN_IF_ERROR(s.Check(s.dnnl_memory_set_data_handle(init_memory_, init),
                                   description_ + ": dnnl_memory_set_data_handle"));
      KILN_RETURN_IF_ERROR(RunReorder(init_reorder_, init_memory_, memories_[params_.result]));
    } else if (init != start) {
      std::memmove(start, init, result_bytes_);
    }
  }
  KILN_RETURN_IF_ERROR(s.Check(
      s.dnnl_primitive_execute(primitive_, stream_, static_cast<int>(args_.size()), args_.data()),
      description_ + ": dnnl_primitive_execute"));
  if (reordered_result != nullptr) {
    KILN_RETURN_IF_ERROR(
        s.Check(s.dnnl_memory_set_data_handle(
                    reordered_result->plain,
                    static_cast<char*>(bindings[result.binding]) + result.offset_bytes),
                description_ + ": dnnl_memory_set_data_handle"));
    KILN_RETURN_IF_ERROR(
        RunReorder(reordered_result->reorder, memories_[params_.result], reordered_result->plain));
  }
  return s.Check(s.dnnl_stream_wait(stream_), description_ + ": dnnl_stream_wait");
}

}  // namespace

void AppendEpilogue(OnednnCallParams& params, int32_t addend, int32_t result,
                    const dnnl_memory_desc_t& addend_desc, LibraryActivation activation) {
  if (addend >= 0 && addend == result) {
    // The result holds the addend already: dst = op(...) + bias + dst.
    params.post_ops.push_back({OnednnPostOp::kSum});
  } else if (addend >= 0) {
    const int index = static_cast<int>(params.post_ops.size());
    params.post_ops.push_back({OnednnPostOp::kBinaryAdd, dnnl_alg_kind_undef, addend_desc});
    params.addend = static_cast<int>(params.operands.size());
    params.operands.push_back(
        {DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1, addend, addend_desc});
  }
  if (activation != LibraryActivation::kNone) {
    params.post_ops.push_back({OnednnPostOp::kEltwise, EltwiseOf(activation)});
  }
}

dnnl_alg_kind_t EltwiseOf(LibraryActivation activation) {
  switch (activation) {
    case LibraryActivation::kRelu:
      return dnnl_eltwise_relu;
    case LibraryActivation::kGeluTanh:
      return dnnl_eltwise_gelu_tanh;
    case LibraryActivation::kNone:
      break;
  }
  return dnnl_alg_kind_undef;
}

Result<dnnl_memory_desc_t> PlainDesc(const OnednnSymbols& s, std::vector<int64_t> dims,
                                     std::vector<int64_t> strides, const std::string& what) {
  dnnl_memory_desc_t desc = {};
  dnnl_dims_t d = {}, st = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    d[i] = dims[i];
    st[i] = strides[i];
  }
  KILN_RETURN_IF_ERROR(AsUnimplemented(s.Check(
      s.dnnl_memory_desc_init_by_strides(&desc, static_cast<int>(dims.size()), d, dnnl_f32, st),
      what + ": dnnl_memory_desc_init_by_strides")));
  return desc;
}

Result<dnnl_memory_desc_t> AnyDesc(const OnednnSymbols& s, std::vector<int64_t> dims,
                                   const std::string& what) {
  return TagDesc(s, std::move(dims), dnnl_format_tag_any, what);
}

Result<dnnl_memory_desc_t> TagDesc(const OnednnSymbols& s, std::vector<int64_t> dims,
                                   dnnl_format_tag_t tag, const std::string& what) {
  dnnl_memory_desc_t desc = {};
  dnnl_dims_t d = {};
  for (size_t i = 0; i < dims.size(); ++i) d[i] = dims[i];
  KILN_RETURN_IF_ERROR(AsUnimplemented(s.Check(
      s.dnnl_memory_desc_init_by_tag(&desc, static_cast<int>(dims.size()), d, dnnl_f32, tag),
      what + ": dnnl_memory_desc_init_by_tag")));
  return desc;
}

Result<std::unique_ptr<CpuLibraryCall>> CreateOnednnCall(Ref<OnednnLibrary> library,
                                                         OnednnCallParams params) {
  auto call = std::make_unique<OnednnCall>(std::move(library), std::move(params));
  KILN_RETURN_IF_ERROR(call->Initialize());
  return std::unique_ptr<CpuLibraryCall>(std::move(call));
}

}  // namespace kiln::hal::cpu
