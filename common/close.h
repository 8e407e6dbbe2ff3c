#ifndef PTO_COMMON_CLOSE_H_
#define PTO_COMMON_CLOSE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace pto {

// The tolerance of torch.testing.assert_close (and of a trace Check).
struct CloseTolerance {
  double rtol = 0;
  double atol = 0;
  bool equal_nan = false;  // NaN matches NaN only when set
};

// torch.testing.assert_close's rule for one element pair: they match when
// both are NaN and equal_nan is set, when they are equal (so equal infinities
// match), or when their difference is finite and |actual - expected| <= atol
// + rtol * |expected|. NaN or an infinity against a finite expected value
// never matches. ptoc and pto_sim both decide with this.
bool IsClose(double actual, double expected, const CloseTolerance& tolerance);

// What comparing two tensors element by element (row-major) found.
struct CloseStats {
  int64_t elements = 0;  // pairs compared so far: the flat index of the next
  int64_t mismatches = 0;
  // Mismatches whose difference is NaN (a NaN on either side) or infinite
  // (an infinity against a finite value, opposite infinities, an overflow).
  int64_t nan_mismatches = 0;
  int64_t inf_mismatches = 0;
  // Flat indices of the first mismatch of each kind; -1 when none.
  int64_t first_mismatch = -1;
  int64_t first_nan = -1;
  int64_t first_inf = -1;
  double first_actual = 0;  // the values at first_mismatch
  double first_expected = 0;
  // The greatest |actual - expected|, matched NaN pairs and equal infinities
  // counting 0 (as torch reports it): NaN as soon as one mismatch's
  // difference is NaN, else infinite if one is, so a failure is never 0.
  double max_abs_error = 0;

  // Compares the next element pair; returns whether it matched.
  bool Add(double actual, double expected, const CloseTolerance& tolerance);
  bool passed() const { return mismatches == 0; }
  int64_t nonfinite_mismatches() const { return nan_mismatches + inf_mismatches; }
};

// The per-dimension index of flat element `flat` of a row-major `shape`.
std::vector<int64_t> UnflattenIndex(int64_t flat, const std::vector<int64_t>& shape);

// The failure line both ptoc and pto_sim print, e.g. "3 element(s) of 'out'
// outside tolerance, 2 of them NaN, first NaN at [0, 1]; first at [0, 1]: got
// nan, expected 0.00208584; max abs error nan". `of` follows "element(s)"
// (" of 'out'", or empty). Call it for failed stats only.
std::string DescribeMismatches(const CloseStats& stats, const std::vector<int64_t>& shape,
                               const std::string& of);

}  // namespace pto

#endif  // PTO_COMMON_CLOSE_H_
