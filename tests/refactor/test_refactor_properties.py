"""Property tests: on generated valid modules, with generated verdicts, the plan's output parses,
a second run changes nothing, and only the planned lines differ (text and syntax tree).

Modules vary what the engine must preserve or reason about: the TensorFlow import spelling (or
none, or `tf` bound to `compat.v1`), indentation (spaces, tabs), line endings (LF, CRLF), a BOM,
trailing whitespace, comments, blank lines, quotes, classes with static methods, nested
functions, existing `@tf.function` decorators with or without arguments, over one or several
lines, and `# hybridize: ignore` comments.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from refactor_helpers import verdict

from hybridize.analyzer.summaries.sources import split_lines
from hybridize.model import FunctionVerdict, TensorSpec
from hybridize.refactor.file_plan import plan_file

IMPORTS = {
    "tf": ("import tensorflow as tf", "tf.function", "tf"),
    "tensorflow": ("import tensorflow", "tensorflow.function", "tensorflow"),
    "function": ("from tensorflow import function", "function", None),
    "alias": ("from tensorflow import function as compiled", "compiled", None),
    "compat_v1": ("import tensorflow.compat.v1 as tf", None, "tf"),
    "numpy": ("import numpy as np", None, None),
    "none": ("", None, None),
}


@dataclass
class Func:
    qualname: str
    decorated: bool
    lines: list[str]


@dataclass(frozen=True)
class Shape:
    """How one generated function is written."""

    kind: str  # top | method | static | nested
    decorator: str | None  # the tf.function spelling, when it has one
    form: str  # bare | args | multiline
    comment: str | None
    body: str
    pad: str  # trailing whitespace after the colon
    unit: str  # one level of indentation


def render(shape: Shape, indent: str, qualname: str, extra: list[str]) -> Func:
    out: list[str] = []
    if shape.comment is not None:
        out.append(f"{indent}{shape.comment}")
    out.extend(f"{indent}{e}" for e in extra)
    if shape.decorator is not None:
        if shape.form == "bare":
            out.append(f"{indent}@{shape.decorator}")
        elif shape.form == "args":
            out.append(f"{indent}@{shape.decorator}(jit_compile=True)  # xla")
        else:
            out.extend(
                [
                    f"{indent}@{shape.decorator}(",
                    f"{indent}{shape.unit}reduce_retracing=True,",
                    f"{indent})",
                ]
            )
    name = qualname.rsplit(".", 1)[-1]
    params = "self, x" if shape.kind == "method" else "x"
    out.append(f"{indent}def {name}({params}):{shape.pad}")
    out.append(f"{indent}{shape.unit}return {shape.body}")
    return Func(qualname, shape.decorator is not None, out)


@st.composite
def modules(draw: st.DrawFn) -> tuple[bytes, list[FunctionVerdict]]:
    style = draw(st.sampled_from(sorted(IMPORTS)))
    import_line, decorator, module_name = IMPORTS[style]
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    unit = draw(st.sampled_from(["    ", "\t", "  "]))
    bom = draw(st.booleans())
    quote = draw(st.sampled_from(["'", '"']))
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append(f"{quote * 3}A generated module.{quote * 3}")
    if import_line:
        lines.append(import_line)
    if draw(st.booleans()):
        lines.append("import os  ")  # trailing whitespace must survive
    lines.extend(["", ""])
    funcs: list[Func] = []
    for index in range(draw(st.integers(min_value=1, max_value=5))):
        name = f"f{index}"
        use_module = module_name is not None and draw(st.booleans())
        shape = Shape(
            kind=draw(st.sampled_from(["top", "method", "static", "nested"])),
            decorator=decorator if decorator is not None and draw(st.booleans()) else None,
            form=draw(st.sampled_from(["bare", "args", "multiline"])),
            comment=draw(st.sampled_from([None, "# a note", "# hybridize: ignore"])),
            body=f"{module_name}.abs(x)" if use_module else f"x  # {quote}quoted{quote}",
            pad=draw(st.sampled_from(["", "\t", "  "])),
            unit=unit,
        )
        if shape.kind == "top":
            func = render(shape, "", name, [])
            lines.extend([*func.lines, "", ""])
        elif shape.kind in ("method", "static"):
            extra = ["@staticmethod"] if shape.kind == "static" else []
            func = render(shape, unit, f"C{index}.{name}", extra)
            lines.extend([f"class C{index}:", f"{unit}attribute = {quote}value{quote}", ""])
            lines.extend([*func.lines, "", ""])
        else:
            func = render(shape, unit, f"outer{index}.{name}", [])
            lines.extend([f"def outer{index}():", f"{unit}scale = 2", *func.lines])
            lines.extend([f"{unit}return {name}", "", ""])
        funcs.append(func)
    text = newline.join(lines) + newline
    raw = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    verdicts = []
    for func in funcs:
        choices = ["none", "eager", "reconfigure"] if func.decorated else ["none", "hybrid"]
        choice = draw(st.sampled_from(choices))
        signature = None
        if draw(st.booleans()):
            dtype = draw(st.sampled_from(["float32", "int32"]))
            signature = (TensorSpec("TensorSpec", dtype, (None, 3)),)
        if choice == "hybrid":
            speculative = draw(st.booleans())
            verdicts.append(
                verdict(
                    func.qualname,
                    "convert_to_hybrid",
                    speculative=speculative,
                    assumptions=("assumes `x` is a tensor (by name)",) if speculative else (),
                    input_signature=signature,
                )
            )
        elif choice == "eager":
            verdicts.append(verdict(func.qualname, "convert_to_eager"))
        elif choice == "reconfigure":
            verdicts.append(
                verdict(
                    func.qualname,
                    "reconfigure",
                    input_signature=signature or (TensorSpec("TensorSpec", "float32", (2,)),),
                )
            )
    return raw, verdicts


def _plan(raw: bytes, verdicts: list[FunctionVerdict]) -> tuple[bytes, list[tuple[int, int]]]:
    plan, _ = plan_file("m.py", Path("m.py"), raw, verdicts)
    if plan is None:
        return raw, []
    return plan.new_bytes(), [(e.start, e.end) for e in plan.edits]


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                found[prefix + child.name] = child
                walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    return found


def _is_tf_function(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    text = ast.unparse(target)
    return text in ("tf.function", "tensorflow.function", "function", "compiled", "tf2.function")


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8-sig")


PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(modules())
def test_output_parses_and_second_run_changes_nothing(
    case: tuple[bytes, list[FunctionVerdict]],
) -> None:
    raw, verdicts = case
    once, _ = _plan(raw, verdicts)
    ast.parse(_decode(once))
    twice, edits = _plan(once, verdicts)
    assert twice == once
    assert edits == []


@PROPERTY_SETTINGS
@given(modules())
def test_bytes_outside_the_planned_lines_are_unchanged(
    case: tuple[bytes, list[FunctionVerdict]],
) -> None:
    raw, verdicts = case
    new, edits = _plan(raw, verdicts)
    assert new.startswith(b"\xef\xbb\xbf") == raw.startswith(b"\xef\xbb\xbf")
    old_lines = split_lines(_decode(raw))
    new_lines = split_lines(_decode(new))
    planned = {line for start, end in edits for line in range(start, end)}
    insertion_points = {start for start, end in edits if start == end}
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            assert set(range(i1 + 1, i2 + 1)) <= planned | insertion_points, (tag, i1, i2)
        if tag == "insert":
            assert any(abs(point - (i1 + 1)) <= 1 for point in insertion_points | planned), (
                tag,
                i1,
            )
    # Every inserted or replaced line ends like the file's own lines.
    endings = {"\r\n" if line.endswith("\r\n") else "\n" for line in old_lines}
    assert {"\r\n" if line.endswith("\r\n") else "\n" for line in new_lines} <= endings


@PROPERTY_SETTINGS
@given(modules())
def test_only_the_planned_decorators_change(case: tuple[bytes, list[FunctionVerdict]]) -> None:
    raw, verdicts = case
    new, _ = _plan(raw, verdicts)
    before_text, after_text = _decode(raw), _decode(new)
    before, after = ast.parse(before_text), ast.parse(after_text)
    old_functions, new_functions = _functions(before), _functions(after)
    assert set(old_functions) == set(new_functions)
    planned = {v.qualname: v for v in verdicts}
    for qualname, old in old_functions.items():
        fresh = new_functions[qualname]
        assert ast.dump(fresh.args) == ast.dump(old.args)
        assert [ast.dump(s) for s in fresh.body] == [ast.dump(s) for s in old.body] or any(
            q.startswith(qualname + ".") for q in planned
        )
        old_decorators = [ast.dump(d) for d in old.decorator_list]
        new_decorators = [ast.dump(d) for d in fresh.decorator_list]
        plan = planned.get(qualname)
        ignored = _ignored(before_text, old)
        if plan is None or ignored:
            assert new_decorators == old_decorators
        elif plan.transformation == "convert_to_hybrid":
            if any(_is_tf_function(d) for d in old.decorator_list):
                assert new_decorators == old_decorators
            else:
                assert new_decorators[:-1] == old_decorators
                assert _is_tf_function(fresh.decorator_list[-1])
        elif plan.transformation == "convert_to_eager":
            kept = [ast.dump(d) for d in old.decorator_list if not _is_tf_function(d)]
            assert new_decorators in (kept, old_decorators)
        else:
            assert len(new_decorators) == len(old_decorators)
            for old_d, new_d in zip(old.decorator_list, fresh.decorator_list, strict=True):
                if not _is_tf_function(old_d):
                    assert ast.dump(old_d) == ast.dump(new_d)
                elif ast.dump(old_d) != ast.dump(new_d):
                    assert isinstance(new_d, ast.Call)
                    assert new_d.keywords[-1].arg == "input_signature"

    # Module-level statements other than imports and definitions are untouched.
    def others(tree: ast.Module) -> list[str]:
        return [
            ast.dump(s)
            for s in tree.body
            if not isinstance(s, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef)
        ]

    assert others(after) == others(before)


def _ignored(text: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The generated `# hybridize: ignore` sits in the comment lines right above the function."""
    lines = text.splitlines()
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    index = first - 2
    while index >= 0 and lines[index].strip().startswith(("#", "@")):
        if "hybridize: ignore" in lines[index]:
            return True
        index -= 1
    return "hybridize: ignore" in lines[node.lineno - 1]
