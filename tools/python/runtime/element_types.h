// Element types at the Python boundary: how kiln's hal::ElementType reads
// as a PEP 3118 buffer format (what NumPy arrays hand out through the
// buffer protocol), as a NumPy dtype name (what results are created with)
// and as a DLPack DLDataType.
//
// Signedness: MLIR's integers are signless (i32), NumPy's and DLPack's are
// signed or unsigned. A signed array becomes a signless tensor (what a
// compiled function declares); an unsigned one stays unsigned (ui8), which
// hal::IsCompatibleElementType lets a signless i8 argument take. Signless
// results read back as signed, unless the function declares them unsigned.
// i1 is NumPy's bool (one byte per element). bf16 has no NumPy dtype: it
// crosses through DLPack only.
#pragma once

#include <dlpack/dlpack.h>

#include <string>
#include <string_view>

#include "base/result.h"
#include "hal/element_type.h"

namespace kiln::python {

// The element type of a buffer-protocol format ("f", "<i4", "?", "e") with
// items of `item_size` bytes; an error names the format.
Result<hal::ElementType> ElementTypeOfBufferFormat(std::string_view format, size_t item_size);

// "float32", "int32", "uint8", "bool", "float16": the NumPy dtype name; an
// error for a type NumPy has no dtype for (bf16).
Result<std::string> NumpyDtypeName(hal::ElementType type);

// DLPack's description of `type` (lanes = 1).
Result<DLDataType> DLDataTypeOf(hal::ElementType type);
// kiln's element type for a DLPack dtype; vectors (lanes > 1), complex and
// opaque types are errors that name the dtype.
Result<hal::ElementType> ElementTypeOfDLDataType(DLDataType dtype);

}  // namespace kiln::python
