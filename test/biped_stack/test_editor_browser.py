"""The style editor in a real browser (issue #17 bar 1): headless Chromium (Debian's chromium and
chromium-driver, driven by selenium) drags a swing-height knot, sees the preview's apex move by
the knot's change, sees an out-of-bounds drag refused beside the curve, undoes and redoes, saves;
the saved file passes ``style check`` and differs from the original in the edited line only.

Without Chromium the test is skipped, unless ``BIPED_REQUIRE_BROWSER=1`` (``.ci/run`` sets it
after installing the packages): then it fails.
"""

import difflib
import os
import shutil
import time
from pathlib import Path

import pytest

from biped_common.resources import styles_dir
from biped_stack.editor.app import make_app
from biped_stack.editor.server import EditorServer
from biped_stack.style_tools import check

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
# The flags a closed network needs (no background connections, no first-run) and headless as root.
CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1500,1000")
WAIT_S = 60.0


@pytest.fixture
def browser(tmp_path):
    if not (CHROMIUM and CHROMEDRIVER):
        if os.environ.get("BIPED_REQUIRE_BROWSER") == "1":
            pytest.fail("chromium and chromedriver are required (apt-get install chromium chromium-driver)")
        pytest.skip("no chromium / chromedriver on this machine (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(f"{flag}")
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT_S)
    yield driver
    driver.quit()


def settled(driver) -> None:
    """Until the page has no request in flight and its preview is drawn (bounded)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if driver.execute_script("return document.body.dataset.pending === '0' && "
                                 "document.getElementById('apex-left').dataset.value !== ''"):
            time.sleep(0.1)  # a request chained on the last one's answer starts within this
            if driver.execute_script("return document.body.dataset.pending === '0'"):
                return
        time.sleep(0.05)
    raise AssertionError("the editor page did not settle")


def knot(driver, path: str, index: int = 0):
    from selenium.webdriver.common.by import By
    return driver.find_element(By.CSS_SELECTOR, f'div.curve[data-path="{path}"] circle.knot[data-index="{index}"]')


def drag(driver, element, dy_px: int) -> None:
    """Drag ``element`` straight up by ``dy_px`` pixels with shift held (the knot keeps its phase)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    (ActionChains(driver).key_down(Keys.SHIFT).click_and_hold(element).move_by_offset(0, -dy_px // 2)
     .move_by_offset(0, -(dy_px - dy_px // 2)).release().key_up(Keys.SHIFT).perform())


def apex(driver, side="left") -> float:
    return float(driver.find_element("id", f"apex-{side}").get_attribute("data-value"))


def test_drag_a_knot_see_the_apex_refuse_out_of_bounds_and_save(browser, tmp_path):
    out = tmp_path / "neutral_edited.yaml"
    server = EditorServer(make_app("neutral", save_path=out)).start()
    try:
        browser.get(server.url)
        settled(browser)
        assert "forward_slow" in browser.find_element("id", "sample-title").text
        apex_before = apex(browser)
        value_before = float(knot(browser, "swing.height_m").get_attribute("data-value"))

        drag(browser, knot(browser, "swing.height_m"), 8)
        settled(browser)
        value_after = float(knot(browser, "swing.height_m").get_attribute("data-value"))
        assert 0.01 < value_after - value_before < 0.05, (value_before, value_after)
        # At the sample's own velocity the preview walks that sample alone: its apex is the knot.
        for side in ("left", "right"):
            assert apex(browser, side) - apex_before == pytest.approx(value_after - value_before, abs=1e-3)
        shot = os.environ.get("BIPED_EDITOR_SCREENSHOT")
        if shot:
            browser.save_screenshot(shot)

        drag(browser, knot(browser, "swing.height_m"), 120)  # far beyond the 0.25 m bound
        settled(browser)
        error = browser.find_element("css selector", '[data-error-for="swing.height_m"]').text
        assert "must be in [0, 0.25]" in error, error
        assert "error" in browser.find_element("id", "status").get_attribute("class")
        assert float(knot(browser, "swing.height_m").get_attribute("data-value")) == value_after

        browser.find_element("id", "undo").click()
        settled(browser)
        assert float(knot(browser, "swing.height_m").get_attribute("data-value")) == value_before
        browser.find_element("id", "redo").click()
        settled(browser)
        assert float(knot(browser, "swing.height_m").get_attribute("data-value")) == value_after

        path_input = browser.find_element("id", "save-path")
        assert path_input.get_attribute("value") == str(out)
        browser.find_element("id", "save").click()
        settled(browser)
        assert browser.find_element("id", "status").text.startswith(f"saved {out}")
    finally:
        server.stop()

    assert check(str(out)) == 0
    original = (styles_dir() / "neutral.yaml").read_text().splitlines()
    saved = Path(out).read_text().splitlines()
    changed = [line for line in difflib.unified_diff(original, saved, lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert changed == ["-    swing: {height_m: [[0.45, 0.055]]}",
                       f"+    swing: {{height_m: [[0.45, {value_after:g}]]}}"], changed


def test_timing_events_and_knots_are_edited_on_the_page(browser, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    server = EditorServer(make_app("neutral", save_path=tmp_path / "unused.yaml")).start()
    document = server.app.document
    try:
        browser.get(server.url)
        settled(browser)
        before = document.style.samples["forward_slow"].timing
        event = browser.find_element("css selector", '#timing-svg rect.event[data-event="2"]')  # left touch-down
        ActionChains(browser).click_and_hold(event).move_by_offset(6, 0).move_by_offset(5, 0).release().perform()
        settled(browser)
        after = document.style.samples["forward_slow"].timing
        # Moving the left touch-down lengthens the left swing and shortens the double support after it.
        assert after.left_swing_s > before.left_swing_s + 0.01
        assert after.left_swing_s + after.double_support_after_left_s == pytest.approx(
            before.left_swing_s + before.double_support_after_left_s, abs=1e-9)
        assert after.cycle_s == pytest.approx(before.cycle_s, abs=1e-9)

        event = browser.find_element("css selector", '#timing-svg rect.event[data-event="2"]')
        ActionChains(browser).click_and_hold(event).move_by_offset(25, 0).move_by_offset(25, 0).release().perform()
        settled(browser)  # past the right lift-off: the double support would be negative
        error = browser.find_element("css selector", '[data-error-for="timing"]').text
        assert "double_support_after_left_s" in error and "must be in [0.02, 2]" in error, error
        assert document.style.samples["forward_slow"].timing == after

        chart = browser.find_element("css selector", 'div.curve[data-path="swing.forward_m"] svg')
        ActionChains(browser).move_to_element_with_offset(chart, 20, -20).double_click().perform()
        settled(browser)
        knots = document.value("forward_slow", "swing.forward_m")
        assert len(knots) == 1 and 0.0 < knots[0][0] < 1.0 and knots[0][1] > 0.0, knots
        ActionChains(browser).double_click(knot(browser, "swing.forward_m")).perform()
        settled(browser)
        assert document.value("forward_slow", "swing.forward_m") == []
    finally:
        server.stop()


def test_bad_input_gets_a_message_not_a_crash(browser, tmp_path):
    """Issue #17 bar 4: NaN typed in a field, a malformed file loaded, the server restarted under
    the open page — each a message on the page, the document unchanged, no error uncaught."""
    bad_file = tmp_path / "broken.yaml"
    bad_file.write_text("name: broken\nsamples: {forward_fast: [unclosed\n")
    server = EditorServer(make_app("neutral", save_path=tmp_path / "unused.yaml")).start()
    port = int(server.url.rsplit(":", 1)[1].strip("/"))
    try:
        browser.get(server.url)
        settled(browser)
        before = server.app.document.text
        typed = browser.find_element("css selector", 'input.number[data-path="attributes.stance_width_m"]')
        # Select and overtype (clear() would fire a change of its own, an empty edit racing this one).
        from selenium.webdriver.common.keys import Keys
        typed.send_keys(Keys.CONTROL, "a")
        typed.send_keys("NaN\n")
        settled(browser)
        error = browser.find_element("css selector", '[data-error-for="attributes.stance_width_m"]').text
        assert "must be a finite number" in error, error
        assert server.app.document.text == before

        browser.find_element("id", "load-path").send_keys(str(bad_file))
        browser.find_element("id", "load").click()
        settled(browser)
        message = browser.find_element("id", "status").text
        assert message.startswith("not loaded, the document is unchanged") and "not valid YAML" in message, message
        assert server.app.document.text == before and "neutral" in browser.find_element("id", "style-name").text

        server.stop()  # the server goes away under the open page
        browser.find_element("css selector", 'nav button[data-sample="in_place"]').click()
        settled(browser)
        assert "not reachable" in browser.find_element("id", "status").text
        server = EditorServer(make_app("bouncy", save_path=tmp_path / "unused.yaml"), port=port).start()
        browser.find_element("css selector", 'nav button[data-sample="in_place"]').click()
        settled(browser)
        assert browser.find_element("id", "status").text.startswith("the editor server is back")
        assert "bouncy" in browser.find_element("id", "style-name").text
        assert browser.find_element("id", "sample-title").text.startswith("in_place")
        uncaught = [e for e in browser.get_log("browser") if "Uncaught" in e["message"]]
        assert uncaught == [], uncaught
    finally:
        server.stop()


def view_ready(driver) -> None:
    """Until the 3D view shows the latest motion (bounded)."""
    settled(driver)
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if driver.execute_script("return document.body.dataset.view3d === 'ready'"):
            return
        time.sleep(0.05)
    raise AssertionError(f"the 3D view did not load: {driver.execute_script('return document.body.dataset.view3d')}")


def drawn_feet_apex(driver, feet: list[str]) -> float:
    """The highest a foot body is drawn over the motion's frames (the page's scene graph)."""
    return driver.execute_script("""
        const feet = arguments[0], n = window.view3d.view.motion.time_s.length;
        let top = -1;
        for (let k = 0; k < n; k++) {
          window.view3d.showFrame(k);
          for (const f of feet) top = Math.max(top, window.view3d.bodyWorldPosition(f)[2]);
        }
        return top;""", feet)


def test_the_3d_view_plays_the_posed_reference_and_follows_an_edit(browser, tmp_path):
    """The 3D view draws the robot's geoms at the poses the server computed (legs by IK on the
    reference), it renders (pixels, not a blank canvas), scrubbing poses the frame asked for, and a
    +2.4 cm swing-height drag lifts the drawn feet by the knot's change."""
    from biped_common.robot_model import load_robot
    feet = [load_robot("humanoid").description.feet[side].body for side in ("left", "right")]
    server = EditorServer(make_app("neutral", save_path=tmp_path / "unused.yaml")).start()
    try:
        browser.get(server.url)
        view_ready(browser)
        motion = browser.execute_script("return window.view3d.view.motion")
        bodies = browser.execute_script("return window.view3d.view.geometry.bodies")
        n = len(motion["time_s"])
        assert n >= 2 * motion["cycle_s"] * 25 - 1  # two cycles at 25 frames a second
        for frame in (0, n // 3, n - 1):
            browser.execute_script("window.view3d.showFrame(arguments[0])", frame)
            assert browser.execute_script("return document.body.dataset.view3dFrame") == str(frame)
            for foot in feet:
                drawn = browser.execute_script("return window.view3d.bodyWorldPosition(arguments[0])", foot)
                assert drawn == pytest.approx(motion["body_pos_m"][frame][bodies.index(foot)], abs=1e-6)
        colours = browser.execute_script("""
            const source = document.getElementById('view3d');
            const copy = document.createElement('canvas');
            copy.width = source.width; copy.height = source.height;
            const context = copy.getContext('2d');
            context.drawImage(source, 0, 0);
            const pixels = context.getImageData(0, 0, copy.width, copy.height).data;
            const seen = new Set();
            for (let i = 0; i < pixels.length; i += 4 * 97) seen.add(pixels[i] << 16 | pixels[i + 1] << 8 | pixels[i + 2]);
            return seen.size;""")
        assert colours > 20, colours  # shaded geoms, grid, footprints: not a cleared canvas
        browser.find_element("id", "view3d-play").click()  # paused by showFrame: plays again
        start = browser.execute_script("return window.view3d.view.time_s")
        time.sleep(0.5)
        assert browser.execute_script("return window.view3d.view.time_s") > start + 0.2

        apex_before = drawn_feet_apex(browser, feet)
        value_before = float(knot(browser, "swing.height_m").get_attribute("data-value"))
        drag(browser, knot(browser, "swing.height_m"), 8)
        view_ready(browser)
        change = float(knot(browser, "swing.height_m").get_attribute("data-value")) - value_before
        assert 0.01 < change < 0.05
        assert drawn_feet_apex(browser, feet) - apex_before == pytest.approx(change, abs=3e-3)
        severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert not severe, severe
        shot = os.environ.get("BIPED_EDITOR_3D_SCREENSHOT")
        if shot:
            browser.execute_script("window.view3d.showFrame(arguments[0])", n // 4)
            browser.save_screenshot(shot)
    finally:
        server.stop()


def test_keyframes_are_imported_from_the_page(browser, tmp_path):
    """Import on the page (issue #17 'the editor can import one too'): a keyframed cycle of
    neutral's forward_slow with a 2 cm higher swing is fitted into the sample (the knot within
    1 mm, the apex shown up by 2 cm), undo restores it, a malformed file is refused by row."""
    from biped_common.robot_model import load_robot
    from biped_stack.editor.document import StyleDocument
    from biped_stack.editor.keyframes import planner_cycle, write_keyframes
    from gait_planner_node.planner import PlannerConfig
    raised = StyleDocument.open("neutral")
    raised.apply("forward_slow", {"swing.height_m": [[0.45, 0.075]]})
    config = PlannerConfig.for_robot(load_robot("humanoid"))
    good = write_keyframes(tmp_path / "higher_swing.csv", planner_cycle(raised.style, config, "forward_slow", 0.002))
    bad = tmp_path / "broken.csv"
    lines = good.read_text().splitlines()
    lines[5] = lines[5].replace(",", ",oops,", 1)
    bad.write_text("\n".join(lines) + "\n")
    server = EditorServer(make_app("neutral", save_path=tmp_path / "unused.yaml")).start()
    document = server.app.document
    try:
        browser.get(server.url)
        settled(browser)
        apex_before = apex(browser)
        browser.find_element("id", "import-file").send_keys(str(good))
        settled(browser)
        assert browser.find_element("id", "status").text.startswith("imported higher_swing.csv into forward_slow")
        [[phase, height]] = document.value("forward_slow", "swing.height_m")
        assert phase == 0.45 and height == pytest.approx(0.075, abs=1e-3)
        assert apex(browser) - apex_before == pytest.approx(0.02, abs=1e-3)
        browser.find_element("id", "undo").click()
        settled(browser)
        assert document.value("forward_slow", "swing.height_m") == [[0.45, 0.055]]

        before = document.text
        browser.find_element("id", "import-file").send_keys(str(bad))
        settled(browser)
        error = browser.find_element("css selector", '[data-error-for="import"]').text
        assert "broken.csv: row 6" in error and "fields" in error, error
        assert "error" in browser.find_element("id", "status").get_attribute("class")
        assert document.text == before
    finally:
        server.stop()


def test_the_measured_robot_walks_beside_the_reference(browser, tmp_path):
    """Attached, the 3D view draws the measured pose (here a stand-in for the ROS side, as
    :class:`~biped_stack.editor.ros_live.LivePlanner` hands it over: the /odom base state and the
    /joint_states angles) beside the reference: same heading, 0.7 m to its left, its feet on the
    floor where the measurement has them."""
    import numpy as np
    from biped_common.robot_model import load_robot
    from biped_common.rotations import quat_multiply
    from biped_common.state import BaseState
    robot = load_robot("humanoid")
    qpos = robot.standing_qpos()
    yaw = 0.8  # the measured robot walked off somewhere, turned
    turn = np.array([np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)])
    base = BaseState(12.0, np.array([3.0, -2.0, qpos[2]]), quat_multiply(turn, qpos[3:7]), np.zeros(3), np.zeros(3))

    class Live:
        planner_node = "/gait_planner"

        def measured_state(self):
            return base, robot.joint_names, list(qpos[7:])

    app = make_app("neutral", save_path=tmp_path / "unused.yaml")
    app.live = Live()
    server = EditorServer(app).start()
    foot = robot.description.feet["left"].body
    try:
        browser.get(server.url)
        view_ready(browser)
        deadline = time.monotonic() + WAIT_S
        while browser.execute_script("return window.view3d.view.measuredPose") is None:
            assert time.monotonic() < deadline, "no measured pose drawn"
            time.sleep(0.05)
        assert "measured robot at t = 12.00 s" in browser.find_element("id", "view3d-measured").text
        browser.execute_script("window.view3d.showFrame(0)")
        geometry = browser.execute_script("return window.view3d.view.geometry")
        base_name = geometry["bodies"][geometry["base_body"]]
        ref_pelvis = browser.execute_script("return window.view3d.bodyWorldPosition(arguments[0])", base_name)
        drawn_pelvis = browser.execute_script("return window.view3d.bodyWorldPosition(arguments[0], 'measured')", base_name)
        assert drawn_pelvis[0] == pytest.approx(ref_pelvis[0], abs=1e-6)
        assert drawn_pelvis[1] == pytest.approx(ref_pelvis[1] + 0.7, abs=1e-6)
        assert drawn_pelvis[2] == pytest.approx(qpos[2], abs=1e-3)
        drawn_foot = browser.execute_script("return window.view3d.bodyWorldPosition(arguments[0], 'measured')", foot)
        # Turned back to +x: the left foot is to the left of the pelvis (standing), as measured.
        import mujoco
        standing = robot.mj_model.body(foot).id
        data = mujoco.MjData(robot.mj_model)
        data.qpos[:] = qpos
        mujoco.mj_kinematics(robot.mj_model, data)
        expected = data.xpos[standing] - data.xpos[geometry["base_body"]]
        assert np.array(drawn_foot) - np.array(drawn_pelvis) == pytest.approx(expected, abs=1e-3)
    finally:
        server.stop()
