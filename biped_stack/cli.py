"""``biped-stack``: the project's command line. ``biped-stack --help`` lists the subcommands."""

from __future__ import annotations

import argparse
import sys

from biped_common.errors import BipedStackError


def _cmd_launch(args: argparse.Namespace) -> int:
    from biped_stack.launcher import launch, launch_target
    path, overrides = launch_target(args.words)
    return launch(path, overrides, timeout_s=args.timeout)


def _cmd_robots(args: argparse.Namespace) -> int:
    from biped_common.robot_model import available_robots, load_robot
    for name in available_robots():
        robot = load_robot(name)
        print(f"{name:10s} {robot.n_joints:2d} joints  {robot.mass_kg:5.1f} kg  "
              f"pelvis {robot.nominal_pelvis_height_m:.3f} m  {robot.description.mjcf_path}")
    return 0


def _cmd_stand(args: argparse.Namespace) -> int:
    from biped_stack.stand_demo import run_stand_demo
    return run_stand_demo(args.robot, args.duration, args.push_n, args.out)


def _cmd_demo(args: argparse.Namespace) -> int:
    from biped_stack.walk_demo import run_demo
    if args.hardware:
        if args.state_source != "estimator":
            print("[error] --hardware runs on the state estimator (a ros2_control robot has no ground truth)")
            return 2
        args.multiprocess = args.realtime = True
    if args.realtime and not args.multiprocess:
        print("[error] --realtime needs --multiprocess (in-process, the stack runs in lockstep)")
        return 2
    if args.wbc_gains and args.multiprocess:
        print("[error] --wbc-gains is in-process only (over DDS the wbc node reads its gains_file parameter)")
        return 2
    return run_demo(args.robot, args.style, args.scenario, args.out, multiprocess=args.multiprocess,
                    video=not args.no_video, state_source=args.state_source, realtime=args.realtime,
                    realtime_priority=args.realtime_priority if args.realtime else 0, hardware=args.hardware,
                    wbc_gains=args.wbc_gains)


def _cmd_style_check(args: argparse.Namespace) -> int:
    from biped_stack.style_tools import check
    return check(args.file)


def _cmd_style_render(args: argparse.Namespace) -> int:
    from biped_stack.style_tools import render
    for path in render(args.style, args.out, args.robot):
        print(f"wrote {path}")
    return 0


def _cmd_editor(args: argparse.Namespace) -> int:
    from biped_stack.editor.app import run_editor
    return run_editor(args.style, robot=args.robot, port=args.port, save_path=args.save_to,
                      open_browser=not args.no_browser, attach=args.attach, planner_node=args.planner_node)


def _cmd_style_import(args: argparse.Namespace) -> int:
    from biped_stack.editor.keyframes import import_keyframes
    from biped_common.errors import BipedStackError
    try:
        out = import_keyframes(args.template, args.sample, args.keyframes, args.out, robot=args.robot)
    except BipedStackError as exc:
        print(f"not imported: {exc}")
        return 1
    print(f"wrote {out}")
    return 0


def _cmd_muscles_inverse(args: argparse.Namespace) -> int:
    from biped_stack.muscle_tools import inverse
    return inverse(args.model, args.motion, args.out, args.criterion)


def _cmd_muscles_track(args: argparse.Namespace) -> int:
    from biped_stack.muscle_tools import track
    return track(args.out)


def _cmd_muscles_single_joint(args: argparse.Namespace) -> int:
    from biped_stack.muscle_tools import single_joint
    return single_joint(args.out)


def _cmd_reach_train(args: argparse.Namespace) -> int:
    from biped_stack.reach_tools import train
    return train(args.out, args.samples, args.data)


def _cmd_reach_eval(args: argparse.Namespace) -> int:
    from biped_stack.reach_tools import evaluate
    return evaluate(args.out, args.model)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="biped-stack", description="biped_stack: stylized bipedal walking on ROS 2 (MuJoCo, Pinocchio, OSQP).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("launch", help="run a ROS 2 XML launch file without ros2 launch (pip-only)",
                       usage="biped-stack launch [--timeout S] (FILE | PACKAGE FILE_NAME) [name:=value ...]",
                       description="FILE [name:=value ...] or PACKAGE FILE_NAME [name:=value ...], as "
                                   "ros2 launch takes them (e.g. biped_stack sim.launch.xml robot:=biped)")
    p.add_argument("words", nargs="+", metavar="ARG",
                   help="launch file (or package and file name), then launch arguments")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="stop all nodes after S seconds of wall time")
    p.set_defaults(func=_cmd_launch)

    p = sub.add_parser("robots", help="list the shipped robots")
    p.set_defaults(func=_cmd_robots)

    p = sub.add_parser("style", help="gait styles: check a file, render one to PNG")
    style_sub = p.add_subparsers(dest="style_command", metavar="STYLE_COMMAND", required=True)
    q = style_sub.add_parser("check", help="validate a style file (exit 0: valid, 1: every error listed)")
    q.add_argument("file")
    q.set_defaults(func=_cmd_style_check)
    q = style_sub.add_parser("render", help="footprints, foot/pelvis curves and gait diagram as PNGs")
    q.add_argument("style", help="shipped style name (neutral, bouncy, limp) or a style file")
    q.add_argument("--out", required=True, help="output folder")
    q.add_argument("--robot", default="humanoid", help="whose feet and pelvis height to use")
    q.set_defaults(func=_cmd_style_render)
    q = style_sub.add_parser("import", help="fit one sample's timing and curves to a keyframed cycle (CSV; format in "
                                             "biped_stack/editor/keyframes.py)")
    q.add_argument("keyframes", help="CSV: one cycle from a right touch-down")
    q.add_argument("--out", required=True, help="the style file to write")
    q.add_argument("--template", default="neutral", help="style whose other samples and knot phases are kept")
    q.add_argument("--sample", default="forward_slow", help="the key sample the keyframes are")
    q.add_argument("--robot", default="humanoid")
    q.set_defaults(func=_cmd_style_import)

    p = sub.add_parser("editor", help="the style editor in the browser (localhost): edit a style, see the planner's reference")
    p.add_argument("--style", default="neutral", help="shipped style name or a style file (default neutral)")
    p.add_argument("--robot", default="humanoid", help="whose feet and pelvis height the preview uses")
    p.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free one; default 8765)")
    p.add_argument("--save-to", default=None, metavar="FILE",
                   help="where Save writes (default: the style file itself, or ./<name>.yaml for a shipped style)")
    p.add_argument("--no-browser", action="store_true", help="only print the URL")
    p.add_argument("--attach", action="store_true",
                   help="Apply to robot sends the style to the running gait planner (this ROS_DOMAIN_ID), "
                        "after a shadow check walks it in MuJoCo (robot = --robot)")
    p.add_argument("--planner-node", default="/gait_planner", help="the running planner's node name")
    p.set_defaults(func=_cmd_editor)

    p = sub.add_parser("muscles", help="muscles: inverse problem, forward tracking, source 000's demo")
    muscle_sub = p.add_subparsers(dest="muscles_command", metavar="MUSCLES_COMMAND", required=True)
    q = muscle_sub.add_parser("inverse", help="activations producing a recorded joint motion (static optimization)")
    q.add_argument("--model", required=True, help="MJCF file with muscle actuators, or myoelbow / myolegs (myo-sim)")
    q.add_argument("--motion", required=True,
                   help="CSV (time, then one column per joint) or OpenSim .mot; 'squat' generates one for myolegs")
    q.add_argument("--out", required=True, help="output folder (activations.csv/.sto, residuals.csv, plots)")
    q.add_argument("--criterion", default="activation_squared", choices=("activation_squared", "force_squared"))
    q.set_defaults(func=_cmd_muscles_inverse)
    q = muscle_sub.add_parser("track", help="MyoElbow tracks a minimum-jerk motion on our activations")
    q.add_argument("--out", required=True)
    q.set_defaults(func=_cmd_muscles_track)
    q = muscle_sub.add_parser("single-joint", help="source 000's flexor/extensor example")
    q.add_argument("--out", required=True)
    q.set_defaults(func=_cmd_muscles_single_joint)

    p = sub.add_parser("reach", help="reaching: train the arm-angle model, evaluate plans and model")
    reach_sub = p.add_subparsers(dest="reach_command", metavar="REACH_COMMAND", required=True)
    q = reach_sub.add_parser("train", help="generate optimal arm angles, fit the MLP, save it (≈ 1 min)")
    q.add_argument("--out", required=True, help="model file (.npz)")
    q.add_argument("--samples", type=int, default=1500)
    q.add_argument("--data", default=None, help="recorded markers, 002's format: CSV with time, shoulder_x … hand_z "
                   "[m] in the arm's base axes")
    q.set_defaults(func=_cmd_reach_train)
    q = reach_sub.add_parser("eval", help="kinematic bars on 100 targets, MLP vs least squares, speed-up")
    q.add_argument("--out", required=True, help="output folder (reach_metrics.json, plots)")
    q.add_argument("--model", default=None, help="model file (default: the shipped config/arm_angle_mlp.npz)")
    q.set_defaults(func=_cmd_reach_eval)

    p = sub.add_parser("demo", help="walk the teleop script in MuJoCo and write a report (metrics, plots, video)")
    p.add_argument("--robot", default="humanoid", help="humanoid or biped")
    p.add_argument("--style", default="neutral", help="shipped style name or a style file")
    p.add_argument("--scenario", default=None,
                   help="shipped scenario name or a scenario file (default: teleop_push, the teleop script with "
                        "the paper's 25 N x 1 s push; teleop with --hardware)")
    p.add_argument("--multiprocess", action="store_true",
                   help="the launch file's processes over DDS (lockstep unless --realtime) instead of in-process")
    p.add_argument("--realtime", action="store_true",
                   help="with --multiprocess: the simulator on the wall clock, nothing waits for the controllers; "
                        "metrics gain a realtime block (sim/wall, watchdog trips, deadline misses, latency, CPU)")
    p.add_argument("--realtime-priority", type=int, default=50, metavar="P",
                   help="with --realtime: SCHED_FIFO priority 1-99 of the bridge and the control process, "
                        "as ros2_control's controller manager runs its loop (launch argument "
                        "realtime_priority; needs CAP_SYS_NICE or an rtprio limit, else a warning and the "
                        "default scheduler); 0: the default scheduler. Default 50")
    p.add_argument("--hardware", action="store_true",
                   help="launch/hardware.launch.xml: the stack through the bridge's ros2_control backend against "
                        "MuJoCo posing as a ros2_control robot (implies --multiprocess --realtime)")
    p.add_argument("--out", default="out/demo", help="report folder")
    p.add_argument("--no-video", action="store_true", help="skip the MP4 (rendering costs ≈ 1 min)")
    p.add_argument("--state-source", choices=("estimator", "ground_truth"), default="estimator",
                   help="base state for the controllers (estimator: with MEMS-level sensor noise)")
    p.add_argument("--wbc-gains", default=None, metavar="FILE",
                   help="in-process: the WBC's gains file (default config/wbc.yaml; config/wbc_style_first.yaml "
                        "walks nearer the designed style, with the shipped gains while a push lasts)")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("stand", help="in-process: stand under the stand controller, push, report")
    p.add_argument("--robot", default="humanoid")
    p.add_argument("--duration", type=float, default=10.0, metavar="S", help="sim time [s]")
    p.add_argument("--push-n", type=float, default=15.0, metavar="N",
                   help="forward push on the pelvis for 0.2 s at t = duration/2 [N] (0: none)")
    p.add_argument("--out", default="out/stand", help="report folder (metrics.json, plot)")
    p.set_defaults(func=_cmd_stand)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return args.func(args)
    except BipedStackError as exc:
        print(f"biped-stack: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
