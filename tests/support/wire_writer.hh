// pbdiff tests — writing protobuf's wire format by hand, for the C++
// programs of tests/oracle/ and tests/property/ (which must not use
// protobuf's own serialiser: their bytes are to differ from it).  What both
// write the same way; each keeps its own varint writer (minimal in the
// oracle, padded at random in the property tests).
#ifndef PBDIFF_TESTS_WIRE_WRITER_HH_
#define PBDIFF_TESTS_WIRE_WRITER_HH_

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace wire_writer {

namespace pb = google::protobuf;
using FD = pb::FieldDescriptor;

// The wire type of a field's values (0 varint, 1 I64, 2 LEN, 3 group, 5 I32).
inline int WireOf(const FD* f) {
  switch (f->type()) {
    case FD::TYPE_DOUBLE: case FD::TYPE_FIXED64: case FD::TYPE_SFIXED64: return 1;
    case FD::TYPE_FLOAT: case FD::TYPE_FIXED32: case FD::TYPE_SFIXED32: return 5;
    case FD::TYPE_STRING: case FD::TYPE_BYTES: case FD::TYPE_MESSAGE: return 2;
    case FD::TYPE_GROUP: return 3;
    default: return 0;
  }
}

// Element i of a repeated field (or -1: the singular value): its bits as the
// wire carries them, before varint or fixed coding (zigzag for sint, sign
// extension for int32 and enums, IEEE bits for floats).
inline uint64_t ScalarBits(const pb::Message& m, const FD* f, int i) {
  const pb::Reflection* r = m.GetReflection();
  bool rep = i >= 0;
  switch (f->type()) {
    case FD::TYPE_DOUBLE: {
      double d = rep ? r->GetRepeatedDouble(m, f, i) : r->GetDouble(m, f);
      uint64_t b;
      memcpy(&b, &d, 8);
      return b;
    }
    case FD::TYPE_FLOAT: {
      float x = rep ? r->GetRepeatedFloat(m, f, i) : r->GetFloat(m, f);
      uint32_t b;
      memcpy(&b, &x, 4);
      return b;
    }
    case FD::TYPE_SINT64: {
      int64_t v = rep ? r->GetRepeatedInt64(m, f, i) : r->GetInt64(m, f);
      return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    }
    case FD::TYPE_INT64: case FD::TYPE_SFIXED64:
      return static_cast<uint64_t>(rep ? r->GetRepeatedInt64(m, f, i) : r->GetInt64(m, f));
    case FD::TYPE_UINT64: case FD::TYPE_FIXED64:
      return rep ? r->GetRepeatedUInt64(m, f, i) : r->GetUInt64(m, f);
    case FD::TYPE_SINT32: {
      int32_t v = rep ? r->GetRepeatedInt32(m, f, i) : r->GetInt32(m, f);
      return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
    }
    case FD::TYPE_SFIXED32:
      return static_cast<uint32_t>(rep ? r->GetRepeatedInt32(m, f, i) : r->GetInt32(m, f));
    case FD::TYPE_INT32:  // negative int32 is sign-extended on the wire
      return static_cast<uint64_t>(static_cast<int64_t>(rep ? r->GetRepeatedInt32(m, f, i) : r->GetInt32(m, f)));
    case FD::TYPE_UINT32: case FD::TYPE_FIXED32:
      return rep ? r->GetRepeatedUInt32(m, f, i) : r->GetUInt32(m, f);
    case FD::TYPE_BOOL: return (rep ? r->GetRepeatedBool(m, f, i) : r->GetBool(m, f)) ? 1 : 0;
    case FD::TYPE_ENUM:
      return static_cast<uint64_t>(static_cast<int64_t>(rep ? r->GetRepeatedEnumValue(m, f, i) : r->GetEnumValue(m, f)));
    default: return 0;
  }
}

// n little-endian bytes of v (I32: 4, I64: 8).
inline void PutFixed(std::string* o, uint64_t v, int n) {
  for (int i = 0; i < n; i++) o->push_back(static_cast<char>(v >> (8 * i)));
}

}  // namespace wire_writer

#endif
