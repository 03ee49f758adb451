// md_compare: the comparison a C++ user would write with the protobuf library,
// as the benchmark's reference: parse both files into dynamic messages and ask
// google::protobuf::util::MessageDifferencer (default settings: Equals).
//
//   md_compare [--report] DESC.pb TYPE LEFT RIGHT
//     DESC.pb  a FileDescriptorSet (protoc --include_imports -o DESC.pb ...)
//   exit 0 equal, 1 different, 2 error; prints nothing unless --report.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/util/message_differencer.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

namespace pb = google::protobuf;

static bool ReadFile(const char* path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return !in.bad();
}

// The default 64 MiB total-bytes limit would reject the larger models.
static bool Parse(const std::string& data, pb::Message* msg) {
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(data.data()),
                              static_cast<int>(data.size()));
  in.SetTotalBytesLimit(INT_MAX);
  return msg->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

int main(int argc, char** argv) {
  bool report = argc > 1 && std::strcmp(argv[1], "--report") == 0;
  if (report) {
    argc--;
    argv++;
  }
  if (argc != 5) {
    std::fprintf(stderr, "usage: md_compare [--report] DESC.pb TYPE LEFT RIGHT\n");
    return 2;
  }
  std::string desc_bytes;
  pb::FileDescriptorSet set;
  if (!ReadFile(argv[1], &desc_bytes) || !set.ParseFromString(desc_bytes)) {
    std::fprintf(stderr, "md_compare: cannot read descriptor set %s\n", argv[1]);
    return 2;
  }
  pb::DescriptorPool pool;
  for (const auto& file : set.file()) {
    if (pool.BuildFile(file) == nullptr) {
      std::fprintf(stderr, "md_compare: bad file %s in %s\n", file.name().c_str(), argv[1]);
      return 2;
    }
  }
  const pb::Descriptor* type = pool.FindMessageTypeByName(argv[2]);
  if (type == nullptr) {
    std::fprintf(stderr, "md_compare: no message type %s\n", argv[2]);
    return 2;
  }
  pb::DynamicMessageFactory factory(&pool);
  std::unique_ptr<pb::Message> left(factory.GetPrototype(type)->New());
  std::unique_ptr<pb::Message> right(factory.GetPrototype(type)->New());
  for (int i = 0; i < 2; i++) {
    // Each file's bytes are dropped once parsed, as a streaming parse would.
    std::string bytes;
    if (!ReadFile(argv[3 + i], &bytes) || !Parse(bytes, i ? right.get() : left.get())) {
      std::fprintf(stderr, "md_compare: cannot parse %s as %s\n", argv[3 + i], argv[2]);
      return 2;
    }
  }

  pb::util::MessageDifferencer differ;
  std::string text;
  if (report) differ.ReportDifferencesToString(&text);
  bool equal = differ.Compare(*left, *right);
  if (report) std::fputs(text.c_str(), stdout);
  return equal ? 0 : 1;
}
