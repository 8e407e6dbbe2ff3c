#include "sim/sweep/sweep_command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/stop_request.h"
#include "sim/config_loader.h"
#include "sim/config_schema.h"
#include "sim/provenance.h"
#include "sim/run_driver.h"
#include "sim/sweep/child_process.h"
#include "sim/sweep/progress_line.h"
#include "sim/sweep/run_metrics.h"
#include "sim/sweep/slurm_script.h"
#include "sim/sweep/sweep_chart.h"
#include "sim/sweep/sweep_grid.h"
#include "sim/sweep/sweep_table.h"

namespace pto {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

struct PointTiming {
  int point = 0;
  double wall_seconds = 0;
};

absl::Status WriteText(const fs::path& path, const std::string& text) {
  // Beside the target, then renamed: readers never see half a file.
  const fs::path temp = path.string() + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return absl::InternalError(absl::StrCat(temp.string(), ": cannot write"));
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) return absl::InternalError(absl::StrCat(path.string(), ": ", ec.message()));
  return absl::OkStatus();
}

// The result files every sweep and merge writes.
// sweep.json: the table, and what it came from.
std::string SweepJsonWithProvenance(const SweepSpec& spec, const std::vector<SweepRow>& rows,
                                    const Json& provenance) {
  Json j = SweepJson(spec, rows);
  j[kProvenanceKey] = provenance;
  return j.dump(2) + "\n";
}

// `provenance`: the block of sweep.json (a merge passes its shards').
absl::Status WriteResults(const std::string& dir, const SweepSpec& spec,
                          const std::vector<SweepRow>& rows, const Json& timing,
                          const Json& provenance) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat(dir, ": cannot create: ", ec.message()));
  if (absl::Status s = WriteText(fs::path(dir) / "sweep.csv", SweepCsv(spec, rows)); !s.ok()) {
    return s;
  }
  if (absl::Status s =
          WriteText(fs::path(dir) / "sweep.json", SweepJsonWithProvenance(spec, rows, provenance));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = WriteText(fs::path(dir) / "timing.json", timing.dump(2) + "\n"); !s.ok()) {
    return s;
  }
  if (spec.axes.empty()) return absl::OkStatus();
  absl::StatusOr<std::string> svg =
      RenderSweepChart(spec, rows, spec.chart_metric, spec.ChartKey());
  if (!svg.ok()) return svg.status();
  return WriteText(fs::path(dir) / "sweep.svg", *svg);
}

Json TimingJson(const std::vector<PointTiming>& points, int jobs, double wall_seconds) {
  Json per_point = Json::array();
  for (const PointTiming& p : points) {
    per_point.push_back({{"point", p.point}, {"wall_seconds", p.wall_seconds}});
  }
  return {{"jobs", jobs}, {"wall_seconds", wall_seconds}, {"points", std::move(per_point)}};
}

// The last line of a failed run's stderr that says what went wrong.
std::string ErrorLine(const std::string& stderr_path, int exit_code) {
  std::ifstream in(stderr_path);
  std::string last, error;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    last = line;
    if (line.find("error") != std::string::npos) error = line;
  }
  std::string chosen = !error.empty() ? error : last;
  if (chosen.empty()) chosen = absl::StrCat("exit ", exit_code);
  if (chosen.size() > 300) chosen = chosen.substr(0, 300) + "...";
  return chosen;
}

absl::Status ValidateSpec(const SweepSpec& spec) {
  // The base config and fixed overrides must load; varied values are checked
  // per point (a bad one is a failed row), but their keys must exist.
  absl::StatusOr<ChipConfig> base = LoadChipConfig(spec.config, spec.sets);
  if (!base.ok()) return base.status();
  std::set<std::string> keys;
  for (const SweepAxis& axis : spec.axes) {
    if (FindConfigKey(axis.key) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--vary ", axis.key, ": unknown config key; did you mean '", NearestConfigKey(axis.key),
          "'? (pto_sim --config ", spec.config, " --print-config lists them)"));
    }
    if (!keys.insert(axis.key).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("--vary ", axis.key, ": the key is varied twice"));
    }
  }
  for (const std::string& trace : spec.traces) {
    if (!fs::exists(trace)) {
      return absl::NotFoundError(absl::StrCat("--trace ", trace, ": no such file"));
    }
  }
  if (!spec.axes.empty() && std::find(SweepMetricColumns().begin(), SweepMetricColumns().end(),
                                      spec.chart_metric) == SweepMetricColumns().end()) {
    return absl::InvalidArgumentError(absl::StrCat("--chart-metric '", spec.chart_metric,
                                                   "': expected one of ",
                                                   absl::StrJoin(SweepMetricColumns(), ", ")));
  }
  if (!spec.chart_key.empty() && keys.count(spec.chart_key) == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--chart-key '", spec.chart_key, "': not a varied key (vary it with --vary)"));
  }
  return absl::OkStatus();
}

// The sweep's own arguments, replayed by each Slurm array task.
std::vector<std::string> SweepArgs(const SweepOptions& o) {
  std::vector<std::string> args = {"--config", o.config};
  for (const std::string& t : o.traces) args.insert(args.end(), {"--trace", t});
  for (const std::string& v : o.vary) args.insert(args.end(), {"--vary", v});
  for (const std::string& s : o.sets) args.insert(args.end(), {"--set", s});
  if (o.summary_only) args.push_back("--summary-only");
  args.insert(args.end(), {"--chart-metric", o.chart_metric});
  if (!o.chart_key.empty()) args.insert(args.end(), {"--chart-key", o.chart_key});
  return args;
}

int EmitSlurm(const SweepOptions& options, const std::string& pto_sim, std::ostream& out,
              std::ostream& err) {
  if (options.slurm_shards < 1) {
    err << "pto_sim sweep: error: --shards must be at least 1\n";
    return kExitBadInput;
  }
  SlurmPlan plan;
  plan.pto_sim = pto_sim;
  plan.workdir = fs::current_path().string();
  plan.sweep_args = SweepArgs(options);
  plan.shards = options.slurm_shards;
  plan.cpus_per_task = options.jobs > 0 ? options.jobs : 1;
  plan.out_dir = options.out_dir;
  plan.script_dir = options.emit_slurm;
  if (absl::Status s = WriteSlurmScripts(plan); !s.ok()) {
    err << "pto_sim sweep: error: " << s.message() << "\n";
    return kExitRuntime;
  }
  const fs::path dir = fs::absolute(options.emit_slurm);
  out << "wrote " << (dir / "array.sbatch").string() << " (" << plan.shards << " shards), "
      << (dir / "merge.sbatch").string() << " and " << (dir / "submit.sh").string()
      << "\nsubmit with: " << (dir / "submit.sh").string() << "  (the merged sweep lands in "
      << options.out_dir << ")\n";
  return kExitOk;
}

}  // namespace

int RunSweepCommand(const SweepOptions& options, std::ostream& out, std::ostream& err) {
  const std::string pto_sim = options.pto_sim.empty() ? SelfExecutable() : options.pto_sim;
  if (options.config.empty() || options.traces.empty() || options.out_dir.empty()) {
    err << "pto_sim sweep: error: --config, at least one --trace and --out are required\n";
    return kExitBadInput;
  }
  SweepSpec spec;
  spec.config = options.config;
  spec.traces = options.traces;
  spec.sets = options.sets;
  spec.summary_only = options.summary_only;
  spec.chart_metric = options.chart_metric;
  spec.chart_key = options.chart_key;
  for (const std::string& v : options.vary) {
    absl::StatusOr<SweepAxis> axis = ParseVary(v);
    if (!axis.ok()) {
      err << "pto_sim sweep: error: " << axis.status().message() << "\n";
      return kExitBadInput;
    }
    spec.axes.push_back(*std::move(axis));
  }
  Shard shard;
  if (!options.shard.empty()) {
    absl::StatusOr<Shard> parsed = ParseShard(options.shard);
    if (!parsed.ok()) {
      err << "pto_sim sweep: error: " << parsed.status().message() << "\n";
      return kExitBadInput;
    }
    shard = *parsed;
  }
  if (absl::Status s = ValidateSpec(spec); !s.ok()) {
    err << "pto_sim sweep: error: " << s.message() << "\n";
    return kExitBadInput;
  }
  if (!options.emit_slurm.empty()) return EmitSlurm(options, pto_sim, out, err);

  std::vector<SweepPoint> points;
  for (SweepPoint& p : ExpandGrid(spec.traces, spec.axes)) {
    if (InShard(p.index, shard)) points.push_back(std::move(p));
  }
  const fs::path out_dir = options.out_dir;
  std::vector<ChildJob> jobs;
  for (const SweepPoint& p : points) {
    const fs::path dir = out_dir / "points" / std::to_string(p.index);
    fs::remove_all(dir);
    fs::create_directories(dir);
    ChildJob job;
    job.argv = {pto_sim, "--config", spec.config,           "--trace",
                p.trace, "--out",    (dir / "out").string()};
    for (const std::string& s : spec.sets) job.argv.insert(job.argv.end(), {"--set", s});
    for (size_t a = 0; a < spec.axes.size(); ++a) {
      job.argv.insert(job.argv.end(), {"--set", spec.axes[a].key + "=" + p.values[a]});
    }
    if (spec.summary_only) job.argv.push_back("--summary-only");
    job.argv.insert(job.argv.end(),
                    {"--max-wall-seconds", absl::StrFormat("%.17g", options.max_wall_seconds)});
    job.stdout_path = (dir / "stdout.txt").string();
    job.stderr_path = (dir / "stderr.txt").string();
    jobs.push_back(std::move(job));
  }
  const int parallel = options.jobs > 0 ? options.jobs : AvailableCores();
  ProgressLine progress(err, isatty(STDERR_FILENO) == 1, "sweep", static_cast<int>(jobs.size()));
  int done = 0, failed = 0;
  const auto start = std::chrono::steady_clock::now();
  InstallStopSignalHandlers();
  ChildLimits limits;
  limits.max_seconds = options.max_wall_seconds + kPointGraceSeconds;
  limits.stop = [] { return StopSignal() != 0; };
  bool stopped = false;
  const std::vector<ChildResult> results = RunChildren(
      jobs, parallel,
      [&](size_t, const ChildResult& r) {
        ++done;
        if (r.exit_code != 0) ++failed;
        progress.Update(done, failed);
      },
      limits, &stopped);
  progress.Finish();
  if (stopped) {
    // A stopped sweep is no sweep: no table that looks complete.
    const int signal = StopSignal();
    err << "pto_sim sweep: stopped by " << (signal == SIGINT ? "SIGINT" : "SIGTERM")
        << "; every running point was stopped; " << done << " of " << jobs.size()
        << " points ended (their directories are in " << (out_dir / "points").string()
        << "); no sweep.csv written\n";
    return 128 + signal;
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::vector<SweepRow> rows;
  std::vector<PointTiming> timing;
  for (size_t i = 0; i < points.size(); ++i) {
    const fs::path dir = out_dir / "points" / std::to_string(points[i].index);
    SweepRow row;
    row.point = points[i].index;
    row.trace = points[i].trace;
    row.values = points[i].values;
    row.exit_code = results[i].exit_code;
    const fs::path stats = dir / "out" / "stats.json";
    if (fs::exists(stats)) {
      absl::StatusOr<RunMetrics> metrics = ReadRunMetrics(stats.string());
      if (metrics.ok()) {
        row.metrics = metrics->total;
        row.launches = static_cast<int>(metrics->launches.size());
      }
    }
    if (row.exit_code != 0) row.error = ErrorLine(jobs[i].stderr_path, row.exit_code);
    rows.push_back(std::move(row));
    timing.push_back({points[i].index, results[i].wall_seconds});
  }
  if (absl::Status s = WriteResults(options.out_dir, spec, rows, TimingJson(timing, parallel, wall),
                                    Provenance({spec.config, spec.sets, spec.traces}));
      !s.ok()) {
    err << "pto_sim sweep: error: " << s.message() << "\n";
    return kExitRuntime;
  }
  const fs::path shard_file = out_dir / "shard.json";
  if (!options.shard.empty()) {
    const Json j = {{"shard", shard.index}, {"count", shard.count}, {"points", spec.PointCount()}};
    if (absl::Status s = WriteText(shard_file, j.dump(2) + "\n"); !s.ok()) {
      err << "pto_sim sweep: error: " << s.message() << "\n";
      return kExitRuntime;
    }
  } else {
    fs::remove(shard_file);
  }
  out << "sweep: " << rows.size() << " points"
      << (options.shard.empty()
              ? ""
              : absl::StrCat(" (shard ", options.shard, " of ", spec.PointCount(), ")"))
      << ", " << failed << " failed, " << absl::StrFormat("%.1f", wall) << " s on " << parallel
      << " processes -> " << (out_dir / "sweep.csv").string()
      << (spec.axes.empty() ? "" : ", sweep.json, sweep.svg") << "\n";
  return kExitOk;
}

int RunSweepMergeCommand(const std::string& out_dir, const std::vector<std::string>& shard_dirs,
                         std::ostream& out, std::ostream& err) {
  if (out_dir.empty() || shard_dirs.empty()) {
    err << "pto_sim sweep-merge: error: --out and at least one shard directory are required\n";
    return kExitBadInput;
  }
  std::optional<SweepTable> merged;
  std::string first_spec, first_dir;
  Json provenance;                   // the shards', which must agree
  std::map<int, std::string> owner;  // point -> shard dir
  Json timing_points = Json::array();
  double wall = 0;
  int jobs = 0;
  for (const std::string& dir : shard_dirs) {
    const fs::path path = fs::path(dir) / "sweep.json";
    std::ifstream in(path);
    const Json j = Json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!in.is_open() || j.is_discarded()) {
      err << "pto_sim sweep-merge: error: " << path.string()
          << ": missing or not JSON (did this shard run to the end?)\n";
      return kExitBadInput;
    }
    absl::StatusOr<SweepTable> table = ParseSweepJson(j, path.string());
    if (!table.ok()) {
      err << "pto_sim sweep-merge: error: " << table.status().message() << "\n";
      return kExitBadInput;
    }
    const std::string spec_text = SweepJson(table->spec, {})["sweep"].dump();
    const Json shard_provenance = j.value(kProvenanceKey, Json());
    if (!merged) {
      merged = SweepTable{table->spec, {}};
      first_spec = spec_text;
      first_dir = dir;
      provenance = shard_provenance;
    } else if (spec_text != first_spec) {
      err << "pto_sim sweep-merge: error: " << dir << " is a different sweep than " << first_dir
          << " (config, traces, --vary, --set or chart options differ)\n";
      return kExitBadInput;
    } else if (shard_provenance != provenance) {
      err << "pto_sim sweep-merge: error: " << dir << " ran on another pto_sim build or other "
          << "input files than " << first_dir
          << " (their sweep.json provenance differs: " << shard_provenance.dump() << " vs "
          << provenance.dump() << ")\n";
      return kExitBadInput;
    }
    for (SweepRow& row : table->rows) {
      auto [it, fresh] = owner.emplace(row.point, dir);
      if (!fresh) {
        err << "pto_sim sweep-merge: error: point " << row.point << " is in both " << it->second
            << " and " << dir << "\n";
        return kExitBadInput;
      }
      merged->rows.push_back(std::move(row));
    }
    std::ifstream timing_in(fs::path(dir) / "timing.json");
    const Json timing = Json::parse(timing_in, nullptr, /*allow_exceptions=*/false);
    if (!timing.is_discarded() && timing.contains("points")) {
      for (const Json& p : timing["points"]) timing_points.push_back(p);
      wall = std::max(wall, timing.value("wall_seconds", 0.0));
      jobs += timing.value("jobs", 0);
    }
  }
  std::vector<int> missing;
  for (int p = 0; p < merged->spec.PointCount(); ++p) {
    if (owner.count(p) == 0) missing.push_back(p);
  }
  if (!missing.empty()) {
    if (missing.size() > 20) missing.resize(20);
    err << "pto_sim sweep-merge: error: the shards leave out points "
        << absl::StrJoin(missing, ", ") << " of " << merged->spec.PointCount()
        << " (name every shard directory)\n";
    return kExitBadInput;
  }
  std::sort(merged->rows.begin(), merged->rows.end(),
            [](const SweepRow& a, const SweepRow& b) { return a.point < b.point; });
  std::sort(timing_points.begin(), timing_points.end(),
            [](const Json& a, const Json& b) { return a.value("point", 0) < b.value("point", 0); });
  const Json timing = {{"jobs", jobs},
                       {"wall_seconds", wall},
                       {"shards", shard_dirs.size()},
                       {"points", std::move(timing_points)}};
  if (absl::Status s = WriteResults(out_dir, merged->spec, merged->rows, timing, provenance);
      !s.ok()) {
    err << "pto_sim sweep-merge: error: " << s.message() << "\n";
    return kExitRuntime;
  }
  int failed = 0;
  for (const SweepRow& row : merged->rows) failed += row.exit_code != 0;
  out << "sweep-merge: " << merged->rows.size() << " points from " << shard_dirs.size()
      << " shards, " << failed << " failed -> " << (fs::path(out_dir) / "sweep.csv").string()
      << "\n";
  return kExitOk;
}

}  // namespace pto
