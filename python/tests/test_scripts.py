"""python3 kernel.py as a user runs it: the scripts of scripts/ under Debian's
interpreter, their exit codes, results and messages."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import PTO_SIM, PTOC, PYTHON, REPO, SCRIPTS, main, run_script  # noqa: E402

LAUNCH = re.compile(r"^pto_sim: launch (\d+) '([^']+)': makespan ([0-9.]+) us", re.M)


class HarnessStyle(unittest.TestCase):
    def test_the_scripts_own_checks_pass_on_the_simulated_results(self):
        r = run_script("harness_style.py")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("scaled_add: OK", r.stdout)
        self.assertIn("row_copy: OK", r.stdout)
        launches = LAUNCH.findall(r.stderr)
        self.assertEqual([(n, k) for n, k, _ in launches], [("0", "scaled_add"), ("1", "row_copy")])
        self.assertTrue(all(float(t) > 0 for _, _, t in launches))
        # Said once, not per launch.
        self.assertEqual(r.stderr.count("launches run on pto_sim"), 1)

    def test_a_wrong_golden_fails_the_scripts_own_assert(self):
        r = run_script("harness_style.py", "--wrong-golden")
        self.assertEqual(r.returncode, 1)
        self.assertIn("Traceback", r.stderr)  # the harness's own exception
        self.assertIn("AssertionError: scaled_add: max diff", r.stderr)

    def test_a5_platform_uses_the_a5_config(self):
        r = run_script("harness_style.py", "--platform", "a5sim")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("a5.yaml", r.stderr)

    def test_a_package_with_relative_imports(self):
        r = run_script("pkg.main", module=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("OK", r.stdout)

    def test_a_program_through_runtime_run(self):
        r = run_script("program_run.py")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("['main'] FunctionType.Orchestration", r.stdout)
        self.assertEqual([k for _, k, _ in LAUNCH.findall(r.stderr)], ["main"])

    def test_runconfig_maps_to_pto_sim_settings(self):
        code = (
            "import os\n"
            "from pypto import _launch\n"
            "from pypto.runtime import RunConfig\n"
            "os.environ['PTO_SIM_SET'] = 'ring.dep_pool=64'\n"
            "print(_launch._sets(RunConfig(aicpu_thread_num=3)))\n"
            "print(os.path.basename(_launch._config_path(RunConfig(platform='a5'))))\n"
            "print(_launch._ring_keywords(RunConfig(ring_heap=[1024, 2048, 4096, 8192])))\n"
        )
        r = run_script("-c", code)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [
            "['aicpu.scheduler_threads=2', 'ring.dep_pool=64']",
            "a5.yaml",
            "platform='a2a3sim', ring_heap=[1024, 2048, 4096, 8192]",
        ])

    def test_a_kernel_calls_kernels_of_another_module(self):
        r = run_script("crossfile.main", module=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("OK", r.stdout)

    def test_an_error_in_another_modules_kernel_names_that_file(self):
        r = run_script("crossfile.main", "broken", module=True)
        self.assertEqual(r.returncode, 2)
        ops = os.path.join(SCRIPTS, "crossfile", "ops.py")
        self.assertIn(f"{ops}:13:15: error: pl.no_such_op is not supported", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_one_name_with_two_values_across_modules_is_an_error(self):
        r = run_script("clash.b", module=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("reads 'TILE', which the other kernels of this call read as something else",
                      r.stderr)

    def test_kernels_built_by_a_factory_read_its_closure(self):
        r = run_script("factory.py")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("OK", r.stdout)
        self.assertEqual(len(LAUNCH.findall(r.stderr)), 2)

    def test_a_library_module_launches_nothing(self):
        r = run_script("library_only.py")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "library loaded")
        self.assertNotIn("pto_sim", r.stderr)


class Errors(unittest.TestCase):
    def test_an_uncaught_dsl_error_is_located_without_a_traceback(self):
        r = run_script("dsl_error.py")
        self.assertEqual(r.returncode, 2)
        path = os.path.join(SCRIPTS, "dsl_error.py")
        self.assertIn(f"{path}:9:21: error: pl.no_such_op is not supported", r.stderr)
        self.assertIn("        pl.store(pl.no_such_op(t), [0, 0], c)\n                    ^", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_a_dsl_error_is_catchable_as_upstreams_class(self):
        r = run_script("dsl_error_caught.py")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("caught PartialCodegenError", r.stdout)
        self.assertIn("dsl_error.py:9:21", r.stdout)

    def test_bad_inputs_exit_2_with_the_call_located(self):
        path = os.path.join(SCRIPTS, "bad_inputs.py")
        for case, message in [
            ("platform", "RunConfig(platform='tpu_v4')"),
            ("threads", "RunConfig(aicpu_thread_num=9)"),
            ("ring", "RunConfig(ring_task_window=[1, 2])"),
            ("dtype", "dtype torch.complex64 is not supported"),
            ("device", "a tensor on device 'cuda:0'"),
            ("argument", "expected a torch.Tensor, a TensorSpec or a number, got str"),
        ]:
            with self.subTest(case=case):
                r = run_script("bad_inputs.py", case)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertRegex(r.stderr, re.escape(path) + r":\d+: error: ")
                self.assertIn(message, r.stderr)
                self.assertNotIn("Traceback", r.stderr)

    def test_a_harness_exception_keeps_pythons_traceback_and_code(self):
        r = run_script("raises_before_launch.py")
        self.assertEqual(r.returncode, 1)
        self.assertIn("Traceback", r.stderr)
        self.assertIn("ValueError: the harness failed before any launch", r.stderr)

    def test_tensors_too_large_for_memory_point_to_meta_tensors(self):
        r = run_script("-c", "import pypto.language as pl\nimport torch\n"
                             "torch.empty(2 ** 50, dtype=torch.float32)\n")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("DefaultCPUAllocator: can't allocate memory", r.stderr)
        self.assertIn("pypto: note: the script's tensors do not fit in this machine's memory",
                      r.stderr)
        self.assertIn('torch.device("meta")', r.stderr)

    def test_missing_torch_names_the_debian_package(self):
        fake = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(fake, "torch"))
            with open(os.path.join(fake, "torch", "__init__.py"), "w") as f:
                f.write("raise ImportError('No module named torch')\n")
            path = os.pathsep.join([fake, os.environ.get("PYTHONPATH", "")])
            r = run_script("library_only.py", env={"PYTHONPATH": path})
            self.assertEqual(r.returncode, 2)
            self.assertIn("pypto needs torch", r.stderr)
            self.assertIn("apt-get install python3-torch", r.stderr)
            self.assertNotIn("Traceback", r.stderr)
        finally:
            shutil.rmtree(fake)

    def test_an_interpreter_without_debians_packages_is_told_which_to_use(self):
        import subprocess

        venv = tempfile.mkdtemp()
        try:
            made = subprocess.run([PYTHON, "-m", "venv", "--without-pip", venv],
                                  capture_output=True, text=True)
            if made.returncode != 0:
                self.skipTest(f"no venv module: {made.stderr.strip()}")
            other = os.path.join(venv, "bin", "python3")
            r = subprocess.run([other, os.path.join(SCRIPTS, "library_only.py")],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(f"this interpreter ({other}) does not see Debian's dist-packages",
                          r.stderr)
            self.assertIn("run the script with /usr/bin/python3", r.stderr)
            self.assertNotIn("Traceback", r.stderr)
        finally:
            shutil.rmtree(venv)


def _fake_pto_sim(directory, exit_code, text):
    """A pto_sim stand-in (PTO_SIM_BIN) that prints `text` and exits."""
    path = os.path.join(directory, "pto_sim")
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\ncat <<'EOF'\n{text}\nEOF\nexit {exit_code}\n")
    os.chmod(path, 0o755)
    return path


class SimulationFailures(unittest.TestCase):
    def run_with(self, exit_code, text, script="harness_style.py"):
        directory = tempfile.mkdtemp()
        try:
            return run_script(script, env={"PTO_SIM_BIN": _fake_pto_sim(directory, exit_code, text)})
        finally:
            shutil.rmtree(directory)

    def test_a_simulated_deadlock_raises_with_its_report_and_exits_3(self):
        report = "pto_sim: simulated deadlock at 5.000 us: nothing left to happen, but task 3 waits"
        r = self.run_with(3, report)
        self.assertEqual(r.returncode, 3)
        self.assertIn("pto_sim failed on scaled_add (exit 3)", r.stderr)
        self.assertIn(report, r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_a_deadlock_is_catchable(self):
        code = (
            "import torch\n"
            "from pypto.errors import DeadlockError\n"
            "import harness_style as h\n"
            "a = torch.ones(64, 64)\n"
            "try:\n"
            "    h.scaled_add(a, a, torch.zeros(64, 64))\n"
            "except DeadlockError as e:\n"
            "    print('caught', e.exit_code)\n"
        )
        directory = tempfile.mkdtemp()
        try:
            fake = _fake_pto_sim(directory, 3, "simulated deadlock at 1 us")
            r = run_script("-c", code, env={"PTO_SIM_BIN": fake})
        finally:
            shutil.rmtree(directory)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "caught 3")

    def test_a_rejected_stream_exits_with_pto_sims_code(self):
        r = self.run_with(2, "launch.pb: record 3: expected ...")
        self.assertEqual(r.returncode, 2)
        self.assertIn("launch.pb: record 3", r.stderr)


class Interrupt(unittest.TestCase):
    def test_ctrl_c_stops_the_launch_and_leaves_nothing_behind(self):
        import signal
        import subprocess
        import time

        tmp = tempfile.mkdtemp()
        try:
            env = dict(os.environ, TMPDIR=tmp, PTO_SIM_QUIET="1")
            p = subprocess.Popen(
                [PYTHON, os.path.join(SCRIPTS, "many_launches.py")], env=env,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                # As a terminal's Ctrl-C finds it: SIGINT not ignored.
                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            self.assertEqual(p.stdout.readline().strip(), "started")
            time.sleep(1.0)  # some launches in
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, -signal.SIGINT)
            self.assertIn("KeyboardInterrupt", err)
            self.assertEqual(os.listdir(tmp), [])  # each launch's files removed
        finally:
            shutil.rmtree(tmp)


class Interpreter(unittest.TestCase):
    def test_debians_interpreter_imports_torch_and_pypto(self):
        r = run_script("-c", "import torch, pypto, pypto.language as pl; print(pl.FP32)",
                       module=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "pl.FP32")
        self.assertEqual(os.path.realpath(PYTHON), os.path.realpath("/usr/bin/python3"))


class TimingOnly(unittest.TestCase):
    def test_meta_tensors_and_tensor_specs_run_timing_only(self):
        r = run_script("meta_tensors.py")
        self.assertEqual(r.returncode, 0, r.stderr)
        launches = LAUNCH.findall(r.stderr)
        self.assertEqual(len(launches), 2)
        # The same kernel on the same shapes, each on a fresh chip.
        self.assertEqual(launches[0][2], launches[1][2])
        self.assertGreater(float(launches[0][2]), 0)

    def test_tensor_spec_keeps_upstreams_field_order_and_makes_tensors(self):
        code = (
            "import torch\n"
            "from pypto.runtime import TensorSpec\n"
            "s = TensorSpec('q', [2, 3], torch.float16, 1.5, True)\n"
            "t = s.create_tensor()\n"
            "print(s.is_output, t.dtype, tuple(t.shape), float(t[1, 2]))\n"
            "print(TensorSpec('z', [4], torch.int32).create_tensor().sum().item())\n"
        )
        r = run_script("-c", code)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split("\n")[:2], ["True torch.float16 (2, 3) 1.5", "0"])


class PersistentChip(unittest.TestCase):
    def test_calls_share_one_chip_whose_stream_replays_to_the_same_times(self):
        with tempfile.TemporaryDirectory() as keep:
            r = run_script("persistent_chip.py", env={"PTO_SIM_KEEP": "1", "TMPDIR": keep})
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("OK", r.stdout)
            launches = LAUNCH.findall(r.stderr)
            self.assertEqual([n for n, _, _ in launches], ["0", "1", "2", "3"])
            times = [float(t) for _, _, t in launches]
            # The second call finds a and out in L2: faster than the first.
            self.assertLess(times[1], times[0])
            # One chip: one kept stream, all four launches, no new chip.
            self.assertNotIn("a new chip starts", r.stderr)
            chips = [d for d in os.listdir(keep) if d.startswith("pypto_chip_")]
            self.assertEqual(len(chips), 1)
            stream = os.path.join(keep, chips[0], "stream.pb")
            out = os.path.join(keep, "replay")
            replay = subprocess.run(
                [PTO_SIM, "--config", os.path.join(REPO, "configs", "ascend.yaml"),
                 "--trace", stream, "--out", out],
                capture_output=True, text=True)
            self.assertEqual(replay.returncode, 0, replay.stderr)
            replayed = re.findall(r"^launch \d+ '[^']+': makespan ([0-9.]+) us", replay.stdout,
                                  re.M)
            self.assertEqual([float(t) for t in replayed], times)
            with open(os.path.join(out, "stats.json")) as f:
                per_launch = json.load(f)["per_launch"]
            # Unchanged tensors are not uploaded again: launch 1 reads only L2.
            self.assertEqual(per_launch[1]["gm"]["hbm_read_bytes"], 0)
            self.assertEqual([p["rings"][0]["task_window"] for p in per_launch],
                             [16384, 16384, 16384, 16])


class Recording(unittest.TestCase):
    def test_a_recorded_run_replays_its_checks_and_a_failing_one_fails_the_replay(self):
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "run.pb")
            r = run_script("recorded_checks.py", env={"PTO_SIM_RECORD": path})
            # Recording: the wrong golden is a warning, the script goes on.
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("done", r.stdout)
            self.assertIn("recorded_checks.py:18: check 'assert torch.allclose(out, a * 3), "
                          "\"the wrong golden\"' fails on the simulated result", r.stderr)
            replay = subprocess.run(
                [PTO_SIM, "--config", os.path.join(REPO, "configs", "ascend.yaml"),
                 "--trace", path], capture_output=True, text=True)
            self.assertEqual(replay.returncode, 1, replay.stdout + replay.stderr)
            self.assertIn("checks: 1 passed, 1 failed", replay.stdout)
            self.assertIn("(recorded_checks.py:17): PASS", replay.stdout)
            self.assertIn("(recorded_checks.py:18): FAIL", replay.stdout)
            # Not recording, the same script fails its own assert.
            plain = run_script("recorded_checks.py")
            self.assertEqual(plain.returncode, 1)
            self.assertIn("AssertionError: the wrong golden", plain.stderr)

    def test_the_header_names_the_recorder(self):
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "run.pb")
            r = run_script("recorded_checks.py", env={"PTO_SIM_RECORD": path})
            self.assertEqual(r.returncode, 0, r.stderr)
            code = (
                "import sys\n"
                "from pypto._proto import task_stream_pb2 as pb\n"
                "from google.protobuf.internal.decoder import _DecodeVarint32\n"
                "data = open(sys.argv[1], 'rb').read()\n"
                "size, start = _DecodeVarint32(data, 0)\n"
                "h = pb.StreamHeader.FromString(data[start:start + size])\n"
                "print(h.version, h.recorder)\n"
            )
            shown = run_script("-c", code, path)
            self.assertEqual(shown.returncode, 0, shown.stderr)
            self.assertRegex(shown.stdout, r"^10 pypto 0\.1\.0 \(CPython 3\.\d+\.\d+, torch 1\.")


class PtocRecord(unittest.TestCase):
    """ptoc FILE.py: the script under CPython, its run recorded."""

    def ptoc(self, *args, cwd=SCRIPTS):
        return subprocess.run([PTOC, *args], capture_output=True, text=True, cwd=cwd,
                              timeout=240)

    def replay(self, path):
        return subprocess.run([PTO_SIM, "--config", os.path.join(REPO, "configs", "ascend.yaml"),
                               "--trace", path], capture_output=True, text=True, timeout=240)

    def test_the_recorded_stream_and_its_text_form_replay_alike(self):
        with tempfile.TemporaryDirectory() as work:
            binary, text = os.path.join(work, "run.pb"), os.path.join(work, "run.pbtxt")
            r = self.ptoc("recorded_checks.py", "-o", binary)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("fails on the simulated result (recorded", r.stderr)
            r = self.ptoc("recorded_checks.py", "-o", text, "--pbtxt")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(text) as f:
                content = f.read()
            self.assertIn('recorder: "pypto 0.1.0 (CPython', content)
            self.assertEqual(content.count("\n  check {"), 2)
            a, b = self.replay(binary), self.replay(text)
            self.assertEqual(a.returncode, 1, a.stdout + a.stderr)  # the wrong golden
            self.assertEqual(b.returncode, 1, b.stdout + b.stderr)
            launch = re.compile(r"^launch .*$", re.M)
            self.assertEqual(launch.findall(a.stdout), launch.findall(b.stdout))
            self.assertIn("checks: 1 passed, 1 failed", b.stdout)

    def test_a_failing_script_writes_no_stream_and_exits_2(self):
        with tempfile.TemporaryDirectory() as work:
            out = os.path.join(work, "run.pb")
            r = self.ptoc("raises_before_launch.py", "-o", out)
            self.assertEqual(r.returncode, 2)
            self.assertIn("Traceback", r.stderr)  # the script's own
            self.assertIn("raises_before_launch.py: error: the script exited 1", r.stderr)
            self.assertFalse(os.path.exists(out))
            self.assertEqual(os.listdir(work), [])

    def test_a_script_that_launches_nothing_is_a_warning(self):
        with tempfile.TemporaryDirectory() as work:
            out = os.path.join(work, "run.pb")
            r = self.ptoc("library_only.py", "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("library_only.py: warning: the script launched no kernel", r.stderr)
            replay = self.replay(out)
            self.assertEqual(replay.returncode, 0, replay.stderr)
            self.assertIn("checks: 0 passed, 0 failed", replay.stdout)


class Outputs(unittest.TestCase):
    def test_pto_sim_out_writes_each_launchs_files(self):
        out = tempfile.mkdtemp()
        try:
            r = run_script("harness_style.py", env={"PTO_SIM_OUT": out})
            self.assertEqual(r.returncode, 0, r.stderr)
            dirs = sorted(os.listdir(out))[1:]
            # Both launches ran on one chip: the run's stats.json sums them.
            self.assertEqual(sorted(os.listdir(out)), [".pto_sim_out", "launch_0_scaled_add",
                                                       "launch_1_row_copy", "stats.json"])
            with open(os.path.join(out, "stats.json")) as f:
                self.assertEqual(json.load(f)["launches"], 2)
            with open(os.path.join(out, dirs[0], "stats.json")) as f:
                stats = json.load(f)
            makespan = float(LAUNCH.findall(r.stderr)[0][2])
            self.assertAlmostEqual(stats["makespan_us"], makespan, places=3)
            self.assertTrue(os.path.isfile(os.path.join(out, dirs[1], "swimlane.svg")))
            # A rerun replaces the earlier run's files, and nothing else is left.
            with open(os.path.join(out, "launch_7_old"), "w") as f:
                f.write("an earlier run's")
            r = run_script("harness_style.py", env={"PTO_SIM_OUT": out})
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("launch_7_old", os.listdir(out))
        finally:
            shutil.rmtree(out)

    def test_pto_sim_out_never_empties_a_foreign_directory(self):
        out = tempfile.mkdtemp()
        try:
            with open(os.path.join(out, "notes.txt"), "w") as f:
                f.write("the user's")
            r = run_script("harness_style.py", env={"PTO_SIM_OUT": out})
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(f"PTO_SIM_OUT {out}: the directory is not empty and has no .pto_sim_out "
                          "marker", r.stderr)
            self.assertEqual(os.listdir(out), ["notes.txt"])
        finally:
            shutil.rmtree(out)

    def test_runconfig_swimlane_and_dep_gen_write_the_runtimes_files(self):
        cwd = tempfile.mkdtemp()
        code = (
            "import sys\n"
            f"sys.path.insert(0, {SCRIPTS!r})\n"
            "import torch\n"
            "from pypto.runtime import RunConfig\n"
            "import harness_style as h\n"
            "a = torch.ones(64, 64)\n"
            "h.scaled_add(a, a, torch.zeros(64, 64), config=RunConfig(enable_chip_swimlane=3))\n"
            "h.row_copy(a, torch.zeros(64, 64), config=RunConfig(enable_dep_gen=True))\n"
        )
        try:
            r = run_script("-c", code, cwd=cwd)
            self.assertEqual(r.returncode, 0, r.stderr)
            out = os.path.join(cwd, "pto_sim_out")
            # Two chips, one directory: neither empties the other's launch, and
            # neither chip's run file (half the script's run) is left.
            self.assertEqual(sorted(os.listdir(out)),
                             [".pto_sim_out", "launch_0_scaled_add", "launch_1_row_copy"])
            # Another swimlane level is another chip, and the user is told.
            self.assertIn("a new chip starts", r.stderr)
            with open(os.path.join(out, "launch_0_scaled_add", "chip_swimlane_records.json")) as f:
                records = json.load(f)
            self.assertEqual(records["chip_swimlane_level"], 3)  # the RunConfig level
            self.assertIn("aicpu_scheduler_phases", records)  # present from level 3 on
            self.assertTrue(os.path.isfile(os.path.join(out, "launch_1_row_copy", "deps.json")))
        finally:
            shutil.rmtree(cwd)

    def test_quiet_drops_the_summary(self):
        r = run_script("harness_style.py", env={"PTO_SIM_QUIET": "1"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(LAUNCH.findall(r.stderr), [])


class Lowering(unittest.TestCase):
    def test_lower_lists_the_entry_and_the_kernels_it_calls(self):
        code = (
            "import harness_style as h\n"
            "p = h.scaled_add.lower()\n"
            "print(p.name, sorted(p.functions), p.functions['scaled_add'].func_type)\n"
            "print('pl.mul' in p.as_python())\n"
        )
        r = run_script("-c", code)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split("\n")[0],
                         "scaled_add ['scaled_add'] FunctionType.Orchestration")
        self.assertEqual(r.stdout.split("\n")[1], "True")


if __name__ == "__main__":
    main()
