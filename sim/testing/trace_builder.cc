#include "sim/testing/trace_builder.h"

#include <fcntl.h>
#include <unistd.h>

#include "common/trace_writer.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/delimited_message_util.h"
#include "proto/stream_version.h"
#include "sim/testing/cli_runner.h"

namespace pto::testing {

TraceBuilder::TraceBuilder(std::string launch_name) {
  text_.mutable_header()->set_version(kTaskStreamVersion);
  text_.mutable_header()->set_platform("test");
  text_.add_records()->mutable_launch_begin()->set_name(std::move(launch_name));
  BeginScope();  // the jit body's auto scope, depth 1
}

uint32_t TraceBuilder::Tensor(const std::string& name, int64_t rows, int64_t cols, bool contents) {
  trace::Tensor* t = text_.mutable_header()->add_tensors();
  t->set_id(text_.header().tensors_size() - 1);
  t->set_name(name);
  t->set_dtype(trace::FP32);
  t->add_shape(rows);
  t->add_shape(cols);
  t->set_size_bytes(rows * cols * 4);
  t->set_gm_addr(next_addr_);
  next_addr_ += (t->size_bytes() + 1023) / 1024 * 1024;
  if (contents) t->mutable_init()->set_zeros(true);
  return t->id();
}

uint32_t TraceBuilder::CostKernel(const std::string& name, trace::CoreType type, uint64_t cycles) {
  trace::Kernel* k = text_.mutable_header()->add_kernels();
  k->set_id(text_.header().kernels_size() - 1);
  k->set_name(name);
  k->set_core_type(type);
  k->mutable_cost()->set_fixed_cycles(cycles);
  return k->id();
}

void TraceBuilder::BeginScope(trace::ScopeBegin::Mode mode) {
  scopes_.push_back(mode);
  auto* begin = text_.add_records()->mutable_scope_begin();
  begin->set_mode(mode);
  begin->set_depth(scopes_.size());
}

void TraceBuilder::EndScope() {
  text_.add_records()->mutable_scope_end()->set_depth(scopes_.size());
  scopes_.pop_back();
}

uint32_t TraceBuilder::Submit(const std::string& name, uint32_t kernel, std::vector<TensorUse> args,
                              std::vector<uint32_t> deps, int64_t blocks, bool early,
                              bool sync_start) {
  trace::Submit* s = text_.add_records()->mutable_submit();
  s->set_name(name);
  const trace::CoreType type = text_.header().kernels(kernel).core_type();
  s->add_kernel_ids(type == trace::AIV ? -1 : static_cast<int32_t>(kernel));
  s->add_kernel_ids(type == trace::AIC ? -1 : static_cast<int32_t>(kernel));
  s->add_kernel_ids(type == trace::MIX ? static_cast<int32_t>(kernel) : -1);
  s->set_block_num(blocks);
  s->set_allow_early_resolve(early);
  s->set_sync_start(sync_start);
  s->set_scope_depth(scopes_.size());
  for (const TensorUse& use : args) {
    trace::TensorArg* arg = s->add_args()->mutable_tensor();
    arg->set_tensor_id(use.tensor);
    arg->set_direction(use.direction);
  }
  for (uint32_t dep : deps) s->add_deps(dep);
  return next_index_++;
}

uint32_t TraceBuilder::Dummy(const std::string& name, std::vector<uint32_t> deps) {
  trace::Dummy* d = text_.add_records()->mutable_dummy();
  d->set_name(name);
  d->set_scope_depth(scopes_.size());
  for (uint32_t dep : deps) d->add_deps(dep);
  return next_index_++;
}

trace::TraceText TraceBuilder::Finish() {
  while (!scopes_.empty()) EndScope();
  text_.add_records()->mutable_launch_end();
  return text_;
}

trace::TraceText LoadTraceFile(const std::string& path) {
  trace::TraceText text;
  if (path.size() > 6 && path.substr(path.size() - 6) == ".pbtxt") {
    google::protobuf::TextFormat::ParseFromString(ReadFile(path), &text);
    return text;
  }
  const int fd = open(path.c_str(), O_RDONLY);
  google::protobuf::io::FileInputStream input(fd);
  bool clean_eof = false;
  google::protobuf::util::ParseDelimitedFromZeroCopyStream(text.mutable_header(), &input,
                                                           &clean_eof);
  while (true) {
    trace::StreamRecord record;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&record, &input, &clean_eof)) {
      break;
    }
    *text.add_records() = std::move(record);
  }
  close(fd);
  return text;
}

std::string SaveTraceFile(const trace::TraceText& text, const std::string& name) {
  const std::string path = FreshDir("trace_" + name) + "/" + name + ".pbtxt";
  (void)WriteTraceText(path, text);
  return path;
}

}  // namespace pto::testing
