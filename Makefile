# biped_stack on a pip-only machine: every target bootstraps .venv itself.
#   make test       the test suite CI runs (unit + in-process MuJoCo + a few multi-process DDS tests)
#   make demo       the humanoid walks the teleop script (with the paper's push) in MuJoCo; report (plots, metrics, MP4) in out/demo
#   make test-slow  the long scenario matrices
#   make bench      benchmarks (real-time factor, DDS round trip), medians and p99s
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-nodeps.txt setup.py interfaces/*/msg/* | cksum | cut -d' ' -f1)
export AMENT_PREFIX_PATH := $(abspath $(VENV))
export RMW_IMPLEMENTATION := rmw_fastrtps_cpp
export MUJOCO_GL ?= egl

.PHONY: venv test test-slow demo bench clean
venv: $(STAMP)

$(STAMP): requirements.txt requirements-nodeps.txt setup.py $(wildcard interfaces/*/msg/*) $(wildcard interfaces/*/CMakeLists.txt)
	@echo "== creating $(VENV) (pinned versions from requirements.txt) =="
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-nodeps.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	$(PY) -m biped_stack.ros_interfaces
	rm -f $(VENV)/.installed-*
	touch $@

test: $(STAMP)
	$(PY) -m pytest -q -m "not slow" --durations=10

test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

demo: $(STAMP)
	$(VENV)/bin/biped-stack demo --robot humanoid --style neutral --out out/demo

bench: $(STAMP)
	$(PY) bench/sim_realtime_factor.py
	$(PY) bench/dds_round_trip.py
	$(PY) bench/gait_planner_tick.py
	$(PY) bench/gait_node_rate.py
	$(PY) bench/walking_controllers.py
	$(PY) bench/wbc_qp_solvers.py
	$(PY) bench/walking_dds.py
	$(PY) bench/core_ticks.py
	$(PY) bench/sensor_frame_costs.py
	$(PY) bench/publish_costs.py
	$(PY) bench/tf_costs.py
	$(PY) bench/realtime_matrix.py
	$(PY) bench/muscle_allocation.py
	$(PY) bench/reach_arm_angle.py
	$(PY) bench/style_fidelity.py --speed

clean:
	rm -rf $(VENV) out build *.egg-info
