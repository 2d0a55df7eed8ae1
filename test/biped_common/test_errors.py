"""The error hierarchy: errors that name their field keep it across process boundaries."""

import pickle

from biped_common.errors import ConfigError, UnknownRobotError


def test_a_config_error_survives_pickling_as_a_worker_process_sends_it():
    """multiprocessing pickles a worker's exception to the parent: a ConfigError (which takes
    three arguments, not Exception's one) must come back whole, not as a TypeError."""
    for error in (ConfigError("gains.kp", "must be ≥ 0", "wbc.yaml"), UnknownRobotError("robot", "unknown robot 'x'")):
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and str(back) == str(error)
        assert (back.field, back.message, back.source) == (error.field, error.message, error.source)
