#include "frontend/host_tensor.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/dtype.h"

namespace pto::ptoc {

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

double RoundToDType(trace::DType dtype, double v) {
  unsigned char buf[8];
  StoreFromDouble(dtype, v, buf);
  return LoadAsDouble(dtype, buf);
}

HostTensor::HostTensor(std::vector<int64_t> shape, trace::DType dtype, Contents contents)
    : shape_(std::move(shape)),
      dtype_(dtype),
      numel_(NumElements(shape_)),
      shape_only_(contents == Contents::kShapeOnly),
      values_(shape_only_ ? 0 : numel_, 0.0) {}

void HostTensor::Set(int64_t i, double v) {
  if (!shape_only_) values_[i] = RoundToDType(dtype_, v);
  provenance_.reset();
}

void HostTensor::Assign(const std::vector<double>& values) {
  for (size_t i = 0; i < values.size() && i < values_.size(); ++i) {
    values_[i] = RoundToDType(dtype_, values[i]);
  }
  provenance_.reset();
}

std::string HostTensor::Bytes(trace::DType dtype) const {
  const size_t elem = DTypeSize(dtype);
  std::string bytes(values_.size() * elem, '\0');
  for (size_t i = 0; i < values_.size(); ++i) StoreFromDouble(dtype, values_[i], &bytes[i * elem]);
  return bytes;
}

trace::TensorInit HostTensor::ToInit() const {
  if (provenance_) return *provenance_;
  trace::TensorInit init;
  if (shape_only_) return init;  // no contents to describe
  bool all_zero = true;
  for (double v : values_) {
    if (v != 0.0 || std::signbit(v)) {
      all_zero = false;
      break;
    }
  }
  if (all_zero) {
    init.set_zeros(true);
  } else {
    init.set_data(Bytes(dtype_));
  }
  return init;
}

trace::DType PromoteDTypes(trace::DType a, trace::DType b) {
  if (a == b) return a;
  const bool fa = IsFloat(a), fb = IsFloat(b);
  if (fa && !fb) return a;
  if (fb && !fa) return b;
  if (fa && fb) {
    if (a == trace::FP32 || b == trace::FP32) return trace::FP32;
    return trace::FP32;  // FP16 with BF16 promotes to FP32 in torch
  }
  return DTypeSize(a) >= DTypeSize(b) ? a : b;
}

namespace {

// Broadcast shape of two shapes, numpy rules.
absl::StatusOr<std::vector<int64_t>> BroadcastShape(const std::vector<int64_t>& a,
                                                    const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("shapes ", ShapeString(a), " and ", ShapeString(b), " do not broadcast"));
    }
    out[i] = std::max(da, db);
  }
  return out;
}

// Flat index into a tensor of `shape` for the element at `coord` of the
// broadcast result (trailing-aligned, size-1 dims repeat).
int64_t BroadcastOffset(const std::vector<int64_t>& shape, const std::vector<int64_t>& coord) {
  int64_t offset = 0;
  const size_t skip = coord.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t c = shape[i] == 1 ? 0 : coord[skip + i];
    offset = offset * shape[i] + c;
  }
  return offset;
}

bool NextCoord(const std::vector<int64_t>& shape, std::vector<int64_t>* coord) {
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    if (++(*coord)[i] < shape[i]) return true;
    (*coord)[i] = 0;
  }
  return false;
}

// A result tensor: shape-only when any operand is, so nothing is computed.
std::shared_ptr<HostTensor> Result(std::vector<int64_t> shape, trace::DType dtype,
                                   std::initializer_list<const HostTensor*> operands) {
  bool shape_only = false;
  for (const HostTensor* t : operands) shape_only |= t != nullptr && t->shape_only();
  return std::make_shared<HostTensor>(
      std::move(shape), dtype,
      shape_only ? HostTensor::Contents::kShapeOnly : HostTensor::Contents::kValues);
}

}  // namespace

absl::StatusOr<std::shared_ptr<HostTensor>> HostBinary(
    const HostTensor* a, double a_scalar, bool a_float, const HostTensor* b, double b_scalar,
    bool b_float, const std::function<double(double, double)>& fn, bool comparison) {
  std::vector<int64_t> sa = a ? a->shape() : std::vector<int64_t>{};
  std::vector<int64_t> sb = b ? b->shape() : std::vector<int64_t>{};
  auto shape = BroadcastShape(sa, sb);
  if (!shape.ok()) return shape.status();
  trace::DType dtype;
  if (a && b) {
    dtype = PromoteDTypes(a->dtype(), b->dtype());
  } else {
    const HostTensor* t = a ? a : b;
    const bool scalar_float = a ? b_float : a_float;
    dtype = scalar_float && !IsFloat(t->dtype()) ? trace::FP32 : t->dtype();
  }
  if (comparison) dtype = trace::BOOL;
  auto out = Result(*shape, dtype, {a, b});
  if (out->shape_only()) return out;
  std::vector<int64_t> coord(shape->size(), 0);
  const int64_t n = NumElements(*shape);
  std::vector<double> values(n);
  for (int64_t i = 0; i < n; ++i) {
    const double x = a ? a->values()[BroadcastOffset(sa, coord)] : a_scalar;
    const double y = b ? b->values()[BroadcastOffset(sb, coord)] : b_scalar;
    values[i] = fn(x, y);
    NextCoord(*shape, &coord);
  }
  out->Assign(values);
  return out;
}

std::shared_ptr<HostTensor> HostUnary(const HostTensor& a,
                                      const std::function<double(double)>& fn) {
  auto out = Result(a.shape(), a.dtype(), {&a});
  if (out->shape_only()) return out;
  std::vector<double> values(a.numel());
  for (int64_t i = 0; i < a.numel(); ++i) values[i] = fn(a.values()[i]);
  out->Assign(values);
  return out;
}

absl::StatusOr<std::shared_ptr<HostTensor>> HostMatmul(const HostTensor& a, const HostTensor& b) {
  if (a.shape().size() != 2 || b.shape().size() != 2 || a.shape()[1] != b.shape()[0]) {
    return absl::InvalidArgumentError(absl::StrCat("matmul needs [m, k] @ [k, n], got ",
                                                   ShapeString(a.shape()), " @ ",
                                                   ShapeString(b.shape())));
  }
  const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  auto out = Result({m, n}, PromoteDTypes(a.dtype(), b.dtype()), {&a, &b});
  if (out->shape_only()) return out;
  std::vector<double> values(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t kk = 0; kk < k; ++kk) {
      const double x = a.values()[i * k + kk];
      for (int64_t j = 0; j < n; ++j) values[i * n + j] += x * b.values()[kk * n + j];
    }
  }
  out->Assign(values);
  return out;
}

std::shared_ptr<HostTensor> HostCast(const HostTensor& a, trace::DType dtype) {
  auto out = Result(a.shape(), dtype, {&a});
  out->Assign(a.values());
  return out;
}

absl::StatusOr<std::shared_ptr<HostTensor>> HostCat(
    const std::vector<std::shared_ptr<HostTensor>>& parts, int64_t dim) {
  if (parts.empty()) return absl::InvalidArgumentError("torch.cat needs at least one tensor");
  const auto& first = parts[0]->shape();
  const int64_t rank = first.size();
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return absl::InvalidArgumentError("torch.cat: dim out of range");
  std::vector<int64_t> shape = first;
  shape[dim] = 0;
  trace::DType dtype = parts[0]->dtype();
  for (const auto& p : parts) {
    if (p->shape().size() != first.size()) {
      return absl::InvalidArgumentError("torch.cat: tensors must have the same rank");
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d != dim && p->shape()[d] != first[d]) {
        return absl::InvalidArgumentError(absl::StrCat("torch.cat: shapes ", ShapeString(first),
                                                       " and ", ShapeString(p->shape()),
                                                       " differ outside dim ", dim));
      }
    }
    shape[dim] += p->shape()[dim];
    dtype = PromoteDTypes(dtype, p->dtype());
  }
  bool shape_only = false;
  for (const auto& p : parts) shape_only |= p->shape_only();
  auto out = std::make_shared<HostTensor>(
      shape, dtype, shape_only ? HostTensor::Contents::kShapeOnly : HostTensor::Contents::kValues);
  if (shape_only) return out;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= shape[d];
  for (int64_t d = dim + 1; d < rank; ++d) inner *= shape[d];
  std::vector<double> values;
  values.reserve(out->numel());
  for (int64_t o = 0; o < outer; ++o) {
    for (const auto& p : parts) {
      const int64_t chunk = p->shape()[dim] * inner;
      values.insert(values.end(), p->values().begin() + o * chunk,
                    p->values().begin() + (o + 1) * chunk);
    }
  }
  out->Assign(values);
  return out;
}

absl::StatusOr<std::shared_ptr<HostTensor>> HostRoll(const HostTensor& a, int64_t shift,
                                                     std::optional<int64_t> dim) {
  auto out = Result(a.shape(), a.dtype(), {&a});
  if (out->shape_only()) return out;
  const int64_t n = a.numel();
  std::vector<double> values(n);
  if (!dim) {
    for (int64_t i = 0; i < n; ++i) values[((i + shift) % n + n) % n] = a.values()[i];
  } else {
    const int64_t rank = a.shape().size();
    int64_t d = *dim < 0 ? *dim + rank : *dim;
    if (d < 0 || d >= rank) return absl::InvalidArgumentError("torch.roll: dim out of range");
    int64_t inner = 1;
    for (int64_t k = d + 1; k < rank; ++k) inner *= a.shape()[k];
    const int64_t len = a.shape()[d];
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = (i / inner) % len;
      const int64_t moved = ((c + shift) % len + len) % len;
      values[i + (moved - c) * inner] = a.values()[i];
    }
  }
  out->Assign(values);
  return out;
}

absl::StatusOr<std::shared_ptr<HostTensor>> HostWhere(const HostTensor& cond, const HostTensor& a,
                                                      const HostTensor& b) {
  if (cond.shape() != a.shape() || a.shape() != b.shape()) {
    return absl::InvalidArgumentError("torch.where: ptoc needs equal shapes");
  }
  auto out = Result(a.shape(), PromoteDTypes(a.dtype(), b.dtype()), {&cond, &a, &b});
  if (out->shape_only()) return out;
  std::vector<double> values(a.numel());
  for (int64_t i = 0; i < a.numel(); ++i) {
    values[i] = cond.values()[i] != 0.0 ? a.values()[i] : b.values()[i];
  }
  out->Assign(values);
  return out;
}

absl::StatusOr<ResolvedIndex> ResolveIndex(const std::vector<int64_t>& shape,
                                           const std::vector<HostIndex>& index) {
  if (index.size() > shape.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("too many indices (", index.size(), ") for a tensor of rank ", shape.size()));
  }
  ResolvedIndex r;
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t len = shape[d];
    if (d >= index.size()) {
      r.start.push_back(0);
      r.count.push_back(len);
      r.step.push_back(1);
      r.keep.push_back(true);
      continue;
    }
    const HostIndex& ix = index[d];
    if (!ix.is_slice) {
      int64_t i = ix.index < 0 ? ix.index + len : ix.index;
      if (i < 0 || i >= len) {
        return absl::InvalidArgumentError(
            absl::StrCat("index ", ix.index, " is out of range for dim ", d, " of size ", len));
      }
      r.start.push_back(i);
      r.count.push_back(1);
      r.step.push_back(1);
      r.keep.push_back(false);
      continue;
    }
    const int64_t step = ix.step.value_or(1);
    if (step <= 0) return absl::InvalidArgumentError("slice steps must be positive");
    auto clamp = [&](int64_t v) {
      if (v < 0) v += len;
      return std::min(std::max<int64_t>(v, 0), len);
    };
    const int64_t start = ix.start ? clamp(*ix.start) : 0;
    const int64_t stop = ix.stop ? clamp(*ix.stop) : len;
    r.start.push_back(start);
    r.count.push_back(stop > start ? (stop - start + step - 1) / step : 0);
    r.step.push_back(step);
    r.keep.push_back(true);
  }
  return r;
}

namespace {

// Calls fn(flat source index, flat region index) for every element of `r`.
void ForEachInRegion(const std::vector<int64_t>& shape, const ResolvedIndex& r,
                     const std::function<void(int64_t, int64_t)>& fn) {
  const size_t rank = shape.size();
  if (NumElements(r.count) == 0) return;
  std::vector<int64_t> coord(rank, 0);
  int64_t k = 0;
  do {
    int64_t flat = 0;
    for (size_t d = 0; d < rank; ++d) flat = flat * shape[d] + r.start[d] + coord[d] * r.step[d];
    fn(flat, k++);
  } while (NextCoord(r.count, &coord));
}

}  // namespace

std::shared_ptr<HostTensor> HostGather(const HostTensor& a, const ResolvedIndex& r) {
  std::vector<int64_t> shape;
  for (size_t d = 0; d < r.count.size(); ++d) {
    if (r.keep[d]) shape.push_back(r.count[d]);
  }
  auto out = Result(shape, a.dtype(), {&a});
  if (out->shape_only()) return out;
  std::vector<double> values(NumElements(r.count));
  ForEachInRegion(a.shape(), r, [&](int64_t src, int64_t k) { values[k] = a.values()[src]; });
  out->Assign(values);
  return out;
}

absl::Status HostScatter(HostTensor* a, const ResolvedIndex& r, const HostTensor* src,
                         double scalar) {
  const int64_t n = NumElements(r.count);
  if (src && src->numel() != n && src->numel() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot assign ", src->numel(), " elements to a region of ", n));
  }
  if (a->shape_only()) return absl::OkStatus();
  if (src && src->shape_only()) {
    return absl::InvalidArgumentError(
        "cannot assign a shape-only tensor (ptoc --timing-only) into a tensor with values");
  }
  ForEachInRegion(a->shape(), r, [&](int64_t dst, int64_t k) {
    a->Set(dst, src ? src->values()[src->numel() == 1 ? 0 : k] : scalar);
  });
  return absl::OkStatus();
}

}  // namespace pto::ptoc
