// property: random messages, each written in two random equivalent
// encodings and once with one value changed, for tests/property/run.sh.
//
//   property DESC.pb TYPE SEED COUNT OUTDIR
//
// For case N (0 <= N < COUNT) it writes OUTDIR/A/N.bin and OUTDIR/B/N.bin
// (the same random message, each encoded its own random way) and
// OUTDIR/C/N.bin (the message with one value changed, encoded a third way),
// and prints "N<TAB>PATH": the changed value's path as pbdiff writes it.
// Where the message has an ordered repeated field with two distinct
// elements, OUTDIR/D/N.bin is the message with two of them swapped, and a
// line "N.bin<TAB>FIELD" of OUTDIR/swaps names the field.  Where two such
// elements are messages, OUTDIR/N/N.bin has them swapped and one scalar F
// changed in both, such that they differ without F; a line
// "N.bin<TAB>FIELD<TAB>F" of OUTDIR/noisy names both.
//
// Messages are built with the C++ library's reflection (DynamicMessage) and
// encoded here by hand with the wire format's rules, randomly: fields in any
// order (a repeated field's elements keep theirs), repeated scalars in packed
// and unpacked chunks, singular sub-messages in several parts, singular
// fields and oneofs written twice with the last value right,
// map entries shuffled, proto3 defaults written out, varints (tags, lengths,
// values) padded to non-minimal length, Any payloads re-encoded.  Every
// encoding is parsed back by the library and checked with
// MessageDifferencer, so a bug here cannot pass as a bug in pbdiff.
#include <google/protobuf/any.pb.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/util/message_differencer.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
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

static std::mt19937_64 rng;
static int Pick(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }
static bool Chance(int percent) { return Pick(100) < percent; }

static pb::DescriptorPool* pool;
static pb::DynamicMessageFactory* factory;

// ---- random messages ------------------------------------------------------------

static std::string RandomString() {
  static const char* const kWords[] = {"", "a", "b", "conv", "x~y", "\xc3\xa9t\xc3\xa9", "relu", "0"};
  std::string s = kWords[Pick(8)];
  if (Chance(30)) s += std::to_string(Pick(1000));
  return s;
}

static void Fill(pb::Message* m, int depth);

// A random value for field f of m (element `add` of a repeated field).
static void SetRandom(pb::Message* m, const FD* f, int depth) {
  const pb::Reflection* r = m->GetReflection();
  bool rep = f->is_repeated();
  int64_t small = Pick(5) == 0 ? -Pick(300) : Pick(300);
  if (Chance(10)) small = static_cast<int64_t>(rng());  // full range
  switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32:
      rep ? r->AddInt32(m, f, static_cast<int32_t>(small)) : r->SetInt32(m, f, static_cast<int32_t>(small));
      break;
    case FD::CPPTYPE_INT64: rep ? r->AddInt64(m, f, small) : r->SetInt64(m, f, small); break;
    case FD::CPPTYPE_UINT32:
      rep ? r->AddUInt32(m, f, static_cast<uint32_t>(small)) : r->SetUInt32(m, f, static_cast<uint32_t>(small));
      break;
    case FD::CPPTYPE_UINT64:
      rep ? r->AddUInt64(m, f, static_cast<uint64_t>(small)) : r->SetUInt64(m, f, static_cast<uint64_t>(small));
      break;
    case FD::CPPTYPE_DOUBLE: {
      double v = Chance(20) ? 0.0 : static_cast<double>(small) / 8;
      rep ? r->AddDouble(m, f, v) : r->SetDouble(m, f, v);
      break;
    }
    case FD::CPPTYPE_FLOAT: {
      float v = Chance(20) ? 0.0f : static_cast<float>(small) / 4;
      rep ? r->AddFloat(m, f, v) : r->SetFloat(m, f, v);
      break;
    }
    case FD::CPPTYPE_BOOL: rep ? r->AddBool(m, f, Chance(50)) : r->SetBool(m, f, Chance(50)); break;
    case FD::CPPTYPE_ENUM: {
      const pb::EnumDescriptor* e = f->enum_type();
      int v = e->value(Pick(e->value_count()))->number();
      rep ? r->AddEnumValue(m, f, v) : r->SetEnumValue(m, f, v);
      break;
    }
    case FD::CPPTYPE_STRING: {
      std::string s = RandomString();
      rep ? r->AddString(m, f, s) : r->SetString(m, f, s);
      break;
    }
    case FD::CPPTYPE_MESSAGE: {
      pb::Message* sub = rep ? r->AddMessage(m, f, factory) : r->MutableMessage(m, f, factory);
      Fill(sub, depth + 1);
      break;
    }
  }
}

// An Any holding a random message of the Any's own file's main type.
static void FillAny(pb::Message* any, const pb::Descriptor* payload_type, int depth) {
  std::unique_ptr<pb::Message> payload(factory->GetPrototype(payload_type)->New());
  Fill(payload.get(), depth + 1);
  const pb::Reflection* r = any->GetReflection();
  r->SetString(any, any->GetDescriptor()->FindFieldByNumber(1),
               "type.googleapis.com/" + payload_type->full_name());
  r->SetString(any, any->GetDescriptor()->FindFieldByNumber(2), payload->SerializeAsString());
}

static const pb::Descriptor* AnyPayloadType(const pb::Descriptor* holder) {
  return holder->file()->message_type(holder->file()->message_type_count() > 1 ? 1 : 0);
}

static void Fill(pb::Message* m, int depth) {
  const pb::Descriptor* d = m->GetDescriptor();
  int percent = depth >= 7 ? 0 : depth >= 3 ? 15 : 35;  // nesting to depth 8
  std::vector<const FD*> fields;
  for (int i = 0; i < d->field_count(); i++) fields.push_back(d->field(i));
  std::vector<const FD*> ext;
  pool->FindAllExtensions(d, &ext);
  fields.insert(fields.end(), ext.begin(), ext.end());
  for (const FD* f : fields) {
    bool msg = f->cpp_type() == FD::CPPTYPE_MESSAGE;
    if (!Chance(msg ? percent : 45)) continue;
    if (msg && f->message_type()->full_name() == "google.protobuf.Any") {
      if (depth < 4) FillAny(m->GetReflection()->MutableMessage(m, f, factory), AnyPayloadType(d), depth);
      continue;
    }
    if (f->is_map()) {  // keys unique, as a parsed map has them
      int n = 1 + Pick(4);
      for (int k = 0; k < n; k++) {
        SetRandom(m, f, depth);
        const pb::Reflection* r = m->GetReflection();
        int last = r->FieldSize(*m, f) - 1;
        const pb::Message& e = r->GetRepeatedMessage(*m, f, last);
        const FD* kf = e.GetDescriptor()->FindFieldByNumber(1);
        for (int j = 0; j < last; j++) {
          const pb::Message& o = r->GetRepeatedMessage(*m, f, j);
          bool same = kf->cpp_type() == FD::CPPTYPE_STRING
                          ? o.GetReflection()->GetString(o, kf) == e.GetReflection()->GetString(e, kf)
                          : ScalarBits(o, kf, -1) == ScalarBits(e, kf, -1);
          if (same) {
            r->RemoveLast(m, f);
            break;
          }
        }
      }
    } else if (f->is_repeated()) {
      int n = 1 + Pick(4);
      for (int k = 0; k < n; k++) SetRandom(m, f, depth);
    } else {
      SetRandom(m, f, depth);  // a oneof keeps its last member
    }
  }
}

// ---- random encodings -------------------------------------------------------------

// Varints, sometimes padded with continuation bytes to a longer form: readers
// must not count the bytes.  Values go up to 10 bytes; tags and lengths up to
// 5, as protobuf's own reader takes them (32-bit varints).
static void PutVarintMax(std::string* o, uint64_t v, int max) {
  int len = 1;
  for (uint64_t w = v; w >= 0x80; w >>= 7) len++;
  int pad = len < max && Chance(8) ? 1 + Pick(max - len) : 0;
  for (int k = 0; k < len + pad; k++) {
    bool more = k + 1 < len + pad;
    o->push_back(static_cast<char>((v & 0x7f) | (more ? 0x80 : 0)));
    v >>= 7;
  }
}
static void PutVarint(std::string* o, uint64_t v) { PutVarintMax(o, v, 10); }
static void PutVarint32(std::string* o, uint64_t v) { PutVarintMax(o, v, 5); }
static void PutTag(std::string* o, int number, int wire) {
  PutVarint32(o, (static_cast<uint64_t>(number) << 3) | static_cast<uint64_t>(wire));
}
static void PutLen(std::string* o, int number, const std::string& payload) {
  PutTag(o, number, 2);
  PutVarint32(o, payload.size());
  o->append(payload);
}



static void PutScalarValue(std::string* o, const FD* f, uint64_t bits) {
  int wire = WireOf(f);
  if (wire == 1) PutFixed(o, bits, 8);
  else if (wire == 5) PutFixed(o, bits, 4);
  else PutVarint(o, bits);
}

// Records that must stay in this order (the elements of a repeated field, a
// decoy before the value that wins, the parts of a sub-message); different
// groups interleave at random.
typedef std::vector<std::string> Group;

// defaults: may write out a proto3 field at its default (not for the parts
// of a split message: a later part would overwrite what an earlier one set).
static std::string Encode(const pb::Message& m, bool defaults = true);

static std::string EncodeAnyValue(const pb::Message& any) {
  const pb::Reflection* r = any.GetReflection();
  std::string url = r->GetString(any, any.GetDescriptor()->FindFieldByNumber(1));
  std::string value = r->GetString(any, any.GetDescriptor()->FindFieldByNumber(2));
  const pb::Descriptor* t = pool->FindMessageTypeByName(url.substr(url.rfind('/') + 1));
  if (!t) return value;
  std::unique_ptr<pb::Message> payload(factory->GetPrototype(t)->New());
  if (!payload->ParseFromString(value)) return value;
  return Encode(*payload);
}

// One sub-message as records of its parent: in one part, or (singular ones)
// cut into several parts that the reader merges in order.
static void PutMessage(Group* g, const FD* f, const pb::Message& sub, bool may_split) {
  if (f->type() == FD::TYPE_GROUP) {
    std::string o;
    PutTag(&o, f->number(), 3);
    o += Encode(sub);
    PutTag(&o, f->number(), 4);
    g->push_back(o);
    return;
  }
  std::string body = sub.GetDescriptor()->full_name() == "google.protobuf.Any"
                         ? std::string()
                         : Encode(sub);
  if (sub.GetDescriptor()->full_name() == "google.protobuf.Any") {
    const pb::Reflection* r = sub.GetReflection();
    std::string url, val;
    PutLen(&url, 1, r->GetString(sub, sub.GetDescriptor()->FindFieldByNumber(1)));
    PutLen(&val, 2, EncodeAnyValue(sub));
    body = Chance(50) ? url + val : val + url;
  }
  // a cut between two of its records: body's records are whole encodings, so
  // cut the message's own encoding at a record boundary by encoding halves
  if (may_split && Chance(30)) {
    std::vector<const FD*> fields;
    sub.GetReflection()->ListFields(sub, &fields);
    if (fields.size() >= 2 && sub.GetDescriptor()->full_name() != "google.protobuf.Any") {
      size_t cut = 1 + static_cast<size_t>(Pick(static_cast<int>(fields.size()) - 1));
      std::unique_ptr<pb::Message> a(sub.New()), b(sub.New());
      a->CopyFrom(sub);
      b->CopyFrom(sub);
      for (size_t k = 0; k < fields.size(); k++)
        (k < cut ? b : a)->GetReflection()->ClearField(k < cut ? b.get() : a.get(), fields[k]);
      std::string pa, pb_;
      PutLen(&pa, f->number(), Encode(*a, false));
      PutLen(&pb_, f->number(), Encode(*b, false));
      g->push_back(pa);
      g->push_back(pb_);
      return;
    }
  }
  std::string o;
  PutLen(&o, f->number(), body);
  g->push_back(o);
}

// The records of one field of m.
static Group FieldRecords(const pb::Message& m, const FD* f, std::vector<Group>* others) {
  const pb::Reflection* r = m.GetReflection();
  Group g;
  int wire = WireOf(f);
  if (f->is_map()) {  // each entry a group of its own: entries shuffle
    for (int i = 0; i < r->FieldSize(m, f); i++) {
      const pb::Message& e = r->GetRepeatedMessage(m, f, i);
      const FD* kf = e.GetDescriptor()->FindFieldByNumber(1);
      const FD* vf = e.GetDescriptor()->FindFieldByNumber(2);
      Group entry;
      std::string kv[2];
      for (int part = 0; part < 2; part++) {
        const FD* pf = part ? vf : kf;
        if (pf->cpp_type() == FD::CPPTYPE_MESSAGE) {
          PutLen(&kv[part], 2, Encode(e.GetReflection()->GetMessage(e, pf)));
        } else if (WireOf(pf) == 2) {
          PutLen(&kv[part], pf->number(), e.GetReflection()->GetString(e, pf));
        } else {
          PutTag(&kv[part], pf->number(), WireOf(pf));
          PutScalarValue(&kv[part], pf, ScalarBits(e, pf, -1));
        }
      }
      std::string o;
      PutLen(&o, f->number(), Chance(30) ? kv[1] + kv[0] : kv[0] + kv[1]);
      entry.push_back(o);
      others->push_back(entry);
    }
    return g;
  }
  if (f->is_repeated()) {
    int n = r->FieldSize(m, f);
    if (wire == 0 || wire == 1 || wire == 5) {  // chunks, each packed or not
      for (int i = 0; i < n;) {
        int len = 1 + Pick(n - i);
        if (Chance(50)) {
          std::string payload, o;
          for (int k = i; k < i + len; k++) PutScalarValue(&payload, f, ScalarBits(m, f, k));
          PutLen(&o, f->number(), payload);
          g.push_back(o);
        } else {
          for (int k = i; k < i + len; k++) {
            std::string o;
            PutTag(&o, f->number(), wire);
            PutScalarValue(&o, f, ScalarBits(m, f, k));
            g.push_back(o);
          }
        }
        i += len;
      }
    } else if (f->cpp_type() == FD::CPPTYPE_MESSAGE) {
      for (int i = 0; i < n; i++) PutMessage(&g, f, r->GetRepeatedMessage(m, f, i), false);
    } else {
      for (int i = 0; i < n; i++) {
        std::string o;
        PutLen(&o, f->number(), r->GetRepeatedString(m, f, i));
        g.push_back(o);
      }
    }
    return g;
  }
  // singular: sometimes a decoy first (last value wins; for a oneof, another
  // member first).  A message is not decoyed: two records of it merge.
  if (f->cpp_type() != FD::CPPTYPE_MESSAGE && Chance(15)) {
    const FD* decoy = f;
    if (f->containing_oneof()) decoy = f->containing_oneof()->field(Pick(f->containing_oneof()->field_count()));
    std::string o;
    if (decoy->cpp_type() == FD::CPPTYPE_MESSAGE) PutLen(&o, decoy->number(), "");
    else if (WireOf(decoy) == 2) PutLen(&o, decoy->number(), "decoy");
    else { PutTag(&o, decoy->number(), WireOf(decoy)); PutScalarValue(&o, decoy, 1); }  // 1: a value of every enum
    g.push_back(o);
  }
  if (f->cpp_type() == FD::CPPTYPE_MESSAGE) {
    PutMessage(&g, f, r->GetMessage(m, f), true);
  } else {
    std::string o;
    if (wire == 2) PutLen(&o, f->number(), r->GetString(m, f));
    else { PutTag(&o, f->number(), wire); PutScalarValue(&o, f, ScalarBits(m, f, -1)); }
    g.push_back(o);
  }
  return g;
}

static std::string Interleave(std::vector<Group> groups) {
  std::string out;
  std::vector<size_t> at(groups.size(), 0);
  size_t left = 0;
  for (const Group& g : groups) left += g.size();
  while (left) {
    size_t k = static_cast<size_t>(Pick(static_cast<int>(groups.size())));
    if (at[k] == groups[k].size()) continue;
    out += groups[k][at[k]++];
    left--;
  }
  return out;
}

static std::string Encode(const pb::Message& m, bool defaults) {
  const pb::Reflection* r = m.GetReflection();
  std::vector<const FD*> fields;
  r->ListFields(m, &fields);
  std::vector<Group> groups;
  for (const FD* f : fields) {
    Group g = FieldRecords(m, f, &groups);
    if (!g.empty()) groups.push_back(g);
  }
  // proto3: a field without presence written out at its default means unset
  const pb::Descriptor* d = m.GetDescriptor();
  for (int i = 0; defaults && i < d->field_count(); i++) {
    const FD* f = d->field(i);
    if (f->has_presence() || f->is_repeated() || r->HasField(m, f) || !Chance(10)) continue;
    std::string o;
    if (WireOf(f) == 2) PutLen(&o, f->number(), "");
    else { PutTag(&o, f->number(), WireOf(f)); PutScalarValue(&o, f, 0); }
    groups.push_back(Group{o});
  }
  return Interleave(groups);
}

// ---- one changed value, and its path --------------------------------------------------

static std::string KeyText(const pb::Message& entry) {
  const FD* kf = entry.GetDescriptor()->FindFieldByNumber(1);
  const pb::Reflection* r = entry.GetReflection();
  switch (kf->cpp_type()) {
    case FD::CPPTYPE_STRING: {
      std::string s = r->GetString(entry, kf), q = "\"";
      for (unsigned char c : s) {
        if (c == '"' || c == '\\') q += '\\';
        q += static_cast<char>(c);
      }
      return q + "\"";
    }
    case FD::CPPTYPE_BOOL: return r->GetBool(entry, kf) ? "true" : "false";
    case FD::CPPTYPE_INT32: return std::to_string(r->GetInt32(entry, kf));
    case FD::CPPTYPE_INT64: return std::to_string(r->GetInt64(entry, kf));
    case FD::CPPTYPE_UINT32: return std::to_string(r->GetUInt32(entry, kf));
    case FD::CPPTYPE_UINT64: return std::to_string(r->GetUInt64(entry, kf));
    default: return "?";
  }
}

static std::string FieldName(const FD* f, bool first) {
  std::string n = f->is_extension() ? "[" + f->full_name() + "]" : f->name();
  return first ? n : "." + n;
}

static bool MutateScalar(pb::Message* m, const FD* f, int i);

// Element i of repeated field f differs from every other, before and after
// the change: otherwise the alignment may pair it with a twin elsewhere.
static bool Unique(const pb::Message& m, const FD* f, int i) {
  const pb::Reflection* r = m.GetReflection();
  for (int k = 0; k < r->FieldSize(m, f); k++) {
    if (k == i) continue;
    if (f->cpp_type() == FD::CPPTYPE_MESSAGE) {
      if (pb::util::MessageDifferencer::Equals(r->GetRepeatedMessage(m, f, k), r->GetRepeatedMessage(m, f, i)))
        return false;
    } else if (f->cpp_type() == FD::CPPTYPE_STRING) {
      if (r->GetRepeatedString(m, f, k) == r->GetRepeatedString(m, f, i)) return false;
    } else if (ScalarBits(m, f, k) == ScalarBits(m, f, i)) {
      return false;
    }
  }
  return true;
}

// Changes one value reachable from m (not inside an Any) and sets *path.
static bool Mutate(pb::Message* m, std::string* path, bool first) {
  const pb::Reflection* r = m->GetReflection();
  std::vector<const FD*> fields;
  r->ListFields(*m, &fields);
  if (fields.empty()) return false;
  for (int tries = 0; tries < 8; tries++) {
    const FD* f = fields[static_cast<size_t>(Pick(static_cast<int>(fields.size())))];
    std::string here = FieldName(f, first);
    if (f->cpp_type() == FD::CPPTYPE_MESSAGE && f->message_type()->full_name() == "google.protobuf.Any")
      continue;
    if (f->is_map()) {
      int n = r->FieldSize(*m, f);
      pb::Message* e = r->MutableRepeatedMessage(m, f, Pick(n));
      const FD* vf = e->GetDescriptor()->FindFieldByNumber(2);
      std::string at = here + "[" + KeyText(*e) + "]";
      if (vf->cpp_type() == FD::CPPTYPE_MESSAGE) {
        std::string sub;
        if (!Mutate(e->GetReflection()->MutableMessage(e, vf, factory), &sub, false)) continue;
        *path = at + sub;
        return true;
      }
      if (!MutateScalar(e, vf, -1)) continue;
      *path = at;
      return true;
    }
    if (f->is_repeated()) {
      int i = Pick(r->FieldSize(*m, f));
      if (!Unique(*m, f, i)) continue;
      std::unique_ptr<pb::Message> before(m->New());
      before->CopyFrom(*m);
      std::string at = here + "[" + std::to_string(i) + "]";
      if (f->cpp_type() == FD::CPPTYPE_MESSAGE) {
        std::string sub;
        if (!Mutate(r->MutableRepeatedMessage(m, f, i), &sub, false)) continue;
        *path = at + sub;
      } else {
        if (!MutateScalar(m, f, i)) continue;
        *path = at;
      }
      if (!Unique(*m, f, i)) {  // now a twin of another element: undo, try again
        m->CopyFrom(*before);
        continue;
      }
      return true;
    }
    if (f->cpp_type() == FD::CPPTYPE_MESSAGE) {
      std::string sub;
      if (!Mutate(r->MutableMessage(m, f, factory), &sub, false)) continue;
      *path = here + sub;
      return true;
    }
    if (!MutateScalar(m, f, -1)) continue;
    *path = here;
    return true;
  }
  return false;
}

static bool MutateScalar(pb::Message* m, const FD* f, int i) {
  const pb::Reflection* r = m->GetReflection();
  bool rep = i >= 0;
  switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32: { int32_t v = rep ? r->GetRepeatedInt32(*m, f, i) : r->GetInt32(*m, f);
      rep ? r->SetRepeatedInt32(m, f, i, v ^ 1) : r->SetInt32(m, f, v ^ 1); return true; }
    case FD::CPPTYPE_INT64: { int64_t v = rep ? r->GetRepeatedInt64(*m, f, i) : r->GetInt64(*m, f);
      rep ? r->SetRepeatedInt64(m, f, i, v ^ 1) : r->SetInt64(m, f, v ^ 1); return true; }
    case FD::CPPTYPE_UINT32: { uint32_t v = rep ? r->GetRepeatedUInt32(*m, f, i) : r->GetUInt32(*m, f);
      rep ? r->SetRepeatedUInt32(m, f, i, v ^ 1) : r->SetUInt32(m, f, v ^ 1); return true; }
    case FD::CPPTYPE_UINT64: { uint64_t v = rep ? r->GetRepeatedUInt64(*m, f, i) : r->GetUInt64(*m, f);
      rep ? r->SetRepeatedUInt64(m, f, i, v ^ 1) : r->SetUInt64(m, f, v ^ 1); return true; }
    case FD::CPPTYPE_DOUBLE: { double v = rep ? r->GetRepeatedDouble(*m, f, i) : r->GetDouble(*m, f);
      double w = v == 0 ? 1.5 : -v; rep ? r->SetRepeatedDouble(m, f, i, w) : r->SetDouble(m, f, w); return true; }
    case FD::CPPTYPE_FLOAT: { float v = rep ? r->GetRepeatedFloat(*m, f, i) : r->GetFloat(*m, f);
      float w = v == 0 ? 1.5f : -v; rep ? r->SetRepeatedFloat(m, f, i, w) : r->SetFloat(m, f, w); return true; }
    case FD::CPPTYPE_BOOL: { bool v = rep ? r->GetRepeatedBool(*m, f, i) : r->GetBool(*m, f);
      rep ? r->SetRepeatedBool(m, f, i, !v) : r->SetBool(m, f, !v); return true; }
    case FD::CPPTYPE_STRING: { std::string v = rep ? r->GetRepeatedString(*m, f, i) : r->GetString(*m, f);
      rep ? r->SetRepeatedString(m, f, i, v + "~") : r->SetString(m, f, v + "~"); return true; }
    case FD::CPPTYPE_ENUM: {
      int v = rep ? r->GetRepeatedEnumValue(*m, f, i) : r->GetEnumValue(*m, f);
      const pb::EnumDescriptor* e = f->enum_type();
      int w = e->value((e->FindValueByNumber(v)->index() + 1) % e->value_count())->number();
      rep ? r->SetRepeatedEnumValue(m, f, i, w) : r->SetEnumValue(m, f, w);
      return true;
    }
    default: return false;
  }
}

// ---- two elements swapped, and the field's path ----------------------------------------

// Whether elements i and j of repeated field f surely differ in meaning:
// by value for scalars (-0.0 is 0.0, NaN is NaN), and for messages when
// not even equivalent (defaults and unset alike, NaNs equal).
static bool Distinct(const pb::Message& m, const FD* f, int i, int j) {
  const pb::Reflection* r = m.GetReflection();
  switch (f->cpp_type()) {
    case FD::CPPTYPE_MESSAGE: {
      pb::util::DefaultFieldComparator cmp;
      cmp.set_treat_nan_as_equal(true);
      pb::util::MessageDifferencer md;
      md.set_field_comparator(&cmp);
      md.set_message_field_comparison(pb::util::MessageDifferencer::EQUIVALENT);
      return !md.Compare(r->GetRepeatedMessage(m, f, i), r->GetRepeatedMessage(m, f, j));
    }
    case FD::CPPTYPE_STRING: return r->GetRepeatedString(m, f, i) != r->GetRepeatedString(m, f, j);
    case FD::CPPTYPE_DOUBLE: {
      double a = r->GetRepeatedDouble(m, f, i), b = r->GetRepeatedDouble(m, f, j);
      return !(a == b || (a != a && b != b));
    }
    case FD::CPPTYPE_FLOAT: {
      float a = r->GetRepeatedFloat(m, f, i), b = r->GetRepeatedFloat(m, f, j);
      return !(a == b || (a != a && b != b));
    }
    default: return ScalarBits(m, f, i) != ScalarBits(m, f, j);
  }
}

// With noise: after the swap, one singular scalar field F of the swapped
// messages is changed in both, where the two stay distinct with F left out
// everywhere (*noise = F): under --ignore F the swap alone must remain.
static bool AddNoise(pb::Message* m, const FD* f, int i, int j, const FD** noise) {
  const pb::Reflection* r = m->GetReflection();
  pb::Message* e = r->MutableRepeatedMessage(m, f, i);
  std::vector<const FD*> leaves;
  e->GetReflection()->ListFields(*e, &leaves);
  for (const FD* leaf : leaves) {
    if (leaf->is_repeated() || leaf->cpp_type() == FD::CPPTYPE_MESSAGE || leaf->containing_oneof()) continue;
    pb::util::DefaultFieldComparator cmp;
    cmp.set_treat_nan_as_equal(true);
    pb::util::MessageDifferencer md;
    md.set_field_comparator(&cmp);
    md.set_message_field_comparison(pb::util::MessageDifferencer::EQUIVALENT);
    md.IgnoreField(leaf);
    if (md.Compare(r->GetRepeatedMessage(*m, f, i), r->GetRepeatedMessage(*m, f, j))) continue;
    if (!MutateScalar(e, leaf, -1)) continue;
    MutateScalar(r->MutableRepeatedMessage(m, f, j), leaf, -1);  // both: no twin left to align
    *noise = leaf;
    return true;
  }
  return false;
}

// Swaps two distinct elements of one ordered repeated field reachable from
// m (not a map, not inside an Any) and sets *path to the field's path.  With
// noise non-null, only message elements, and AddNoise changes one of them.
static bool Swap(pb::Message* m, std::string* path, bool first, const FD** noise = nullptr) {
  const pb::Reflection* r = m->GetReflection();
  std::vector<const FD*> fields;
  r->ListFields(*m, &fields);
  std::vector<size_t> order(fields.size());
  for (size_t k = 0; k < order.size(); k++) order[k] = k;
  for (size_t k = order.size(); k > 1; k--) std::swap(order[k - 1], order[static_cast<size_t>(Pick(static_cast<int>(k)))]);
  for (size_t k : order) {
    const FD* f = fields[k];
    std::string here = FieldName(f, first);
    if (f->cpp_type() == FD::CPPTYPE_MESSAGE && f->message_type()->full_name() == "google.protobuf.Any")
      continue;
    if (f->is_repeated() && !f->is_map() && (!noise || f->cpp_type() == FD::CPPTYPE_MESSAGE)) {
      int n = r->FieldSize(*m, f);
      for (int i = 0; i + 1 < n; i++) {
        int j = i + 1 + Pick(n - i - 1);
        if (!Distinct(*m, f, i, j)) continue;
        std::unique_ptr<pb::Message> before(m->New());
        before->CopyFrom(*m);
        r->SwapElements(m, f, i, j);
        if (noise && !AddNoise(m, f, i, j, noise)) {
          m->CopyFrom(*before);
          continue;
        }
        *path = here;
        return true;
      }
    }
    if (f->cpp_type() != FD::CPPTYPE_MESSAGE) continue;
    if (f->is_map()) {
      int n = r->FieldSize(*m, f);
      const FD* vf = f->message_type()->FindFieldByNumber(2);
      if (vf->cpp_type() != FD::CPPTYPE_MESSAGE) continue;
      for (int i = 0; i < n; i++) {
        pb::Message* e = r->MutableRepeatedMessage(m, f, i);
        std::string sub;
        if (Swap(e->GetReflection()->MutableMessage(e, vf, factory), &sub, false, noise)) {
          *path = here + "[" + KeyText(*e) + "]" + sub;
          return true;
        }
      }
    } else if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(*m, f); i++) {
        std::string sub;
        if (Swap(r->MutableRepeatedMessage(m, f, i), &sub, false, noise)) {
          *path = here + "[" + std::to_string(i) + "]" + sub;
          return true;
        }
      }
    } else {
      std::string sub;
      if (Swap(r->MutableMessage(m, f, factory), &sub, false, noise)) {
        *path = here + sub;
        return true;
      }
    }
  }
  return false;
}

// ---- main -----------------------------------------------------------------------------

static void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) {
    std::cerr << "property: cannot write " << path << '\n';
    exit(2);
  }
}

// The encoding means m: the library parses it back to a message equal to m.
static void Check(const pb::Message& m, const std::string& bytes, int n) {
  std::unique_ptr<pb::Message> back(m.New());
  if (!back->ParseFromString(bytes) || !pb::util::MessageDifferencer::Equivalent(m, *back)) {
    WriteFile("property-bad.bin", bytes);
    std::cerr << "property: case " << n << ": the encoder is wrong (property-bad.bin)\n" << m.DebugString() << "\nvs\n"
              << back->DebugString();
    exit(2);
  }
}

static std::string ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

static bool LoadPool(const char* desc) {
  pb::FileDescriptorSet set;
  if (!set.ParseFromString(ReadFile(desc))) return false;
  pool = new pb::DescriptorPool;
  for (const auto& file : set.file())
    if (!pool->BuildFile(file)) return false;
  factory = new pb::DynamicMessageFactory(pool);
  return true;
}

// property --same DESC.pb TYPE FILE CANON...: each CANON (pbdiff cat
// --format binary of FILE) parses with the library to a message equivalent
// to FILE's.  Exit 0 when all do, 1 naming the first that does not.
static int Same(const pb::Descriptor* type, int n, char** files) {
  std::unique_ptr<pb::Message> orig(factory->GetPrototype(type)->New());
  if (!orig->ParseFromString(ReadFile(files[0]))) {
    std::cerr << "property --same: " << files[0] << " does not parse\n";
    return 2;
  }
  for (int i = 1; i < n; i++) {
    std::unique_ptr<pb::Message> back(orig->New());
    if (!back->ParseFromString(ReadFile(files[i])) ||
        !pb::util::MessageDifferencer::Equivalent(*orig, *back)) {
      std::cerr << "property --same: " << files[i] << " does not parse to " << files[0] << "'s message\n";
      return 1;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 5 && !strcmp(argv[1], "--same")) {
    if (!LoadPool(argv[2])) return 2;
    const pb::Descriptor* type = pool->FindMessageTypeByName(argv[3]);
    return type ? Same(type, argc - 4, argv + 4) : 2;
  }
  if (argc != 6) {
    std::cerr << "usage: property DESC.pb TYPE SEED COUNT OUTDIR\n"
                 "       property --same DESC.pb TYPE FILE CANON...\n";
    return 2;
  }
  if (!LoadPool(argv[1])) return 2;
  const pb::Descriptor* type = pool->FindMessageTypeByName(argv[2]);
  if (!type) return 2;
  rng.seed(std::stoull(argv[3]));
  int count = std::stoi(argv[4]);
  std::string out = argv[5];
  for (const char* sub : {"", "/A", "/B", "/C", "/D", "/N"}) mkdir((out + sub).c_str(), 0755);
  std::ofstream swaps(out + "/swaps"), noisy(out + "/noisy");
  for (int n = 0; n < count; n++) {
    std::unique_ptr<pb::Message> m(factory->GetPrototype(type)->New());
    Fill(m.get(), 0);
    std::string a = Encode(*m), b = Encode(*m);
    Check(*m, a, n);
    Check(*m, b, n);
    std::string name = std::to_string(n) + ".bin";
    std::unique_ptr<pb::Message> swapped(m->New());
    swapped->CopyFrom(*m);
    std::string field;
    if (Swap(swapped.get(), &field, true)) {  // case D: two elements swapped
      std::string d = Encode(*swapped);
      Check(*swapped, d, n);
      WriteFile(out + "/D/" + name, d);
      swaps << name << '\t' << field << '\n';
    }
    swapped->CopyFrom(*m);
    const FD* noise = nullptr;
    if (Swap(swapped.get(), &field, true, &noise)) {  // case N: swapped, and noise in them
      std::string d = Encode(*swapped);
      Check(*swapped, d, n);
      WriteFile(out + "/N/" + name, d);
      noisy << name << '\t' << field << '\t' << noise->full_name() << '\n';
    }
    std::string path;
    if (!Mutate(m.get(), &path, true)) continue;  // nothing to change: no case C
    std::string c = Encode(*m);
    Check(*m, c, n);
    WriteFile(out + "/A/" + name, a);
    WriteFile(out + "/B/" + name, b);
    WriteFile(out + "/C/" + name, c);
    std::cout << name << '\t' << path << '\n';
  }
  return 0;
}
