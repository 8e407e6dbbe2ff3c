#ifndef PTO_SIM_TESTING_PERFETTO_TRACKS_H_
#define PTO_SIM_TESTING_PERFETTO_TRACKS_H_

// Checks on perfetto.json's tracks, for the writer's tests and whole runs.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"

namespace pto::testing {

// Worker View's pipe sub-tracks (sim/perfetto_writer.h).
inline bool IsPipeTrack(int pid, int64_t tid) { return pid == 4 && tid >= 1000000; }

// The complete ("X") slices of a perfetto.json, per (pid, tid) track.
class TrackSlices {
 public:
  void Add(const nlohmann::json& e) {
    if (e["ph"] != "X") return;
    const int64_t start = std::llround(e["ts"].get<double>() * 1e6);
    const int64_t dur = std::llround(e["dur"].get<double>() * 1e6);
    tracks_[{e["pid"].get<int>(), e["tid"].get<int64_t>()}].push_back(
        Slice{start, start + dur, e["name"].get<std::string>()});
  }

  // What breaks the nesting: on each track a slice that starts inside
  // another must end inside it too, and on a pipe sub-track no two slices
  // may overlap at all. Times are compared in picoseconds (the writer prints
  // µs with 6 decimals). Empty when every track is well formed.
  std::vector<std::string> Problems() {
    std::vector<std::string> problems;
    for (auto& [track, slices] : tracks_) {
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
          problems.push_back(where + " starts inside '" + open.back()->name +
                             "' but ends after it");
        }
        open.push_back(&s);
      }
    }
    return problems;
  }

 private:
  struct Slice {
    int64_t start;
    int64_t end;
    std::string name;
  };
  std::map<std::pair<int, int64_t>, std::vector<Slice>> tracks_;
};

inline std::vector<std::string> TrackNestingProblems(const nlohmann::json& trace) {
  TrackSlices slices;
  for (const nlohmann::json& e : trace["traceEvents"]) slices.Add(e);
  return slices.Problems();
}

// The same for a perfetto.json file, read an event per line as the writer
// puts them (a Qwen3 file is hundreds of MB: never parsed whole).
inline std::vector<std::string> TrackNestingProblemsInFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {path + ": cannot open"};
  TrackSlices slices;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '{' || line.find("\"ph\":\"X\"") == std::string::npos) continue;
    if (line.back() == ',') line.pop_back();
    slices.Add(nlohmann::json::parse(line));
  }
  return slices.Problems();
}

}  // namespace pto::testing

#endif  // PTO_SIM_TESTING_PERFETTO_TRACKS_H_
