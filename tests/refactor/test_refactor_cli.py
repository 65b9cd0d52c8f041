"""`hybridize refactor` through the real CLI: diff, apply, check, selection, config, errors."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from hybridize.cli import main
from hybridize.project import Project, ProjectOptions
from hybridize.refactor import apply_plan, plan_refactorings

MakeProject = Callable[[dict[str, str | bytes]], Path]

PROGRAM = """\
import tensorflow as tf


def loss(x, y):
    return tf.reduce_mean(tf.square(x - y))


@tf.function
def pack(a, b):
    return {"a": a, "b": b}


def report(x):
    print(x)
    return tf.reduce_sum(x)


loss(tf.ones((2, 2)), tf.zeros((2, 2)))
pack(tf.ones(2), tf.ones(2))
report(tf.ones(3))
"""

REFACTORED = PROGRAM.replace("\ndef loss", "\n@tf.function\ndef loss").replace(
    "@tf.function\ndef pack", "def pack"
)


def run(*args: str) -> tuple[int, str, str]:
    """The CLI with every safe change (these programs call each function once: the benefit
    gate, tested on its own below, would leave the additions out)."""
    result = CliRunner().invoke(main, ["refactor", *args, "--no-cache", "--include-low-benefit"])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def project(make_project: MakeProject) -> Path:
    return make_project({"train.py": PROGRAM})


def test_default_prints_a_diff_and_changes_nothing(project: Path) -> None:
    code, out, err = run(str(project))
    assert code == 0, err
    assert out.startswith("--- a/train.py\n+++ b/train.py\n")
    assert "+@tf.function\n def loss" in out
    assert "-@tf.function\n def pack" in out
    assert "2 functions in 1 file would change" in err
    assert (project / "train.py").read_text() == PROGRAM


def test_diff_applies_with_patch(project: Path) -> None:
    patch = shutil.which("patch")
    if patch is None:
        pytest.skip("no `patch` program")
    _, out, _ = run(str(project), "--diff")
    subprocess.run([patch, "-p1", "--quiet"], input=out, text=True, cwd=project, check=True)
    assert (project / "train.py").read_text() == REFACTORED


def test_apply_writes_and_a_second_run_has_nothing_to_do(project: Path) -> None:
    code, out, err = run(str(project), "--apply")
    assert code == 0, err
    assert out == ""
    assert "refactored 2 functions in 1 file" in err
    assert (project / "train.py").read_text() == REFACTORED
    code, out, err = run(str(project), "--check")
    assert code == 0
    assert out == ""
    assert "nothing to refactor" in err


def test_check_exits_1_and_lists_the_changes(project: Path) -> None:
    code, out, _ = run(str(project), "--check")
    assert code == 1
    assert out.splitlines() == [
        "train.py:4: HY010 loss: add @tf.function",
        "train.py:9: HY011 pack: remove @tf.function",
    ]
    assert (project / "train.py").read_text() == PROGRAM


def test_check_with_diff_prints_the_diff(project: Path) -> None:
    code, out, _ = run(str(project), "--check", "--diff")
    assert code == 1
    assert out.startswith("--- a/train.py")


def test_apply_and_check_writes_and_exits_1(project: Path) -> None:
    code, _, _ = run(str(project), "--apply", "--check")
    assert code == 1
    assert (project / "train.py").read_text() == REFACTORED


def test_select_by_code(project: Path) -> None:
    code, out, _ = run(str(project), "--check", "--select", "HY011")
    assert code == 1
    assert out.splitlines() == ["train.py:9: HY011 pack: remove @tf.function"]
    code, out, _ = run(str(project), "--check", "--select", "hy01", "--ignore", "HY010")
    assert out.splitlines() == ["train.py:9: HY011 pack: remove @tf.function"]


def test_select_and_ignore_by_function_glob(project: Path) -> None:
    _, out, _ = run(str(project), "--check", "--select", "*::lo*")
    assert out.splitlines() == ["train.py:4: HY010 loss: add @tf.function"]
    _, out, _ = run(str(project), "--check", "--ignore", "train.py::loss,train.py::pack")
    assert out == ""
    _, out, _ = run(str(project), "--check", "--ignore", "train.py")
    assert out == ""


def test_unknown_code_is_a_usage_error(project: Path) -> None:
    code, _, err = run(str(project), "--select", "HY999")
    assert code == 2
    assert "unknown code 'HY999'" in err


def test_missing_path_is_a_usage_error() -> None:
    code, _, err = run("/no/such/path/anywhere")
    assert code == 2
    assert "does not exist" in err


def test_ignore_comment_is_reported_with_verbose(make_project: MakeProject) -> None:
    root = make_project(
        {"train.py": PROGRAM.replace("def loss(x, y):", "def loss(x, y):  # hybridize: ignore")}
    )
    _, out, err = run(str(root), "--check", "-v")
    assert out.splitlines() == ["train.py:9: HY011 pack: remove @tf.function"]
    assert "ignored train.py::loss" in err
    _, _, quiet = run(str(root), "--check")
    assert "ignored" not in quiet


def test_config_defaults_and_command_line_overrides(make_project: MakeProject) -> None:
    root = make_project(
        {
            "pyproject.toml": '[tool.hybridize]\nignore = ["*::pack"]\nselect = ["HY011"]\n',
            "train.py": PROGRAM,
        }
    )
    code, out, _ = run(str(root), "--check")
    assert code == 0 and out == ""  # select HY011 and ignore pack: nothing left
    code, out, _ = run(str(root), "--check", "--select", "HY010")
    assert out.splitlines() == ["train.py:4: HY010 loss: add @tf.function"]
    code, out, _ = run(str(root), "--check", "--no-config")
    assert len(out.splitlines()) == 2


def test_config_in_a_parent_folder_applies(make_project: MakeProject) -> None:
    root = make_project(
        {"pyproject.toml": '[tool.hybridize]\nignore = ["HY010"]\n', "src/train.py": PROGRAM}
    )
    _, out, _ = run(str(root / "src"), "--check")
    assert out.splitlines() == ["train.py:9: HY011 pack: remove @tf.function"]


def test_bad_config_is_a_usage_error(make_project: MakeProject) -> None:
    root = make_project({"pyproject.toml": "[tool.hybridize]\nselect = 3\n", "train.py": PROGRAM})
    code, _, err = run(str(root))
    assert code == 2
    assert "select must be a list of strings" in err


def test_unknown_config_key_is_a_warning(make_project: MakeProject) -> None:
    root = make_project({"pyproject.toml": "[tool.hybridize]\nselekt = []\n", "train.py": PROGRAM})
    code, _, err = run(str(root), "--check")
    assert code == 1
    assert "unknown key 'selekt'" in err


def test_bad_files_are_skipped_with_a_message(make_project: MakeProject) -> None:
    root = make_project({"train.py": PROGRAM, "broken.py": "def (:\n", "latin.py": b"x = '\xe9'\n"})
    code, _, err = run(str(root), "--apply")
    assert code == 0
    assert "skipped broken.py: SyntaxError" in err
    assert "skipped latin.py: cannot decode" in err
    assert (root / "train.py").read_text() == REFACTORED


def test_a_single_file_path(project: Path) -> None:
    code, out, _ = run(str(project / "train.py"), "--check")
    assert code == 1
    assert len(out.splitlines()) == 2


def test_file_changed_after_the_analysis_is_not_written(project: Path) -> None:
    result = Project.open(project, ProjectOptions(use_cache=False)).results()
    plan = plan_refactorings(result)
    (project / "train.py").write_text(PROGRAM + "# edited\n")
    report = apply_plan(plan)
    assert report.written == []
    assert "changed on disk since it was analysed" in str(report.failed[0])
    assert (project / "train.py").read_text() == PROGRAM + "# edited\n"


def test_file_changed_during_the_analysis_is_not_written(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hybridize.project import Project

    real = Project.results

    def analyze_while_someone_edits(self: Project) -> object:
        outcome = real(self)
        (project / "train.py").write_text(PROGRAM + "# edited\n")
        return outcome

    monkeypatch.setattr(Project, "results", analyze_while_someone_edits)
    code, _, err = run(str(project), "--apply")
    assert code == 1
    assert "not written: it changed on disk since it was analysed" in err
    assert (project / "train.py").read_text() == PROGRAM + "# edited\n"


def test_analyze_json_carries_the_same_refactored_files(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.hybridize]\ninclude-low-benefit = true\n")
    result = CliRunner().invoke(main, ["analyze", str(project), "--format", "json", "--no-cache"])
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["refactored_files"] == {"train.py": REFACTORED}


def test_analyze_json_honours_the_configured_selection(make_project: MakeProject) -> None:
    root = make_project(
        {"pyproject.toml": '[tool.hybridize]\nselect = ["HY011"]\n', "train.py": PROGRAM}
    )
    result = CliRunner().invoke(main, ["analyze", str(root), "--format", "json", "--no-cache"])
    files = json.loads(result.stdout)["refactored_files"]
    assert files == {"train.py": PROGRAM.replace("@tf.function\ndef pack", "def pack")}


def test_crlf_and_bom_survive_the_cli(make_project: MakeProject) -> None:
    raw = b"\xef\xbb\xbf" + PROGRAM.replace("\n", "\r\n").encode()
    root = make_project({"train.py": raw})
    code, _, err = run(str(root), "--apply")
    assert code == 0, err
    expected = b"\xef\xbb\xbf" + REFACTORED.replace("\n", "\r\n").encode()
    assert (root / "train.py").read_bytes() == expected


def test_pre_commit_hooks_offer_the_check() -> None:
    hooks = (Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text()
    assert "entry: hybridize refactor --check" in hooks
    assert "pass_filenames: false" in hooks
    assert "language: python" in hooks


KERAS_LAYER = """\
import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")

    def call(self, inputs):
        return inputs * self.w
"""


def test_speculative_verdict_gets_its_assumption_and_a_second_run_keeps_it(
    make_project: MakeProject,
) -> None:
    # A Layer's `call`, which nothing in the project calls: Keras calls it with tensors.
    # (A Model's `train_step` would not do: Keras compiles it in `fit` itself.)
    root = make_project({"model.py": KERAS_LAYER})
    code, _, err = run(str(root), "--apply")
    assert code == 0, err
    assert (root / "model.py").read_text() == KERAS_LAYER.replace(
        "    def call",
        "    # hybridize: assumes inputs is a tensor (call of a Keras Layer, called by Keras);"
        " remove the decorator if not\n    @tf.function\n    def call",
    )
    code, out, _ = run(str(root), "--check")
    assert (code, out) == (0, "")


LIBRARY_LAYER = """\
import tensorflow as tf


class Interaction(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[0][-1],), initializer="ones")

    def call(self, inputs):
        stacked = tf.concat(inputs, axis=1) * tf.tile(self.w, [len(inputs)])
        scores = tf.matmul(stacked, stacked, transpose_b=True)
        mask = tf.linalg.band_part(tf.ones_like(scores), 0, -1)
        kept = tf.boolean_mask(scores, tf.cast(mask, tf.bool))
        return tf.reshape(kept, [tf.shape(scores)[0], -1])
"""


def test_a_library_s_public_layer_is_rewritten_by_default_saying_what_it_assumes(
    make_project: MakeProject,
) -> None:
    """A library that runs no model of its own leaves how its public layers run to its
    users: the default refactoring decorates a heavy one, and the comment says it assumes
    eager callers (inside `fit` the decorator costs nothing)."""
    root = make_project({"layers.py": LIBRARY_LAYER})
    result = CliRunner().invoke(main, ["refactor", str(root), "--no-cache", "--apply"])
    assert result.exit_code == 0, result.stderr
    text = (root / "layers.py").read_text()
    assert "    @tf.function\n    def call" in text, text
    (comment,) = [line for line in text.splitlines() if "# hybridize:" in line]
    assert "users also call this layer eagerly" in comment, comment
    assert "costs nothing" in comment, comment


def test_by_default_only_changes_predicted_to_pay_are_made(make_project: MakeProject) -> None:
    """`loss` runs once (module code): tracing it would cost more than it saves, so the
    default leaves it eager; removing `pack`'s decorator is not gated. The flag, or the
    configuration key, makes every safe change."""
    root = make_project({"train.py": PROGRAM})
    default = CliRunner().invoke(main, ["refactor", str(root), "--no-cache"])
    assert default.exit_code == 0, default.output
    assert "def loss" not in default.stdout
    assert "-@tf.function\n def pack" in default.stdout
    assert "1 function in 1 file would change" in default.stderr
    flagged = CliRunner().invoke(
        main, ["refactor", str(root), "--no-cache", "--include-low-benefit"]
    )
    assert "+@tf.function\n def loss" in flagged.stdout
    (root / "pyproject.toml").write_text("[tool.hybridize]\ninclude-low-benefit = true\n")
    configured = CliRunner().invoke(main, ["refactor", str(root), "--no-cache"])
    assert configured.stdout == flagged.stdout
    looped = PROGRAM.replace(
        "loss(tf.ones((2, 2)), tf.zeros((2, 2)))",
        "for step in range(100):\n    loss(tf.ones((2, 2)), tf.zeros((2, 2)))",
    )
    (root / "train.py").write_text(looped)
    (root / "pyproject.toml").unlink()
    small = CliRunner().invoke(main, ["refactor", str(root), "--no-cache"])
    assert "def loss" not in small.stdout  # in a loop, but three ops: the overhead is the work
