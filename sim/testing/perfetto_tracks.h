#ifndef PTO_SIM_TESTING_PERFETTO_TRACKS_H_
#define PTO_SIM_TESTING_PERFETTO_TRACKS_H_

// Checks on perfetto.json's tracks, for the writer's tests and whole runs.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"

namespace pto::testing {

// Worker View's pipe sub-tracks (sim/perfetto_writer.h).
inline bool IsPipeTrack(int pid, int64_t tid) { return pid == 4 && tid >= 1000000; }

// What breaks the nesting of the complete ("X") slices of `trace`: on each
// (pid, tid) track a slice that starts inside another must end inside it
// too, and on a pipe sub-track no two slices may overlap at all. Times are
// compared in picoseconds (the writer prints µs with 6 decimals). Empty
// when every track is well formed.
inline std::vector<std::string> TrackNestingProblems(const nlohmann::json& trace) {
  struct Slice {
    int64_t start;
    int64_t end;
    std::string name;
  };
  std::map<std::pair<int, int64_t>, std::vector<Slice>> tracks;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const int64_t start = std::llround(e["ts"].get<double>() * 1e6);
    const int64_t dur = std::llround(e["dur"].get<double>() * 1e6);
    tracks[{e["pid"].get<int>(), e["tid"].get<int64_t>()}].push_back(
        Slice{start, start + dur, e["name"].get<std::string>()});
  }
  std::vector<std::string> problems;
  for (auto& [track, slices] : tracks) {
    // Outer slices first where two start together.
    std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<const Slice*> open;
    for (const Slice& s : slices) {
      while (!open.empty() && open.back()->end <= s.start) open.pop_back();
      const std::string where = "pid " + std::to_string(track.first) + " tid " +
                                std::to_string(track.second) + ": '" + s.name + "' at " +
                                std::to_string(s.start) + " ps";
      if (!open.empty() && IsPipeTrack(track.first, track.second)) {
        problems.push_back(where + " overlaps '" + open.back()->name + "' on a pipe track");
      } else if (!open.empty() && s.end > open.back()->end) {
        problems.push_back(where + " starts inside '" + open.back()->name + "' but ends after it");
      }
      open.push_back(&s);
    }
  }
  return problems;
}

}  // namespace pto::testing

#endif  // PTO_SIM_TESTING_PERFETTO_TRACKS_H_
