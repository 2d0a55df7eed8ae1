"""The style editor's document and API (issue #17): edits land in the edited sample only, keep
the file's text elsewhere, are refused by field when out of bounds or invalid, undo/redo."""

import difflib
import json
import urllib.request

import pytest

from biped_stack.editor.app import make_app
from biped_stack.editor.document import EditError, StyleDocument, field_spec
from biped_stack.editor.server import EditorServer
from biped_stack.style_tools import check
from biped_common.errors import ConfigError
from biped_common.resources import styles_dir
from gait_planner_node.style import SAMPLE_KEYS, load_style, shipped_styles


def changed_lines(before: str, after: str) -> list[str]:
    return [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


@pytest.mark.parametrize("name", shipped_styles())
def test_every_shipped_style_opens_with_its_text_unchanged(name):
    document = StyleDocument.open(name)
    assert document.text == (styles_dir() / f"{name}.yaml").read_text()
    assert document.style.samples.keys() == load_style(name).samples.keys()


def test_an_edit_changes_one_line_and_the_loaded_style():
    document = StyleDocument.open("neutral")
    before = document.text
    document.apply("forward_slow", {"swing.height_m": [[0.45, 0.075]]})
    assert changed_lines(before, document.text) == ["-    swing: {height_m: [[0.45, 0.055]]}",
                                                    "+    swing: {height_m: [[0.45, 0.075]]}"]
    sample = document.style.samples["forward_slow"]
    assert sample.left_swing.height_m(0.45) == pytest.approx(0.075)
    assert document.style.samples["forward_fast"] == load_style("neutral").samples["forward_fast"]


def test_an_inherited_field_is_written_into_the_sample_not_the_defaults():
    document = StyleDocument.open("neutral")
    assert not document.is_own("in_place", "timing.left_swing_s")
    inherited = document.value("in_place", "timing.left_swing_s")
    document.apply("in_place", {"timing.left_swing_s": inherited + 0.02})
    assert document.is_own("in_place", "timing.left_swing_s")
    assert document.data()["defaults"]["timing"]["left_swing_s"] == inherited
    timing = document.style.samples["in_place"].timing
    assert timing.left_swing_s == pytest.approx(inherited + 0.02)
    # the sample's other intervals are still the defaults'
    assert timing.right_swing_s == document.data()["defaults"]["timing"]["right_swing_s"]


@pytest.mark.parametrize("path, value, field, message", [
    ("swing.height_m", [[0.45, 0.3]], "samples.forward_slow.swing.height_m[0].value", "must be in [0, 0.25]"),
    ("attributes.stance_width_m", 0.5, "samples.forward_slow.attributes.stance_width_m", "must be in [0.06, 0.4]"),
    ("timing.left_swing_s", 0.1, "samples.forward_slow.timing.left_swing_s", "must be in [0.15, 2]"),
    ("timing.left_swing_s", float("nan"), "samples.forward_slow.timing.left_swing_s", "finite number"),
    ("swing.height_m", [[0.6, 0.05], [0.4, 0.05]], "samples.forward_slow", "phase"),
    ("pelvis.bob_m", [[0.5, 0.01]], "samples.forward_slow.pelvis.bob_m", "not an editable field"),
])
def test_a_bad_edit_is_refused_by_field_and_changes_nothing(path, value, field, message):
    document = StyleDocument.open("neutral")
    before = document.text
    with pytest.raises(EditError) as refused:
        document.apply("forward_slow", {path: value})
    assert any(e.field.startswith(field) and message in str(e) for e in refused.value.errors), refused.value.errors
    assert document.text == before and not document.can_undo


def test_undo_and_redo_walk_the_history():
    document = StyleDocument.open("bouncy")
    texts = [document.text]
    for width in (0.13, 0.14):
        document.apply("forward_slow", {"attributes.stance_width_m": width})
        texts.append(document.text)
    assert document.undo() and document.text == texts[1]
    assert document.undo() and document.text == texts[0] and not document.undo()
    assert document.redo() and document.text == texts[1]
    document.apply("in_place", {"attributes.splay_rad": 0.1})  # a new edit drops the redo
    assert not document.can_redo


def test_fields_cover_the_sample_and_their_specs_carry_the_bounds():
    document = StyleDocument.open("neutral")
    paths = [f.path for f in document.sample_fields("forward_slow")]
    assert "timing.left_swing_s" in paths and "attributes.splay_rad" in paths
    assert "swing.height_m" in paths and "upper_body.l_shoulder_pitch" in paths
    assert field_spec("swing.height_m").high == 0.25 and field_spec("timing.left_swing_s").low == 0.15
    with pytest.raises(ConfigError):
        field_spec("timing.cycle_s")
    phases, values = document.curve_points("forward_slow", "swing.height_m")
    assert values[0] == pytest.approx(0.0) and values.max() == pytest.approx(0.055, abs=1e-4)
    with pytest.raises(EditError):
        document.sample_fields("sideways")


def test_the_saved_file_passes_style_check(tmp_path):
    document = StyleDocument.open("limp")
    document.apply("forward_fast", {"pelvis.height_m": [[0.25, -0.01], [0.75, -0.02]]})
    path = document.save(tmp_path / "nested" / "limp_edited.yaml")
    assert check(str(path)) == 0
    assert load_style(path).samples["forward_fast"].pelvis.height_m(0.75) == pytest.approx(-0.02)


def _call(url, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method), timeout=30) as response:
        return json.loads(response.read())


def test_the_api_edits_previews_and_refuses(tmp_path):
    server = EditorServer(make_app("neutral", save_path=tmp_path / "out.yaml")).start()
    try:
        state = _call(server.url + "api/state")
        assert [s["key"] for s in state["samples"]] == list(SAMPLE_KEYS) and not state["can_undo"]
        before = _call(server.url + "api/preview", "POST", {"velocity": [0.3, 0.0, 0.0]})
        assert before["weights"] == {"forward_slow": 1.0}
        refused = _call(server.url + "api/edit", "POST", {"sample": "forward_slow",
                                                          "changes": {"swing.height_m": [[0.45, 0.26]]}})
        assert not refused["ok"] and "must be in [0, 0.25]" in refused["errors"][0]["message"]
        done = _call(server.url + "api/edit", "POST", {"sample": "forward_slow",
                                                       "changes": {"swing.height_m": [[0.45, 0.075]]}})
        assert done["ok"] and done["can_undo"]
        after = _call(server.url + "api/preview", "POST", {"velocity": [0.3, 0.0, 0.0]})
        for side in ("left", "right"):  # at the sample's own velocity the apex moves with the knot
            assert after["apex_m"][side] - before["apex_m"][side] == pytest.approx(0.02, abs=1e-3)
        bad = _call(server.url + "api/preview", "POST", {"velocity": [0.3, "fast"]})
        assert not bad["ok"] and bad["errors"][0]["field"] == "velocity"
        saved = _call(server.url + "api/save", "POST", {})
        assert saved["ok"] and check(saved["path"]) == 0
        with pytest.raises(urllib.error.HTTPError):
            _call(server.url + "../../etc/passwd")
    finally:
        server.stop()


def test_apply_live_needs_an_attached_stack(tmp_path):
    app = make_app("neutral", save_path=tmp_path / "x.yaml")
    with pytest.raises(EditError, match="not attached"):
        app.apply_live("forward_slow")
    assert not app.state()["attached"]


def test_the_server_answers_a_failure_with_json_and_a_bad_load_keeps_the_document(tmp_path, monkeypatch, capsys):
    app = make_app("neutral", save_path=tmp_path / "x.yaml")
    server = EditorServer(app).start()
    try:
        def broken(key):
            raise RuntimeError("planner exploded")
        monkeypatch.setattr(app, "sample", broken)
        with pytest.raises(urllib.error.HTTPError) as failed:
            _call(server.url + "api/sample?key=in_place")
        assert failed.value.code == 500
        body = json.loads(failed.value.read())
        assert body["errors"][0]["message"] == "RuntimeError: planner exploded (details in the editor's terminal)"
        assert "Traceback" in capsys.readouterr().err  # for the terminal, not the page
        (tmp_path / "bad.yaml").write_text("name: bad\nsamples: {}\n")
        refused = _call(server.url + "api/load", "POST", {"path": str(tmp_path / "bad.yaml")})
        assert not refused["ok"] and any("samples.forward_fast" in e["field"] for e in refused["errors"])
        missing = _call(server.url + "api/load", "POST", {"path": str(tmp_path / "none.yaml")})
        assert not missing["ok"] and "cannot be read" in missing["errors"][0]["message"]
        assert _call(server.url + "api/state")["name"] == "neutral"
        loaded = _call(server.url + "api/load", "POST", {"path": "limp"})
        assert loaded["ok"] and loaded["name"] == "limp"
    finally:
        server.stop()
        server.stop()  # idempotent


@pytest.mark.parametrize("value", [1e-05, -3e-05, 0.0])
def test_small_values_are_written_as_numbers_the_loader_reads(value):
    document = StyleDocument.open("neutral")
    document.apply("forward_slow", {"pelvis.height_m": [[0.5, value]]})
    assert document.style.samples["forward_slow"].pelvis.height_m(0.5) == pytest.approx(value)
    assert "e-0" not in document.text


def test_previews_answer_while_a_shadow_check_runs(tmp_path):
    """The shadow check takes seconds; the page's previews and edits do not wait for it, and a
    second apply while one is being checked is refused with the reason."""
    import threading
    from biped_stack.editor.shadow import ShadowVerdict
    release, started = threading.Event(), threading.Event()

    def slow_shadow(text, key, robot):
        started.set()
        release.wait(timeout=30.0)
        return ShadowVerdict(False, "the robot falls (test)", ())

    class Live:
        planner_node = "/gait_planner"

    app = make_app("neutral", save_path=tmp_path / "unused.yaml")
    app.live, app.shadow = Live(), slow_shadow
    outcome = {}

    def apply():
        try:
            app.apply_live("forward_slow")
        except EditError as exc:
            outcome["refused"] = str(exc)
    checker = threading.Thread(target=apply)
    checker.start()
    try:
        assert started.wait(timeout=10.0)
        status, preview = app.handle("POST", "/api/preview", {}, {"velocity": [0.3, 0.0, 0.0]})
        assert status == 200 and preview["apex_m"]["left"] > 0.04
        app.handle("POST", "/api/edit", {}, {"sample": "forward_slow", "changes": {"swing.height_m": [[0.45, 0.06]]}})
        with pytest.raises(EditError, match="another edit is being checked"):
            app.apply_live("forward_slow")
    finally:
        release.set()
        checker.join(timeout=10.0)
    assert "the robot falls (test)" in outcome["refused"]
    with pytest.raises(EditError, match="velocity"):  # NaN arrives as a JSON number from the page
        app.handle("POST", "/api/preview", {}, {"velocity": [float("nan"), 0.0, 0.0]})


def test_an_import_into_a_document_edited_during_the_fit_is_refused(tmp_path, monkeypatch):
    """The fit (~20 s) runs on a snapshot outside the lock; if the document changed meanwhile,
    the fit's result is not applied over the newer edit."""
    from biped_common.robot_model import load_robot
    from biped_stack.editor import keyframes
    from gait_planner_node.planner import PlannerConfig
    app = make_app("neutral", save_path=tmp_path / "unused.yaml")
    cycle = keyframes.planner_cycle(app.document.style, PlannerConfig.for_robot(load_robot("humanoid")),
                                    "forward_slow", 0.004)
    text = keyframes.write_keyframes(tmp_path / "cycle.csv", cycle).read_text()

    def fit_while_the_user_edits(document, key, frames, config, progress=None):
        app.handle("POST", "/api/edit", {}, {"sample": "forward_slow", "changes": {"swing.height_m": [[0.45, 0.06]]}})
        return {"swing.height_m": [[0.45, 0.07]]}
    monkeypatch.setattr(keyframes, "fit_sample", fit_while_the_user_edits)
    with pytest.raises(EditError, match="changed while the fit ran"):
        app.import_keyframes("forward_slow", text, "cycle.csv")
    assert app.document.value("forward_slow", "swing.height_m") == [[0.45, 0.06]]
