"""Shared fixtures: robots, and a ROS domain of our own for every test that uses DDS."""

import os
import random

import pytest

from biped_common.robot_model import available_robots, load_robot

ROBOTS = available_robots()


@pytest.fixture(params=ROBOTS)
def robot(request):
    """Each shipped robot in turn."""
    return load_robot(request.param)


@pytest.fixture
def ros_domain_id(monkeypatch):
    """A ROS_DOMAIN_ID nobody else on the machine is likely using (random per test, set in the
    environment so child processes inherit it)."""
    domain = random.Random(os.getpid() * 1000 + random.randrange(1000)).randrange(1, 200)
    monkeypatch.setenv("ROS_DOMAIN_ID", str(domain))
    monkeypatch.setenv("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp")
    return domain
