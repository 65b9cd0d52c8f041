"""Hand-built analysis results shared by the renderer tests."""

from __future__ import annotations

import pytest
from verdict_parts import made_verdict

from hybridize.model import (
    AnalysisResult,
    FileError,
    Finding,
    FunctionVerdict,
    ParamReport,
    Span,
    TensorSpec,
)

ASSUMPTION = "`x` is assumed to be a tensor: `call` of a Keras Model receives tensors"


def model_call() -> FunctionVerdict:
    """Refactorable, speculative, with an inferred signature."""
    return made_verdict(
        framework="tensorflow",
        file="pkg/model.py",
        qualname="Model.call",
        line=12,
        span=Span(12, 4, 15, 20),
        has_tensor_parameter=True,
        passes=True,
        passing_precondition="P1",
        transformation="convert_to_hybrid",
        speculative=True,
        assumptions=(ASSUMPTION,),
        status_severity="info",
        has_tensor_computation=True,
        input_signature=(TensorSpec("TensorSpec", "float32", (None, 32)),),
        params=(ParamReport("x", True, (TensorSpec("TensorSpec", "float32", (2, 32)),)),),
    )


def train_step() -> FunctionVerdict:
    """Not refactorable: side effects and recursion, with findings; a nested-list parameter."""
    return made_verdict(
        framework="tensorflow",
        file="pkg/train.py",
        qualname="train_step",
        line=30,
        span=Span(30, 0, 40, 0),
        has_tensor_parameter=True,
        has_python_side_effects=True,
        is_recursive=True,
        failures=("has_python_side_effects", "is_recursive"),
        status_severity="error",
        has_tensor_computation=True,
        has_eager_only_calls=None,
        params=(
            ParamReport(
                "xs",
                True,
                (
                    (
                        TensorSpec("TensorSpec", "float32", (2,)),
                        (TensorSpec("SparseTensorSpec", "int32", None),),
                    ),
                ),
            ),
            ParamReport("n", None),
        ),
        findings=(
            Finding(
                "HY501",
                "is_recursive",
                "warning",
                "train_step calls itself",
                Span(38, 11, 38, 26),
                related=(Span(30, 4, 30, 14),),
            ),
            Finding(
                "HY101",
                "has_python_side_effects",
                "error",
                "print() runs only while tracing",
                Span(32, 4, 32, 20),
            ),
        ),
    )


def helper() -> FunctionVerdict:
    """Not a candidate: no tensor parameter, no findings (hidden from the short text report)."""
    return made_verdict(
        framework="tensorflow",
        file="pkg/util.py",
        qualname="helper",
        line=3,
        span=Span(3, 0, 5, 0),
        has_tensor_parameter=False,
        failures=("has_no_tensor_parameters",),
        params=(ParamReport("n", False),),
    )


def predict() -> FunctionVerdict:
    """Already hybrid; reconfigure (P4); decorator arguments given out of order; ok finding."""
    return made_verdict(
        framework="tensorflow",
        file="pkg/model.py",
        qualname="Model.predict",
        line=40,
        span=Span(39, 4, 45, 0),
        is_hybrid=True,
        has_tensor_parameter=True,
        refactoring="optimize_hybrid",
        passes=True,
        passing_precondition="P4",
        transformation="reconfigure",
        status_severity="warning",
        has_tensor_computation=True,
        decorator_args=(("reduce_retracing", True), ("jit_compile", True)),
        supplied_input_signature=(TensorSpec("RaggedTensorSpec", "float32", (None, None)),),
        input_signature=(TensorSpec("RaggedTensorSpec", "float32", (None, None)),),
        input_signature_absence_reason=None,
        params=(ParamReport("x", True, (TensorSpec("RaggedTensorSpec", "float32", (3, None)),)),),
        findings=(
            Finding("HY201", "retracing", "info", "shapes vary", Span(41, 8, 41, 9)),
            Finding("HY202", "fine", "ok", "signature already right", Span(40, 8, 40, 15)),
        ),
    )


def unicode_function() -> FunctionVerdict:
    return made_verdict(
        framework="tensorflow",
        file="données/modèle.py",
        qualname="Modèle.appel",
        line=7,
        span=Span(7, 4, 9, 0),
        has_tensor_parameter=True,
        has_python_side_effects=True,
        has_tensor_computation=True,
        failures=("has_python_side_effects",),
        findings=(
            Finding(
                "HY101",
                "has_python_side_effects",
                "error",
                "écrit dans « journal » → une fois",
                Span(8, 8, 8, 30),
            ),
        ),
    )


@pytest.fixture
def result() -> AnalysisResult:
    return AnalysisResult(
        root="/home/user/my project/ünï",
        functions=(model_call(), train_step(), helper(), predict()),
        errors=(
            FileError("bad.py", "SyntaxError: invalid syntax (line 3)"),
            FileError("dir with space/é#1.py", "UnicodeDecodeError: invalid start byte"),
        ),
        refactored_files={"pkg/train.py": "# new train\n", "pkg/model.py": "# new model\n"},
        seconds=0.41276,
    )


@pytest.fixture
def unicode_result() -> AnalysisResult:
    return AnalysisResult(root="/tmp/données", functions=(unicode_function(),), seconds=1.0)


@pytest.fixture
def empty_result() -> AnalysisResult:
    return AnalysisResult(root="/empty", functions=())
