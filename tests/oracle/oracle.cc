// oracle: the C++ protobuf library's reading of the same inputs, so that
// tests/oracle/run.sh can hold pbdiff's verdicts to MessageDifferencer's.
//
//   oracle prepare DESC.pb OUTDIR < LIST     LIST: "TYPE<TAB>FILE<TAB>NAME" lines
//     Writes, for each file the library parses as TYPE:
//       OUTDIR/L/NAME  the file's bytes as they are;
//       OUTDIR/R/NAME  the same message written as another serialiser might
//                      (Reencode below): equal in meaning, different in bytes;
//       OUTDIR/M/NAME  that re-encoding with one value changed (Mutate), when
//                      the message has a value to change.
//     and prints "NAME<TAB>FLAGS" (FLAGS: "nan" when the message holds a NaN,
//     "-" otherwise; files the library cannot parse are left out).
//   oracle md DESC.pb < PAIRS                PAIRS: "TYPE<TAB>LEFT<TAB>RIGHT" lines
//     Prints "equal", "differ" or "error" per line: MessageDifferencer's
//     verdict with its default settings (Equals).
//
// The re-encoder is written here with the wire format's rules only (no
// protobuf serialiser), so that its bytes are not protobuf's own.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "wire_writer.hh"

using wire_writer::PutFixed;
using wire_writer::ScalarBits;
using wire_writer::WireOf;

namespace pb = google::protobuf;
using FD = pb::FieldDescriptor;

static bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return !in.bad();
}

static bool WriteFile(const std::string& path, const std::string& data) {
  for (size_t k = path.find('/', 1); k != std::string::npos; k = path.find('/', k + 1))
    mkdir(path.substr(0, k).c_str(), 0755);
  std::ofstream out(path, std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  return static_cast<bool>(out);
}

static bool Parse(const std::string& data, pb::Message* msg) {
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(data.data()),
                              static_cast<int>(data.size()));
  in.SetTotalBytesLimit(INT_MAX);
  return msg->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

// ---- writing the wire format by hand ----------------------------------------

static void PutVarint(std::string* o, uint64_t v) {
  while (v >= 0x80) {
    o->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  o->push_back(static_cast<char>(v));
}
static void PutTag(std::string* o, int number, int wire) {
  PutVarint(o, (static_cast<uint64_t>(number) << 3) | static_cast<uint64_t>(wire));
}
static void PutLen(std::string* o, int number, const std::string& payload) {
  PutTag(o, number, 2);
  PutVarint(o, payload.size());
  o->append(payload);
}


// One scalar value, without its tag (element i of a repeated field, or -1).
static void PutScalar(std::string* o, const pb::Message& m, const FD* f, int i) {
  uint64_t bits = ScalarBits(m, f, i);
  int wire = WireOf(f);
  if (wire == 1) PutFixed(o, bits, 8);
  else if (wire == 5) PutFixed(o, bits, 4);
  else PutVarint(o, bits);
}

static std::string Reencode(const pb::Message& m, unsigned* turn);

// A singular sub-message, sometimes in two parts that the reader merges: the
// first half of its fields, then the rest.
static void PutMessageField(std::string* o, const FD* f, const pb::Message& sub, unsigned* turn) {
  std::string body = Reencode(sub, turn);
  if (f->type() == FD::TYPE_GROUP) {
    PutTag(o, f->number(), 3);
    o->append(body);
    PutTag(o, f->number(), 4);
    return;
  }
  std::vector<const FD*> fields;
  sub.GetReflection()->ListFields(sub, &fields);
  if (!f->is_repeated() && fields.size() >= 2 && (*turn)++ % 2 == 0) {
    std::unique_ptr<pb::Message> a(sub.New()), b(sub.New());
    for (size_t k = 0; k < fields.size(); k++) {
      pb::Message* into = k < fields.size() / 2 ? a.get() : b.get();
      std::unique_ptr<pb::Message> one(sub.New());
      one->CopyFrom(sub);
      // keep only field k
      for (const FD* g : fields)
        if (g != fields[k]) one->GetReflection()->ClearField(one.get(), g);
      one->GetReflection()->MutableUnknownFields(one.get())->Clear();
      into->MergeFrom(*one);
    }
    b->GetReflection()->MutableUnknownFields(b.get())->MergeFrom(sub.GetReflection()->GetUnknownFields(sub));
    PutLen(o, f->number(), Reencode(*a, turn));
    PutLen(o, f->number(), Reencode(*b, turn));
    return;
  }
  PutLen(o, f->number(), body);
}

// The message's fields in reverse number order, repeated scalars packed
// where they were unpacked and the other way round, unknown fields first.
static std::string Reencode(const pb::Message& m, unsigned* turn) {
  const pb::Reflection* r = m.GetReflection();
  std::string o;
  std::string unknown;
  r->GetUnknownFields(m).SerializeToString(&unknown);
  o.append(unknown);
  std::vector<const FD*> fields;
  r->ListFields(m, &fields);
  std::reverse(fields.begin(), fields.end());
  for (const FD* f : fields) {
    int wire = WireOf(f);
    if (f->is_repeated()) {
      int n = r->FieldSize(m, f);
      if (wire != 2 && wire != 3 && !f->is_packed()) {  // unpacked scalars: packed
        std::string payload;
        for (int i = 0; i < n; i++) PutScalar(&payload, m, f, i);
        PutLen(&o, f->number(), payload);
      } else if (wire != 2 && wire != 3) {  // packed scalars: one record each
        for (int i = 0; i < n; i++) {
          PutTag(&o, f->number(), wire);
          PutScalar(&o, m, f, i);
        }
      } else if (f->cpp_type() == FD::CPPTYPE_MESSAGE) {
        for (int i = 0; i < n; i++) PutMessageField(&o, f, r->GetRepeatedMessage(m, f, i), turn);
      } else {
        for (int i = 0; i < n; i++) PutLen(&o, f->number(), r->GetRepeatedString(m, f, i));
      }
    } else if (f->cpp_type() == FD::CPPTYPE_MESSAGE) {
      PutMessageField(&o, f, r->GetMessage(m, f), turn);
    } else if (wire == 2) {
      PutLen(&o, f->number(), r->GetString(m, f));
    } else {
      PutTag(&o, f->number(), wire);
      PutScalar(&o, m, f, -1);
    }
  }
  return o;
}

// ---- one changed value --------------------------------------------------------

// Changes the first value a depth-first walk meets that can change (an
// integer +1, a float or double made different, a string or bytes longer, a
// bool flipped, an enum to another of its values).  False when none can.
static bool Mutate(pb::Message* m) {
  const pb::Reflection* r = m->GetReflection();
  std::vector<const FD*> fields;
  r->ListFields(*m, &fields);
  for (const FD* f : fields) {
    bool rep = f->is_repeated();
    if (rep && r->FieldSize(*m, f) == 0) continue;
    switch (f->cpp_type()) {
      case FD::CPPTYPE_MESSAGE:
        if (Mutate(rep ? r->MutableRepeatedMessage(m, f, 0) : r->MutableMessage(m, f))) return true;
        break;
      case FD::CPPTYPE_INT32:
        if (rep) r->SetRepeatedInt32(m, f, 0, r->GetRepeatedInt32(*m, f, 0) ^ 1);
        else r->SetInt32(m, f, r->GetInt32(*m, f) ^ 1);
        return true;
      case FD::CPPTYPE_INT64:
        if (rep) r->SetRepeatedInt64(m, f, 0, r->GetRepeatedInt64(*m, f, 0) ^ 1);
        else r->SetInt64(m, f, r->GetInt64(*m, f) ^ 1);
        return true;
      case FD::CPPTYPE_UINT32:
        if (rep) r->SetRepeatedUInt32(m, f, 0, r->GetRepeatedUInt32(*m, f, 0) ^ 1);
        else r->SetUInt32(m, f, r->GetUInt32(*m, f) ^ 1);
        return true;
      case FD::CPPTYPE_UINT64:
        if (rep) r->SetRepeatedUInt64(m, f, 0, r->GetRepeatedUInt64(*m, f, 0) ^ 1);
        else r->SetUInt64(m, f, r->GetUInt64(*m, f) ^ 1);
        return true;
      case FD::CPPTYPE_DOUBLE: {
        double v = rep ? r->GetRepeatedDouble(*m, f, 0) : r->GetDouble(*m, f);
        double w = std::isnan(v) ? 1.0 : v == 0 ? 1.0 : -v;
        if (rep) r->SetRepeatedDouble(m, f, 0, w);
        else r->SetDouble(m, f, w);
        return true;
      }
      case FD::CPPTYPE_FLOAT: {
        float v = rep ? r->GetRepeatedFloat(*m, f, 0) : r->GetFloat(*m, f);
        float w = std::isnan(v) ? 1.0f : v == 0 ? 1.0f : -v;
        if (rep) r->SetRepeatedFloat(m, f, 0, w);
        else r->SetFloat(m, f, w);
        return true;
      }
      case FD::CPPTYPE_BOOL:
        if (rep) r->SetRepeatedBool(m, f, 0, !r->GetRepeatedBool(*m, f, 0));
        else r->SetBool(m, f, !r->GetBool(*m, f));
        return true;
      case FD::CPPTYPE_STRING:
        if (rep) r->SetRepeatedString(m, f, 0, r->GetRepeatedString(*m, f, 0) + "~");
        else r->SetString(m, f, r->GetString(*m, f) + "~");
        return true;
      case FD::CPPTYPE_ENUM: {
        const pb::EnumDescriptor* e = f->enum_type();
        int v = rep ? r->GetRepeatedEnumValue(*m, f, 0) : r->GetEnumValue(*m, f);
        for (int k = 0; k < e->value_count(); k++) {
          int w = e->value(k)->number();
          if (w == v) continue;
          if (rep) r->SetRepeatedEnumValue(m, f, 0, w);
          else r->SetEnumValue(m, f, w);
          return true;
        }
        break;
      }
    }
  }
  return false;
}

static bool HasNan(const pb::Message& m) {
  const pb::Reflection* r = m.GetReflection();
  std::vector<const FD*> fields;
  r->ListFields(m, &fields);
  for (const FD* f : fields) {
    int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
    for (int i = 0; i < n; i++) {
      bool rep = f->is_repeated();
      switch (f->cpp_type()) {
        case FD::CPPTYPE_MESSAGE:
          if (HasNan(rep ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f))) return true;
          break;
        case FD::CPPTYPE_FLOAT:
          if (std::isnan(rep ? r->GetRepeatedFloat(m, f, i) : r->GetFloat(m, f))) return true;
          break;
        case FD::CPPTYPE_DOUBLE:
          if (std::isnan(rep ? r->GetRepeatedDouble(m, f, i) : r->GetDouble(m, f))) return true;
          break;
        default:
          break;
      }
    }
  }
  return false;
}

// ---- the commands ------------------------------------------------------------------

struct Schema {
  pb::DescriptorPool pool;
  std::unique_ptr<pb::DynamicMessageFactory> factory;
  const pb::Message* Prototype(const std::string& type) {
    const pb::Descriptor* d = pool.FindMessageTypeByName(type);
    return d ? factory->GetPrototype(d) : nullptr;
  }
};

static bool LoadSchema(const char* path, Schema* s) {
  std::string data;
  pb::FileDescriptorSet set;
  if (!ReadFile(path, &data) || !set.ParseFromString(data)) return false;
  for (const auto& file : set.file())
    if (!s->pool.BuildFile(file)) return false;
  s->factory.reset(new pb::DynamicMessageFactory(&s->pool));
  return true;
}

static std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string part;
  while (std::getline(ss, part, '\t')) out.push_back(part);
  return out;
}

static int Prepare(Schema* s, const std::string& outdir) {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::vector<std::string> p = Split(line);
    if (p.size() != 3) return 2;
    const pb::Message* proto = s->Prototype(p[0]);
    std::string data;
    if (!proto || !ReadFile(p[1], &data)) return 2;
    std::unique_ptr<pb::Message> m(proto->New());
    if (!Parse(data, m.get())) continue;  // not of this type: left out
    unsigned turn = 0;
    if (!WriteFile(outdir + "/L/" + p[2], data) ||
        !WriteFile(outdir + "/R/" + p[2], Reencode(*m, &turn)))
      return 2;
    if (Mutate(m.get())) {
      turn = 0;
      if (!WriteFile(outdir + "/M/" + p[2], Reencode(*m, &turn))) return 2;
    }
    std::cout << p[2] << '\t' << (HasNan(*m) ? "nan" : "-") << '\n';
  }
  return 0;
}

static int Md(Schema* s) {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::vector<std::string> p = Split(line);
    const pb::Message* proto = p.size() == 3 ? s->Prototype(p[0]) : nullptr;
    std::string a, b;
    std::unique_ptr<pb::Message> l(proto ? proto->New() : nullptr), r(proto ? proto->New() : nullptr);
    if (!proto || !ReadFile(p[1], &a) || !ReadFile(p[2], &b) || !Parse(a, l.get()) ||
        !Parse(b, r.get())) {
      std::cout << "error\n";
      continue;
    }
    std::cout << (pb::util::MessageDifferencer::Equals(*l, *r) ? "equal" : "differ") << '\n';
  }
  return 0;
}

int main(int argc, char** argv) {
  Schema s;
  if (argc >= 3 && !LoadSchema(argv[2], &s)) {
    std::cerr << "oracle: cannot load " << argv[2] << '\n';
    return 2;
  }
  if (argc == 4 && !strcmp(argv[1], "prepare")) return Prepare(&s, argv[3]);
  if (argc == 3 && !strcmp(argv[1], "md")) return Md(&s);
  std::cerr << "usage: oracle prepare DESC.pb OUTDIR < LIST | oracle md DESC.pb < PAIRS\n";
  return 2;
}
