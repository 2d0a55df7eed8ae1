"""Style files: the shipped ones load; bad ones give every error, each naming its field."""

import copy

import pytest
import yaml

from biped_common.resources import styles_dir

from gait_planner_node.style import StyleError, load_style, shipped_styles, style_from_mapping

NEUTRAL = yaml.safe_load((styles_dir() / "neutral.yaml").read_text())


def test_shipped_styles_load_and_summarize():
    assert {"neutral", "bouncy", "limp"} <= set(shipped_styles())
    for name in shipped_styles():
        style = load_style(name)
        assert len(style.samples) == 9
        assert style.summary().startswith(f"style {name!r}")


def test_bouncy_cycle_halves_with_speed_and_limp_is_asymmetric_only_when_slow():
    bouncy = load_style("bouncy")
    assert bouncy.samples["in_place"].timing.cycle_s == pytest.approx(0.95)
    assert bouncy.samples["forward_fast"].timing.cycle_s == pytest.approx(0.45)
    limp = load_style("limp")
    slow, fast = limp.samples["forward_slow"].timing, limp.samples["forward_fast"].timing
    assert slow.right_swing_s > 1.5 * slow.left_swing_s
    assert fast.right_swing_s == pytest.approx(fast.left_swing_s)


def broken(mutate):
    data = copy.deepcopy(NEUTRAL)
    mutate(data)
    with pytest.raises(StyleError) as error:
        style_from_mapping(data, "broken.yaml")
    return {e.field for e in error.value.errors}, str(error.value)


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["defaults"]["timing"].pop("left_swing_s"), "samples.in_place.timing.left_swing_s"),
    (lambda d: d["defaults"]["attributes"].update(stance_width_m=2.0), "defaults.attributes.stance_width_m"),
    (lambda d: d["defaults"]["attributes"].update(splay_rad="wide"), "defaults.attributes.splay_rad"),
    # A touch-down before the lift-off: the interval is negative, below its bound.
    (lambda d: d["samples"]["forward_fast"]["timing"].update(left_swing_s=-0.1), "samples.forward_fast.timing.left_swing_s"),
    (lambda d: d["defaults"]["swing"].update(height_m=[[0.5, -0.02]]), "samples.in_place.left_swing.height_m[0].value"),
    (lambda d: d["defaults"]["swing"].update(height_m=[[0.5, 0.05], [0.4, 0.05]]), "samples.in_place.left_swing.height_m"),
    (lambda d: d["samples"].pop("turn_left"), "samples.turn_left"),
    (lambda d: d["samples"]["turn_left"].update(velocity=[0.1, 0.0, 0.6]), "samples.turn_left.velocity"),
    (lambda d: d["samples"]["forward_slow"].update(velocity=[0.7, 0.0, 0.0]), "samples.forward_fast.velocity"),
    (lambda d: d["defaults"].update(gait="fast"), "defaults.gait"),
    (lambda d: d["samples"]["in_place"].update(gait="fast"), "samples.in_place.gait"),
    (lambda d: d.pop("name"), "name"),
])
def test_bad_style_names_the_field(mutate, field):
    fields, message = broken(mutate)
    assert field in fields, fields
    assert field in message


def test_every_error_is_reported_at_once():
    def two_faults(d):
        d["samples"]["forward_fast"]["timing"]["right_swing_s"] = 5.0
        d["samples"]["in_place"]["attributes"]["toe_off_pitch_rad"] = -0.2
    fields, _ = broken(two_faults)
    assert {"samples.forward_fast.timing.right_swing_s", "samples.in_place.attributes.toe_off_pitch_rad"} <= fields


def test_unknown_name_and_malformed_file(tmp_path):
    with pytest.raises(StyleError, match="no shipped style 'moonwalk'"):
        load_style("moonwalk")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(StyleError, match="malformed YAML"):
        load_style(bad)


def test_an_error_inherited_from_defaults_is_reported_once():
    fields, message = broken(lambda d: d["defaults"]["attributes"].update(stance_width_m=2.0))
    assert fields == {"defaults.attributes.stance_width_m"}
    assert message.count("stance_width_m") == 1
