"""Generate the MJCF and URDF descriptions of the shipped robots from one parameter table.

Both robots (``humanoid`` and its lower-body-only variant ``biped``) are written from the same
link table, so the legs of the two can never drift apart.  The generated XML files are the single
description that MuJoCo (``mujoco.MjModel.from_xml_path``) and Pinocchio
(``pinocchio.buildModelFromMJCF``) both load; ``test/biped_common/test_robot_description.py`` fails
when a committed XML differs from what this script writes.

Conventions (chosen so both libraries agree joint for joint):
- one hinge per body, so Pinocchio keeps MuJoCo's joint names and order;
- explicit ``<inertial>`` on every body (``inertiafromgeom="false"``): no mass hidden in geoms;
- body frames sit on the joint axis; x forward, y left, z up at the zero configuration
  (legs straight, arms hanging);
- only the four sphere corners under each foot collide with the floor in normal use; the rest of
  the body collides with the floor too (group 2) so that a fall is physical and detectable.

The URDF (``robots/<name>.urdf``, for ``/robot_description``, rviz and other URDF tools) is
written from the same table: one link per body with the same inertial, a revolute joint per hinge
(a fixed one for a welded body), primitive visuals and collisions from the geoms (a capsule as a
cylinder: URDF has none), and a fixed child link per MJCF site (sole, heel, toe, hand, imu), so
every frame the controllers use exists in both. What URDF cannot say: the rotor armature and the
floor contacts' friction (MuJoCo's, in the MJCF only); the velocity limit it requires is
:data:`URDF_VELOCITY_LIMIT_RAD_S`, which nothing in the stack enforces. Pinocchio loads the URDF
(with a free-flyer root) to the MJCF's kinematics and inertias
(``test/biped_common/test_urdf_consistency.py``).

Run: ``python -m biped_common.robot_generator`` from a checkout: rewrites ``robots/<name>.xml``
and ``robots/<name>.urdf``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from biped_common.resources import robots_dir


@dataclass(frozen=True)
class Joint:
    """One hinge: axis in the body frame, range [rad], torque limit [N·m], rotor armature
    [kg·m²] and viscous damping [N·m·s/rad]."""

    name: str
    axis: str
    range_rad: tuple[float, float]
    torque_limit_nm: float
    armature_kgm2: float
    damping_nms: float


@dataclass(frozen=True)
class Link:
    """A body with one joint (or none: welded), a box-approximated inertia and its geoms."""

    name: str
    pos_m: tuple[float, float, float]
    joint: Joint | None
    mass_kg: float
    com_m: tuple[float, float, float]
    box_m: tuple[float, float, float]  # size of the box whose inertia approximates the link
    geoms: tuple[str, ...] = ()
    sites: tuple[str, ...] = ()
    children: tuple["Link", ...] = field(default=())


def _fmt(values) -> str:
    return " ".join(f"{v:.6g}" for v in values)


def box_inertia(mass_kg: float, size_m: tuple[float, float, float]) -> tuple[float, float, float]:
    """Principal inertia [kg·m²] of a solid box of full side lengths ``size_m`` about its centre."""
    sx, sy, sz = size_m
    return (
        mass_kg * (sy**2 + sz**2) / 12.0,
        mass_kg * (sx**2 + sz**2) / 12.0,
        mass_kg * (sx**2 + sy**2) / 12.0,
    )


# Visual/collision capsule for a segment hanging along -z from the body origin.
def _segment(length_m: float, radius_m: float, rgba: str = "0.7 0.7 0.75 1") -> str:
    return (
        f'<geom type="capsule" fromto="0 0 0 0 0 {-length_m:.6g}" size="{radius_m:.6g}" '
        f'class="body_collision" rgba="{rgba}"/>'
    )


# Foot: sole 0.05 m below the ankle axis, 0.18 m long (heel -0.06 m, toe +0.12 m), 0.09 m wide.
ANKLE_TO_SOLE_M = 0.05
HEEL_X_M = -0.06
TOE_X_M = 0.12
HALF_FOOT_WIDTH_M = 0.045
CORNER_RADIUS_M = 0.005


def _foot_geoms(side: str) -> tuple[str, ...]:
    z = -ANKLE_TO_SOLE_M + CORNER_RADIUS_M
    corners = [
        ("heel_inner" if side == "l" else "heel_outer", HEEL_X_M, -HALF_FOOT_WIDTH_M),
        ("heel_outer" if side == "l" else "heel_inner", HEEL_X_M, HALF_FOOT_WIDTH_M),
        ("toe_inner" if side == "l" else "toe_outer", TOE_X_M, -HALF_FOOT_WIDTH_M),
        ("toe_outer" if side == "l" else "toe_inner", TOE_X_M, HALF_FOOT_WIDTH_M),
    ]
    xc = 0.5 * (HEEL_X_M + TOE_X_M)
    geoms = [
        f'<geom name="{side}_foot_plate" type="box" pos="{xc:.6g} 0 {-ANKLE_TO_SOLE_M + 0.015:.6g}" '
        f'size="{0.5 * (TOE_X_M - HEEL_X_M):.6g} {HALF_FOOT_WIDTH_M:.6g} 0.012" class="visual" '
        f'rgba="0.25 0.25 0.3 1"/>'
    ]
    for corner, x, y in corners:
        geoms.append(
            f'<geom name="{side}_{corner}" type="sphere" pos="{x:.6g} {y:.6g} {z:.6g}" '
            f'size="{CORNER_RADIUS_M}" class="foot_contact"/>'
        )
    return tuple(geoms)


def _foot_sites(side: str) -> tuple[str, ...]:
    z = -ANKLE_TO_SOLE_M
    return (
        f'<site name="{side}_sole" pos="0 0 {z:.6g}" size="0.01"/>',
        f'<site name="{side}_heel" pos="{HEEL_X_M:.6g} 0 {z:.6g}" size="0.008"/>',
        f'<site name="{side}_toe" pos="{TOE_X_M:.6g} 0 {z:.6g}" size="0.008"/>',
    )


def leg(side: str) -> Link:
    """The 6-DoF leg: hip yaw/roll/pitch, knee, ankle pitch/roll."""
    s = 1.0 if side == "l" else -1.0

    def roll_range(inner: float, outer: float) -> tuple[float, float]:
        # Positive roll moves a left leg outwards and a right leg inwards.
        return (-inner, outer) if side == "l" else (-outer, inner)

    foot = Link(
        f"{side}_foot", (0, 0, 0),
        Joint(f"{side}_ankle_roll", "1 0 0", roll_range(0.4, 0.4), 20.0, 0.01, 0.2),
        0.45, (0.02, 0, -0.03), (0.18, 0.09, 0.04),
        geoms=_foot_geoms(side), sites=_foot_sites(side),
    )
    ankle = Link(
        f"{side}_ankle_link", (0, 0, -0.24),
        Joint(f"{side}_ankle_pitch", "0 1 0", (-0.9, 0.6), 30.0, 0.01, 0.2),
        0.1, (0, 0, 0), (0.04, 0.04, 0.04), children=(foot,),
    )
    shank = Link(
        f"{side}_shank", (0, 0, -0.24),
        Joint(f"{side}_knee", "0 1 0", (-0.05, 2.3), 60.0, 0.02, 0.3),
        1.0, (0, 0, -0.10), (0.06, 0.06, 0.24),
        geoms=(_segment(0.24, 0.03),), children=(ankle,),
    )
    thigh = Link(
        f"{side}_thigh", (0, 0, 0),
        Joint(f"{side}_hip_pitch", "0 1 0", (-1.8, 0.7), 40.0, 0.02, 0.3),
        1.5, (0, 0, -0.11), (0.08, 0.08, 0.24),
        geoms=(_segment(0.24, 0.035),), children=(shank,),
    )
    hip_roll = Link(
        f"{side}_hip_roll_link", (0, 0, -0.04),
        Joint(f"{side}_hip_roll", "1 0 0", roll_range(0.35, 0.6), 40.0, 0.02, 0.3),
        0.3, (0, 0, 0), (0.06, 0.06, 0.06), children=(thigh,),
    )
    return Link(
        f"{side}_hip_yaw_link", (0, s * 0.06, -0.05),
        Joint(f"{side}_hip_yaw", "0 0 1", (-0.6, 0.6), 20.0, 0.01, 0.2),
        0.3, (0, 0, -0.02), (0.06, 0.06, 0.06), children=(hip_roll,),
    )


def arm(side: str) -> Link:
    """The 7-DoF arm: shoulder pitch/roll/yaw, elbow, wrist yaw/pitch/roll."""
    s = 1.0 if side == "l" else -1.0

    def outward(inner: float, outer: float) -> tuple[float, float]:
        return (-inner, outer) if side == "l" else (-outer, inner)

    hand = Link(
        f"{side}_hand_link", (0, 0, 0),
        Joint(f"{side}_wrist_roll", "1 0 0", (-1.0, 1.0), 3.0, 0.002, 0.05),
        0.2, (0, 0, -0.04), (0.03, 0.07, 0.08),
        geoms=('<geom type="box" pos="0 0 -0.04" size="0.015 0.035 0.04" class="body_collision"/>',),
        sites=(f'<site name="{side}_hand" pos="0 0 -0.07" size="0.01"/>',),
    )
    wrist_pitch = Link(
        f"{side}_wrist_pitch_link", (0, 0, 0),
        Joint(f"{side}_wrist_pitch", "0 1 0", (-1.0, 1.0), 3.0, 0.002, 0.05),
        0.05, (0, 0, 0), (0.03, 0.03, 0.03), children=(hand,),
    )
    wrist_yaw = Link(
        f"{side}_wrist_yaw_link", (0, 0, -0.17),
        Joint(f"{side}_wrist_yaw", "0 0 1", (-1.5, 1.5), 3.0, 0.002, 0.05),
        0.05, (0, 0, 0), (0.03, 0.03, 0.03), children=(wrist_pitch,),
    )
    forearm = Link(
        f"{side}_forearm", (0, 0, -0.18),
        Joint(f"{side}_elbow", "0 1 0", (-2.4, 0.0), 8.0, 0.005, 0.1),
        0.4, (0, 0, -0.08), (0.05, 0.05, 0.17),
        geoms=(_segment(0.17, 0.025),), children=(wrist_yaw,),
    )
    upper_arm = Link(
        f"{side}_upper_arm", (0, 0, 0),
        Joint(f"{side}_shoulder_yaw", "0 0 1", (-1.5, 1.5), 10.0, 0.005, 0.1),
        0.5, (0, 0, -0.09), (0.05, 0.05, 0.18),
        geoms=(_segment(0.18, 0.028),), children=(forearm,),
    )
    shoulder_roll = Link(
        f"{side}_shoulder_roll_link", (0, 0, 0),
        Joint(f"{side}_shoulder_roll", "1 0 0", outward(0.3, 2.8), 10.0, 0.005, 0.1),
        0.15, (0, 0, 0), (0.05, 0.05, 0.05), children=(upper_arm,),
    )
    return Link(
        f"{side}_shoulder_pitch_link", (0, s * 0.13, 0.30),
        Joint(f"{side}_shoulder_pitch", "0 1 0", (-2.8, 1.0), 10.0, 0.005, 0.1),
        0.15, (0, 0, 0), (0.05, 0.05, 0.05), children=(shoulder_roll,),
    )


TORSO_GEOMS = (
    '<geom type="box" pos="0 0 0.17" size="0.07 0.11 0.14" class="body_collision" rgba="0.3 0.5 0.8 1"/>',
    '<geom type="sphere" pos="0 0 0.39" size="0.07" class="body_collision" rgba="0.85 0.85 0.9 1"/>',
)
PELVIS_GEOMS = (
    '<geom type="box" pos="0 0 0" size="0.06 0.1 0.04" class="body_collision" rgba="0.3 0.5 0.8 1"/>',
)
PELVIS_SITES = ('<site name="imu" pos="0 0 0" size="0.01"/>',)


def humanoid() -> Link:
    torso = Link(
        "torso", (0, 0, 0.06),
        Joint("waist_yaw", "0 0 1", (-1.0, 1.0), 20.0, 0.01, 0.2),
        4.5, (0, 0, 0.17), (0.14, 0.22, 0.40),
        geoms=TORSO_GEOMS, children=(arm("l"), arm("r")),
    )
    return Link("pelvis", (0, 0, 0), None, 3.5, (0, 0, 0), (0.12, 0.2, 0.08),
                geoms=PELVIS_GEOMS, sites=PELVIS_SITES, children=(leg("l"), leg("r"), torso))


def biped() -> Link:
    # Lower-body-only variant: the torso is welded to the pelvis (no waist joint, no arms).
    torso = Link("torso", (0, 0, 0.06), None, 4.5, (0, 0, 0.17), (0.14, 0.22, 0.40),
                 geoms=TORSO_GEOMS)
    return Link("pelvis", (0, 0, 0), None, 3.5, (0, 0, 0), (0.12, 0.2, 0.08),
                geoms=PELVIS_GEOMS, sites=PELVIS_SITES, children=(leg("l"), leg("r"), torso))


# Height of the pelvis origin above the ground with straight legs at the zero configuration.
PELVIS_TO_HIP_PITCH_M = 0.05 + 0.04
STRAIGHT_LEG_PELVIS_HEIGHT_M = PELVIS_TO_HIP_PITCH_M + 0.24 + 0.24 + ANKLE_TO_SOLE_M


def _body_xml(link: Link, indent: int, is_root: bool) -> list[str]:
    pad = "  " * indent
    lines = [f'{pad}<body name="{link.name}" pos="{_fmt(link.pos_m)}">']
    inner = pad + "  "
    if is_root:
        lines.append(f'{inner}<freejoint name="root"/>')
    elif link.joint is not None:
        j = link.joint
        lines.append(
            f'{inner}<joint name="{j.name}" type="hinge" axis="{j.axis}" range="{_fmt(j.range_rad)}" '
            f'armature="{j.armature_kgm2:.6g}" damping="{j.damping_nms:.6g}" '
            f'actuatorfrcrange="{-j.torque_limit_nm:.6g} {j.torque_limit_nm:.6g}"/>'
        )
    lines.append(
        f'{inner}<inertial pos="{_fmt(link.com_m)}" mass="{link.mass_kg:.6g}" '
        f'diaginertia="{_fmt(box_inertia(link.mass_kg, link.box_m))}"/>'
    )
    lines += [inner + g for g in link.geoms]
    lines += [inner + s for s in link.sites]
    for child in link.children:
        lines += _body_xml(child, indent + 1, False)
    lines.append(f"{pad}</body>")
    return lines


def _joints(link: Link) -> list[Joint]:
    out = [link.joint] if link.joint is not None else []
    for child in link.children:
        out += _joints(child)
    return out


def mjcf(name: str, root: Link, initial_pelvis_height_m: float) -> str:
    """The complete MJCF text of one robot standing on a floor."""
    root = Link(root.name, (0, 0, initial_pelvis_height_m), root.joint, root.mass_kg, root.com_m,
                root.box_m, root.geoms, root.sites, root.children)
    joints = _joints(root)
    body = _body_xml(root, 2, True)
    motors = [
        f'    <motor name="{j.name}" joint="{j.name}" ctrlrange="{-j.torque_limit_nm:.6g} '
        f'{j.torque_limit_nm:.6g}" ctrllimited="true"/>'
        for j in joints
    ]
    sensors = [
        '    <gyro name="imu_gyro" site="imu"/>',
        '    <accelerometer name="imu_accel" site="imu"/>',
        '    <framequat name="imu_quat" objtype="site" objname="imu"/>',
    ]
    return "\n".join([
        "<!-- GENERATED by biped_common/robot_generator.py from its link table; do not edit by hand. -->",
        f'<mujoco model="{name}">',
        '  <compiler angle="radian" inertiafromgeom="false" autolimits="true"/>',
        '  <option timestep="0.001" integrator="implicitfast"/>',
        "  <default>",
        '    <default class="visual"><geom contype="0" conaffinity="0" group="1"/></default>',
        '    <default class="foot_contact"><geom contype="1" conaffinity="0" group="3" '
        'friction="1.0 0.02 0.001" rgba="0.9 0.3 0.2 1"/></default>',
        '    <default class="body_collision"><geom contype="2" conaffinity="0" group="2" '
        'rgba="0.7 0.7 0.75 1"/></default>',
        "  </default>",
        "  <asset>",
        '    <texture name="grid" type="2d" builtin="checker" rgb1="0.2 0.3 0.4" rgb2="0.3 0.4 0.5" '
        'width="512" height="512"/>',
        '    <material name="grid" texture="grid" texrepeat="8 8" reflectance="0.1"/>',
        "  </asset>",
        "  <worldbody>",
        '    <light pos="0 0 3" dir="0 0 -1" directional="true"/>',
        '    <geom name="floor" type="plane" size="0 0 0.05" material="grid" contype="1" '
        'conaffinity="3" friction="1.0 0.02 0.001"/>',
        *body,
        "  </worldbody>",
        "  <actuator>",
        *motors,
        "  </actuator>",
        "  <sensor>",
        *sensors,
        "  </sensor>",
        "</mujoco>",
        "",
    ])


# URDF requires a joint velocity limit; the link table has none (MuJoCo's motors are torque
# limited only). A generous bound, for URDF tools: the stack does not read it.
URDF_VELOCITY_LIMIT_RAD_S = 30.0


def _urdf_shape(geom: ET.Element) -> tuple[str, str] | None:
    """(origin attributes, geometry element) of one MJCF geom as URDF text, or None for a type
    URDF cannot draw. A capsule becomes the cylinder between its end points (along z only, as the
    generator writes them)."""
    kind = geom.get("type", "sphere")
    size = [float(v) for v in geom.get("size", "0").split()]
    pos = geom.get("pos", "0 0 0")
    if kind == "box":
        return f'xyz="{pos}" rpy="0 0 0"', f'<box size="{_fmt(2.0 * v for v in size)}"/>'
    if kind == "sphere":
        return f'xyz="{pos}" rpy="0 0 0"', f'<sphere radius="{size[0]:.6g}"/>'
    if kind == "capsule" and geom.get("fromto"):
        x0, y0, z0, x1, y1, z1 = (float(v) for v in geom.get("fromto").split())
        if (x0, y0) != (x1, y1):
            raise ValueError(f"capsule not along z: {geom.get('fromto')}")
        return (f'xyz="{_fmt((x0, y0, 0.5 * (z0 + z1)))}" rpy="0 0 0"',
                f'<cylinder radius="{size[0]:.6g}" length="{abs(z1 - z0):.6g}"/>')
    return None


def _urdf_link(link: Link, parent: str | None, lines: list[str]) -> None:
    """Append the URDF of ``link`` (joined to ``parent``; None: the root) and its subtree."""
    ixx, iyy, izz = box_inertia(link.mass_kg, link.box_m)
    lines += [f'  <link name="{link.name}">',
              "    <inertial>",
              f'      <origin xyz="{_fmt(link.com_m)}" rpy="0 0 0"/>',
              f'      <mass value="{link.mass_kg:.6g}"/>',
              f'      <inertia ixx="{ixx:.6g}" ixy="0" ixz="0" iyy="{iyy:.6g}" iyz="0" izz="{izz:.6g}"/>',
              "    </inertial>"]
    for text in link.geoms:
        geom = ET.fromstring(text)
        shape = _urdf_shape(geom)
        if shape is None:
            continue
        origin, geometry = shape
        role = "collision" if geom.get("class") in ("body_collision", "foot_contact") else None
        for tag in ("visual", role):
            if tag is not None:
                lines += [f"    <{tag}>", f"      <origin {origin}/>", f"      <geometry>{geometry}</geometry>",
                          f"    </{tag}>"]
    lines.append("  </link>")
    if parent is not None:
        j = link.joint
        if j is None:
            lines += [f'  <joint name="{parent}_to_{link.name}" type="fixed">']
        else:
            lines += [f'  <joint name="{j.name}" type="revolute">',
                      f'    <axis xyz="{j.axis}"/>',
                      f'    <limit lower="{j.range_rad[0]:.6g}" upper="{j.range_rad[1]:.6g}" '
                      f'effort="{j.torque_limit_nm:.6g}" velocity="{URDF_VELOCITY_LIMIT_RAD_S:.6g}"/>',
                      f'    <dynamics damping="{j.damping_nms:.6g}"/>']
        lines += [f'    <parent link="{parent}"/>', f'    <child link="{link.name}"/>',
                  f'    <origin xyz="{_fmt(link.pos_m)}" rpy="0 0 0"/>', "  </joint>"]
    for text in link.sites:  # a site: a massless link on a fixed joint (URDF's frames)
        site = ET.fromstring(text)
        lines += [f'  <link name="{site.get("name")}"/>',
                  f'  <joint name="{link.name}_to_{site.get("name")}" type="fixed">',
                  f'    <parent link="{link.name}"/>', f'    <child link="{site.get("name")}"/>',
                  f'    <origin xyz="{site.get("pos", "0 0 0")}" rpy="0 0 0"/>', "  </joint>"]
    for child in link.children:
        _urdf_link(child, link.name, lines)


def urdf(name: str, root: Link) -> str:
    """The URDF text of one robot (the root link floating: a URDF has no free joint; loaders add
    one, e.g. Pinocchio's ``JointModelFreeFlyer``)."""
    lines = ["<?xml version=\"1.0\"?>",
             "<!-- GENERATED by biped_common/robot_generator.py from its link table; do not edit by hand. -->",
             f'<robot name="{name}">']
    _urdf_link(root, None, lines)
    lines += ["</robot>", ""]
    return "\n".join(lines)


ROBOTS = {"humanoid": humanoid, "biped": biped}


def generate_all() -> dict[str, str]:
    """Return {robot name: MJCF text} for every shipped robot."""
    return {name: mjcf(name, make(), STRAIGHT_LEG_PELVIS_HEIGHT_M) for name, make in ROBOTS.items()}


def generate_all_urdf() -> dict[str, str]:
    """Return {robot name: URDF text} for every shipped robot."""
    return {name: urdf(name, make()) for name, make in ROBOTS.items()}


if __name__ == "__main__":
    for robot_name, text in generate_all().items():
        path = robots_dir() / f"{robot_name}.xml"
        path.write_text(text)
        print(f"wrote {path}")
    for robot_name, text in generate_all_urdf().items():
        path = robots_dir() / f"{robot_name}.urdf"
        path.write_text(text)
        print(f"wrote {path}")
