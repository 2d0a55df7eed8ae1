"""The committed MJCF files are what the generator writes; descriptions validate their fields."""

import pytest

from biped_common.errors import ConfigError, UnknownRobotError
from biped_common.resources import robots_dir
from biped_common.robot_generator import generate_all
from biped_common.robot_model import RobotDescription, load_robot


def test_generated_xml_is_up_to_date():
    for name, text in generate_all().items():
        assert (robots_dir() / f"{name}.xml").read_text() == text, (
            f"{name}.xml is stale: run python -m biped_common.robot_generator")


def test_humanoid_matches_the_design():
    humanoid = load_robot("humanoid")
    assert humanoid.n_joints == 27  # 2×6 legs, waist yaw, 2×7 arms
    assert 17.0 <= humanoid.mass_kg <= 19.0
    assert 0.55 <= humanoid.nominal_pelvis_height_m <= 0.65
    biped = load_robot("biped")
    assert biped.n_joints == 12
    assert biped.joint_names == tuple(n for n in humanoid.joint_names if n in biped.joint_names)


def test_unknown_robot_names_the_known_ones():
    with pytest.raises(UnknownRobotError, match="known robots: biped, humanoid"):
        RobotDescription.load("dinosaur")


@pytest.mark.parametrize("mutation, field", [
    (lambda d: d["gains"]["*_knee"].update(kp=-1.0), "gains.*_knee.kp"),
    (lambda d: d["standing_posture_rad"].update(l_knee="bent"), "standing_posture_rad.l_knee"),
    (lambda d: d["feet"]["left"].pop("toe_site"), "feet.left.toe_site"),
    (lambda d: d.update(colour="red"), "colour"),
])
def test_bad_description_names_the_field(mutation, field):
    import yaml
    data = yaml.safe_load((robots_dir() / "biped.yaml").read_text())
    mutation(data)
    with pytest.raises(ConfigError) as error:
        RobotDescription._from_mapping("biped", data, robots_dir())
    assert error.value.field == field
