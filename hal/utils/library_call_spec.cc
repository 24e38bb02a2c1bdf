#include "hal/utils/library_call_spec.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

namespace kiln::hal::utils {

namespace lib = ::kiln::schema::library;

namespace {

// Every byte count and element count must fit an int64 (oneDNN's dims).
constexpr uint64_t kMaxBytes = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

// a * b + c, or nullopt past kMaxBytes.
std::optional<uint64_t> MulAdd(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t product = 0, sum = 0;
  if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum) ||
      sum > kMaxBytes) {
    return std::nullopt;
  }
  return sum;
}

// The product of `factors`, or nullopt past kMaxBytes.
std::optional<uint64_t> Product(std::initializer_list<uint64_t> factors) {
  uint64_t out = 1;
  for (uint64_t f : factors) {
    std::optional<uint64_t> next = MulAdd(out, f, 0);
    if (!next) return std::nullopt;
    out = *next;
  }
  return out;
}

const char* ActivationSuffix(LibraryActivation activation) {
  switch (activation) {
    case LibraryActivation::kRelu:
      return " relu";
    case LibraryActivation::kGeluTanh:
      return " gelu_tanh";
    case LibraryActivation::kNone:
      break;
  }
  return "";
}

// The checks both kinds share: enums in range.
Status CheckEnums(lib::LibraryElementType type, lib::LibraryActivation activation,
                  const std::string& where) {
  if (type > lib::LibraryElementType::MAX) {
    return InvalidArgumentError(where + ": unknown element_type " +
                                std::to_string(static_cast<int>(type)));
  }
  if (activation > lib::LibraryActivation::MAX) {
    return InvalidArgumentError(where + ": unknown activation " +
                                std::to_string(static_cast<int>(activation)));
  }
  return OkStatus();
}

LibraryActivation ActivationOf(lib::LibraryActivation activation) {
  switch (activation) {
    case lib::LibraryActivation::Relu:
      return LibraryActivation::kRelu;
    case lib::LibraryActivation::GeluTanh:
      return LibraryActivation::kGeluTanh;
    default:
      return LibraryActivation::kNone;
  }
}

// One operand: its field name, binding, and whether -1 (none) is allowed.
struct Operand {
  const char* field;
  int32_t binding;
  bool optional;
};

// Binding indices in range, and the result writable and read by no other
// operand but `addend` (which a call may update in place).
Status CheckBindings(std::span<const Operand> operands, const Operand& result,
                     const Operand& addend, const ExecutableExport& info,
                     const std::string& where) {
  const size_t count = info.layout.bindings.size();
  for (const Operand& operand : operands) {
    if (operand.optional && operand.binding == -1) continue;
    if (operand.binding < 0 || static_cast<size_t>(operand.binding) >= count) {
      return InvalidArgumentError(where + ": " + operand.field + " names binding " +
                                  std::to_string(operand.binding) + ", but the export has " +
                                  std::to_string(count) + " binding" + (count == 1 ? "" : "s") +
                                  (operand.optional ? " (-1: none)" : ""));
    }
  }
  if (info.layout.bindings[result.binding].read_only) {
    return InvalidArgumentError(where + ": the result " + result.field + " is binding " +
                                std::to_string(result.binding) + ", which is read-only");
  }
  for (const Operand& operand : operands) {
    if (operand.field == result.field || operand.field == addend.field) continue;
    if (operand.binding == result.binding) {
      return InvalidArgumentError(where + ": the result " + result.field + " and " + operand.field +
                                  " are both binding " + std::to_string(result.binding) +
                                  " (a call cannot read what it writes)");
    }
  }
  return OkStatus();
}

// A convolution's blocked operands (ConvolutionSpec::x_blocked, ...):
// present, with whole blocks of channels, and one layout per binding.
Status CheckBlockedLayouts(const ConvolutionSpec& cv, const std::string& where) {
  const struct {
    const char* field;
    bool blocked;
    int32_t binding;
    uint64_t channels;
    const char* channel_field;
  } operands[] = {{"x", cv.x_blocked, cv.x, cv.c, "c"},
                  {"y", cv.y_blocked, cv.y, cv.k, "k"},
                  {"z", cv.z_blocked, cv.z, cv.k, "k"}};
  for (const auto& operand : operands) {
    if (!operand.blocked) continue;
    if (operand.binding < 0) {
      return InvalidArgumentError(where + ": " + operand.field +
                                  "_blocked is set, but the call has no " + operand.field);
    }
    if (operand.channels % kBlockedChannels != 0) {
      return InvalidArgumentError(where + ": " + operand.field + "_blocked needs a multiple of " +
                                  std::to_string(kBlockedChannels) + " channels, but " +
                                  operand.channel_field + " = " + std::to_string(operand.channels) +
                                  " (the blocked layout nChw{8,16}c would be padded)");
    }
  }
  for (const auto& a : operands) {
    for (const auto& b : operands) {
      if (&a < &b && a.binding >= 0 && a.binding == b.binding && a.blocked != b.blocked) {
        return InvalidArgumentError(where + ": " + a.field + " and " + b.field +
                                    " are both binding " + std::to_string(a.binding) +
                                    ", but only " + (a.blocked ? a.field : b.field) +
                                    " is in the blocked layout");
      }
    }
  }
  return OkStatus();
}

}  // namespace

Result<MatmulSpec> ValidateMatmulCall(const lib::MatmulCall& call, const ExecutableExport& info,
                                      std::string_view where_view) {
  const std::string where(where_view);
  KILN_RETURN_IF_ERROR(CheckEnums(call.element_type(), call.activation(), where));
  if (call.m() == 0 || call.n() == 0 || call.k() == 0 || call.batch_count() == 0) {
    return InvalidArgumentError(
        where + ": m, n, k and batch_count must be >= 1 (m=" + std::to_string(call.m()) +
        ", n=" + std::to_string(call.n()) + ", k=" + std::to_string(call.k()) +
        ", batch_count=" + std::to_string(call.batch_count()) + ")");
  }
  MatmulSpec mm;
  mm.element_type = call.element_type();
  mm.element_bytes = call.element_type() == lib::LibraryElementType::F32 ? 4 : 2;
  mm.m = call.m();
  mm.n = call.n();
  mm.k = call.k();
  mm.batch_count = call.batch_count();
  mm.transpose_a = call.transpose_a();
  mm.transpose_b = call.transpose_b();
  mm.a = call.a();
  mm.b = call.b();
  mm.c = call.c();
  mm.d = call.d();
  mm.bias = call.bias();
  mm.batch_stride_a = call.batch_stride_a();
  mm.batch_stride_b = call.batch_stride_b();
  mm.batch_stride_c = call.batch_stride_c();
  mm.batch_stride_d = call.batch_stride_d();
  mm.offset_a = call.offset_a();
  mm.offset_b = call.offset_b();
  mm.offset_c = call.offset_c();
  mm.offset_d = call.offset_d();
  mm.activation = ActivationOf(call.activation());
  const Operand a{"a", mm.a, false}, b{"b", mm.b, false}, c{"c", mm.c, true}, d{"d", mm.d, false},
      bias{"bias", mm.bias, true};
  const Operand operands[] = {a, b, c, d, bias};
  KILN_RETURN_IF_ERROR(CheckBindings(operands, d, c, info, where));
  // Each operand as stored: rows x cols per batch, rows `ld` apart (all
  // sizes < 2^32, so rows * cols and the ld defaults fit 64 bits).
  struct Stored {
    const Operand& operand;
    uint64_t rows, cols;
    uint64_t call_ld;  // 0: packed.
    uint64_t* ld;
    uint64_t batch_stride, offset;
  };
  Stored stored[] = {
      {a, mm.transpose_a ? mm.k : mm.m, mm.transpose_a ? mm.m : mm.k, call.lda(), &mm.lda,
       mm.batch_stride_a, mm.offset_a},
      {b, mm.transpose_b ? mm.n : mm.k, mm.transpose_b ? mm.k : mm.n, call.ldb(), &mm.ldb,
       mm.batch_stride_b, mm.offset_b},
      {c, mm.m, mm.n, call.ldc(), &mm.ldc, mm.batch_stride_c, mm.offset_c},
      {d, mm.m, mm.n, call.ldd(), &mm.ldd, mm.batch_stride_d, mm.offset_d},
  };
  for (Stored& x : stored) {
    *x.ld = x.call_ld == 0 ? x.cols : x.call_ld;
    // The libraries take an ld as a signed 64-bit count; an operand of one
    // row never multiplies it into its extent, so bound it here.
    if (*x.ld > (uint64_t{1} << 62)) {
      return InvalidArgumentError(where + ": ld" + x.operand.field + " " + std::to_string(*x.ld) +
                                  " is more than 2^62 elements");
    }
    if (*x.ld < x.cols) {
      return InvalidArgumentError(where + ": ld" + x.operand.field + " " + std::to_string(*x.ld) +
                                  " is less than the " + std::to_string(x.cols) +
                                  " elements of each row " + x.operand.field +
                                  " is stored with (its rows would overlap)");
    }
  }
  if (mm.c == mm.d && (mm.ldc != mm.ldd || mm.offset_c != mm.offset_d ||
                       (mm.batch_count > 1 && mm.batch_stride_c != mm.batch_stride_d))) {
    return InvalidArgumentError(
        where + ": the addend c is the result d in place (binding " + std::to_string(mm.d) +
        ") with another layout (batch stride " + std::to_string(mm.batch_stride_c) + " vs " +
        std::to_string(mm.batch_stride_d) + ", ld " + std::to_string(mm.ldc) + " vs " +
        std::to_string(mm.ldd) + ", offset " + std::to_string(mm.offset_c) + " vs " +
        std::to_string(mm.offset_d) + ")");
  }
  // The result's batches must not share an element: one after another
  // (each past the last row of the one before), or side by side within
  // each row (attention's heads written into one [seq, heads * head]
  // matrix).
  if (mm.batch_count > 1) {
    const uint64_t stride = mm.batch_stride_d;
    const std::optional<uint64_t> one_after = MulAdd(mm.m - 1, mm.ldd, mm.n);
    const std::optional<uint64_t> side_by_side = MulAdd(mm.batch_count - 1, stride, mm.n);
    const bool after = one_after && stride >= *one_after;
    const bool beside = stride >= mm.n && side_by_side && *side_by_side <= mm.ldd;
    if (!after && !beside) {
      return InvalidArgumentError(where + ": batch_stride_d " + std::to_string(stride) +
                                  " makes the result's " + std::to_string(mm.batch_count) +
                                  " batches of " + std::to_string(mm.m) + "x" +
                                  std::to_string(mm.n) + " (ldd " + std::to_string(mm.ldd) +
                                  ") overlap (the batches would overwrite each other)");
    }
  }
  // The bytes from each binding's address to the end of the last element
  // an operand touches: the last batch's last row's last column.
  mm.required.assign(info.layout.bindings.size(), 0);
  auto require = [&](const Operand& operand, std::optional<uint64_t> elements) -> Status {
    std::optional<uint64_t> bytes = elements ? MulAdd(*elements, mm.element_bytes, 0) : elements;
    if (!bytes) {
      return InvalidArgumentError(
          where + ": operand " + operand.field +
          " spans more than 2^63 bytes (batch_count=" + std::to_string(mm.batch_count) + ")");
    }
    uint64_t& required = mm.required[operand.binding];
    required = std::max(required, *bytes);
    return OkStatus();
  };
  for (const Stored& x : stored) {
    if (x.operand.binding < 0) continue;
    std::optional<uint64_t> last_row = MulAdd(x.rows - 1, *x.ld, x.cols);
    std::optional<uint64_t> batches =
        last_row ? MulAdd(mm.batch_count - 1, x.batch_stride, *last_row) : last_row;
    std::optional<uint64_t> elements = batches ? MulAdd(1, x.offset, *batches) : batches;
    KILN_RETURN_IF_ERROR(require(x.operand, elements));
  }
  if (mm.bias >= 0) KILN_RETURN_IF_ERROR(require(bias, mm.n));
  std::string& text = mm.description;
  text = "matmul ";
  if (mm.batch_count > 1) text += std::to_string(mm.batch_count) + "x";
  text += std::to_string(mm.m) + "x" + std::to_string(mm.n) + "x" + std::to_string(mm.k) + " " +
          LibraryElementTypeName(mm.element_type);
  if (mm.transpose_a) text += " A^T";
  if (mm.transpose_b) text += " B^T";
  if (mm.bias >= 0) text += " +bias";
  if (mm.c >= 0) text += " +C";
  text += ActivationSuffix(mm.activation);
  for (const auto& [name, value] : {std::pair{"lda", call.lda()},
                                    {"ldb", call.ldb()},
                                    {"ldc", call.ldc()},
                                    {"ldd", call.ldd()},
                                    {"offset_a", call.offset_a()},
                                    {"offset_b", call.offset_b()},
                                    {"offset_c", call.offset_c()},
                                    {"offset_d", call.offset_d()}}) {
    if (value != 0) mm.layout_description += std::string(" ") + name + "=" + std::to_string(value);
  }
  text += mm.layout_description;
  return mm;
}

Result<ConvolutionSpec> ValidateConvolutionCall(const lib::ConvolutionCall& call,
                                                const ExecutableExport& info,
                                                std::string_view where_view) {
  const std::string where(where_view);
  KILN_RETURN_IF_ERROR(CheckEnums(call.element_type(), call.activation(), where));
  const std::pair<const char*, uint32_t> dims[] = {{"n", call.n()},
                                                   {"c", call.c()},
                                                   {"h", call.h()},
                                                   {"w", call.w()},
                                                   {"k", call.k()},
                                                   {"r", call.r()},
                                                   {"s", call.s()},
                                                   {"groups", call.groups()},
                                                   {"stride_h", call.stride_h()},
                                                   {"stride_w", call.stride_w()},
                                                   {"dilation_h", call.dilation_h()},
                                                   {"dilation_w", call.dilation_w()}};
  for (const auto& [field, value] : dims) {
    if (value == 0) return InvalidArgumentError(where + ": " + field + " must be >= 1, is 0");
  }
  ConvolutionSpec cv;
  cv.element_type = call.element_type();
  cv.element_bytes = call.element_type() == lib::LibraryElementType::F32 ? 4 : 2;
  cv.n = call.n();
  cv.c = call.c();
  cv.h = call.h();
  cv.w = call.w();
  cv.k = call.k();
  cv.r = call.r();
  cv.s = call.s();
  cv.groups = call.groups();
  cv.stride_h = call.stride_h();
  cv.stride_w = call.stride_w();
  cv.dilation_h = call.dilation_h();
  cv.dilation_w = call.dilation_w();
  cv.x = call.x();
  cv.filter = call.filter();
  cv.y = call.y();
  cv.bias = call.bias();
  cv.z = call.z();
  cv.activation = ActivationOf(call.activation());
  cv.constant_filter = call.constant_filter();
  cv.x_blocked = call.x_blocked();
  cv.y_blocked = call.y_blocked();
  cv.z_blocked = call.z_blocked();
  if (cv.c % cv.groups != 0 || cv.k % cv.groups != 0) {
    return InvalidArgumentError(where + ": groups " + std::to_string(cv.groups) +
                                " must divide c (" + std::to_string(cv.c) + ") and k (" +
                                std::to_string(cv.k) + ")");
  }
  // The filter's extent, (r - 1) * dilation + 1, must fit the (padded)
  // input; all values < 2^32, so the products fit 64 bits.
  const uint64_t extent_h = (cv.r - 1) * cv.dilation_h + 1;
  const uint64_t extent_w = (cv.s - 1) * cv.dilation_w + 1;
  if (extent_h > cv.h || extent_w > cv.w) {
    return InvalidArgumentError(where + ": the dilated filter (" + std::to_string(extent_h) + "x" +
                                std::to_string(extent_w) +
                                ") is larger than the input (h=" + std::to_string(cv.h) +
                                ", w=" + std::to_string(cv.w) + "; the call has no padding)");
  }
  cv.p = (cv.h - extent_h) / cv.stride_h + 1;
  cv.q = (cv.w - extent_w) / cv.stride_w + 1;
  const Operand x{"x", cv.x, false}, filter{"filter", cv.filter, false}, y{"y", cv.y, false},
      bias{"bias", cv.bias, true}, z{"z", cv.z, true};
  const Operand operands[] = {x, filter, y, bias, z};
  KILN_RETURN_IF_ERROR(CheckBindings(operands, y, z, info, where));
  KILN_RETURN_IF_ERROR(CheckBlockedLayouts(cv, where));
  struct Span {
    const Operand& operand;
    std::optional<uint64_t> elements;
  };
  const Span spans[] = {{x, Product({cv.n, cv.c, cv.h, cv.w})},
                        {filter, Product({cv.k, cv.c / cv.groups, cv.r, cv.s})},
                        {y, Product({cv.n, cv.k, cv.p, cv.q})},
                        {bias, cv.k},
                        {z, Product({cv.n, cv.k, cv.p, cv.q})}};
  cv.required.assign(info.layout.bindings.size(), 0);
  for (const Span& span : spans) {
    if (span.operand.binding < 0) continue;
    std::optional<uint64_t> bytes =
        span.elements ? MulAdd(*span.elements, cv.element_bytes, 0) : span.elements;
    if (!bytes) {
      return InvalidArgumentError(where + ": operand " + span.operand.field +
                                  " spans more than 2^63 bytes");
    }
    uint64_t& required = cv.required[span.operand.binding];
    required = std::max(required, *bytes);
  }
  std::string& text = cv.description;
  text = "convolution " + std::to_string(cv.n) + "x" + std::to_string(cv.c) + "x" +
         std::to_string(cv.h) + "x" + std::to_string(cv.w) + " k" + std::to_string(cv.k) + " " +
         std::to_string(cv.r) + "x" + std::to_string(cv.s);
  if (cv.groups > 1) text += " g" + std::to_string(cv.groups);
  text += " s" + std::to_string(cv.stride_h) + "x" + std::to_string(cv.stride_w) + " d" +
          std::to_string(cv.dilation_h) + "x" + std::to_string(cv.dilation_w) + " " +
          LibraryElementTypeName(cv.element_type);
  if (cv.bias >= 0) text += " +bias";
  if (cv.z >= 0) text += " +z";
  text += ActivationSuffix(cv.activation);
  if (cv.x_blocked) text += " x_blocked";
  if (cv.y_blocked) text += " y_blocked";
  if (cv.z_blocked) text += " z_blocked";
  return cv;
}

const char* LibraryElementTypeName(schema::library::LibraryElementType type) {
  switch (type) {
    case schema::library::LibraryElementType::F32:
      return "f32";
    case schema::library::LibraryElementType::F16:
      return "f16";
    case schema::library::LibraryElementType::BF16:
      return "bf16";
  }
  return "?";
}

Status LibraryBindingTooSmallError(std::string_view site, std::string_view description,
                                   uint64_t required, uint64_t length) {
  return InvalidArgumentError(
      std::string(site) + ": the export runs a " + std::string(description) + ", which needs " +
      std::to_string(required) + " bytes from the binding's offset; the range has " +
      std::to_string(length));
}

}  // namespace kiln::hal::utils
