#include "frontend/kernel_sharing.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace pto::ptoc {
namespace {

// The integer constants of a program's GM offsets, in a fixed walk order.
void CollectOffsetConstants(google::protobuf::RepeatedPtrField<trace::Op>* ops,
                            std::vector<trace::IntExpr*>* out) {
  for (trace::Op& op : *ops) {
    switch (op.kind()) {
      case trace::Op::LOAD:
      case trace::Op::STORE:
      case trace::Op::CACHE_INVALID: {
        std::vector<trace::IntExpr*> stack;
        for (auto it = op.mutable_offsets()->rbegin(); it != op.mutable_offsets()->rend(); ++it) {
          stack.push_back(&*it);
        }
        while (!stack.empty()) {
          trace::IntExpr* e = stack.back();
          stack.pop_back();
          if (e->kind_case() == trace::IntExpr::kConstant) {
            out->push_back(e);
          } else if (e->kind_case() == trace::IntExpr::kBinary) {
            stack.push_back(e->mutable_binary()->mutable_rhs());
            stack.push_back(e->mutable_binary()->mutable_lhs());
          }
        }
        break;
      }
      case trace::Op::LOOP:
        CollectOffsetConstants(op.mutable_loop()->mutable_body(), out);
        break;
      case trace::Op::IF:
        CollectOffsetConstants(op.mutable_branch()->mutable_then_body(), out);
        CollectOffsetConstants(op.mutable_branch()->mutable_else_body(), out);
        break;
      default:
        break;
    }
  }
}

// A kernel with its offset constants zeroed (the key of kernels that may
// share) and the constants' values.
struct Shape {
  std::string key;
  std::vector<int64_t> constants;
};

Shape ShapeOf(const trace::Kernel& kernel) {
  trace::Kernel copy = kernel;
  copy.clear_id();
  copy.clear_name();
  copy.clear_origin();
  // Tensor parameters are named after the tensors of the first call; the
  // calls of one body differ there too.
  for (trace::KernelParam& param : *copy.mutable_program()->mutable_params()) param.clear_name();
  std::vector<trace::IntExpr*> leaves;
  CollectOffsetConstants(copy.mutable_program()->mutable_ops(), &leaves);
  Shape shape;
  shape.constants.reserve(leaves.size());
  for (trace::IntExpr* leaf : leaves) {
    shape.constants.push_back(leaf->constant());
    leaf->set_constant(0);
  }
  copy.SerializeToString(&shape.key);
  return shape;
}

// `base` or, if a parameter has that name, `base` with leading underscores.
std::string FreshName(const trace::KernelProgram& program, std::string base) {
  absl::flat_hash_set<std::string> taken;
  for (const auto& p : program.params()) taken.insert(p.name());
  while (taken.contains(base)) base = absl::StrCat("_", base);
  return base;
}

// Parameters the members name differently take a neutral name.
void NameParamsForAllMembers(const google::protobuf::RepeatedPtrField<trace::Kernel>& kernels,
                             const std::vector<int>& members, trace::KernelProgram* program) {
  for (int p = 0; p < program->params_size(); ++p) {
    for (int m : members) {
      if (kernels.Get(m).program().params(p).name() != program->params(p).name()) {
        program->mutable_params(p)->set_name(FreshName(*program, absl::StrCat("arg", p)));
        break;
      }
    }
  }
}

}  // namespace

void ShareKernelsAcrossOffsets(trace::TraceText* text) {
  auto* kernels = text->mutable_header()->mutable_kernels();
  const int count = kernels->size();
  // Kernels a submit pairs with another kernel share its argument list with
  // that kernel: they keep their parameters.
  std::vector<bool> pinned(static_cast<size_t>(count), false);
  for (const trace::StreamRecord& record : text->records()) {
    if (!record.has_submit()) continue;
    int32_t first = -1;
    bool mixed = false;
    for (int32_t id : record.submit().kernel_ids()) {
      if (id < 0) continue;
      if (first >= 0 && id != first) mixed = true;
      if (first < 0) first = id;
    }
    if (!mixed) continue;
    for (int32_t id : record.submit().kernel_ids()) {
      if (id >= 0 && id < count) pinned[static_cast<size_t>(id)] = true;
    }
  }

  // Groups of kernels equal up to their offset constants, by first member.
  std::vector<Shape> shapes(static_cast<size_t>(count));
  std::vector<int> group_of(static_cast<size_t>(count), -1);
  std::vector<std::vector<int>> groups;
  absl::flat_hash_map<std::string, int> group_by_key;
  for (int k = 0; k < count; ++k) {
    const trace::Kernel& kernel = kernels->Get(k);
    if (pinned[static_cast<size_t>(k)] || !kernel.has_program()) {
      group_of[static_cast<size_t>(k)] = static_cast<int>(groups.size());
      groups.push_back({k});
      continue;
    }
    shapes[static_cast<size_t>(k)] = ShapeOf(kernel);
    auto [it, inserted] = group_by_key.try_emplace(shapes[static_cast<size_t>(k)].key,
                                                   static_cast<int>(groups.size()));
    if (inserted) groups.emplace_back();
    groups[static_cast<size_t>(it->second)].push_back(k);
    group_of[static_cast<size_t>(k)] = it->second;
  }
  if (groups.size() == static_cast<size_t>(count)) return;

  // Per group: its kernel (the first member, the differing constants made
  // parameters) and, per member, the values it passes for them.
  std::vector<trace::Kernel> merged;
  merged.reserve(groups.size());
  std::vector<std::vector<int64_t>> extra_args(static_cast<size_t>(count));
  for (const std::vector<int>& members : groups) {
    trace::Kernel kernel = kernels->Get(members.front());
    kernel.set_id(static_cast<uint32_t>(merged.size()));
    if (members.size() > 1) {
      NameParamsForAllMembers(*kernels, members, kernel.mutable_program());
      const std::vector<int64_t>& first = shapes[static_cast<size_t>(members.front())].constants;
      std::vector<size_t> varying;
      for (size_t c = 0; c < first.size(); ++c) {
        for (int m : members) {
          if (shapes[static_cast<size_t>(m)].constants[c] != first[c]) {
            varying.push_back(c);
            break;
          }
        }
      }
      std::vector<trace::IntExpr*> leaves;
      trace::KernelProgram* program = kernel.mutable_program();
      CollectOffsetConstants(program->mutable_ops(), &leaves);
      for (size_t v = 0; v < varying.size(); ++v) {
        const int index = program->params_size();
        std::string name = FreshName(*program, absl::StrCat("offset", v));
        trace::KernelParam* param = program->add_params();
        param->set_name(std::move(name));
        param->set_kind(trace::KernelParam::SCALAR);
        param->set_dtype(trace::INT64);
        leaves[varying[v]]->set_scalar_param(static_cast<uint32_t>(index));
      }
      for (int m : members) {
        std::vector<int64_t>& args = extra_args[static_cast<size_t>(m)];
        for (size_t c : varying) args.push_back(shapes[static_cast<size_t>(m)].constants[c]);
      }
    }
    merged.push_back(std::move(kernel));
  }

  kernels->Clear();
  for (trace::Kernel& kernel : merged) *kernels->Add() = std::move(kernel);
  for (trace::StreamRecord& record : *text->mutable_records()) {
    if (!record.has_submit()) continue;
    trace::Submit* submit = record.mutable_submit();
    int32_t used = -1;
    for (int i = 0; i < submit->kernel_ids_size(); ++i) {
      const int32_t id = submit->kernel_ids(i);
      if (id < 0 || id >= count) continue;
      used = id;
      submit->set_kernel_ids(i, group_of[static_cast<size_t>(id)]);
    }
    if (used < 0) continue;
    for (int64_t value : extra_args[static_cast<size_t>(used)]) {
      submit->add_args()->mutable_scalar()->set_i(value);
    }
  }
}

}  // namespace pto::ptoc
