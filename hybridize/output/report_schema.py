"""A JSON Schema (draft 2020-12) of the JSON report, and a small validator for it.

The schema is the machine-readable twin of docs/report-format.md: consumers may use it
with any JSON Schema implementation. The validator below implements only the keywords this schema
uses (`type`, `required`, `properties`, `additionalProperties`, `items`, `enum`, `anyOf`, `oneOf`,
`$ref` to `#/$defs/...`), so that hybridize needs no `jsonschema` dependency; it rejects a schema
that uses any other validation keyword instead of silently ignoring it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, get_args

from hybridize.analyzer.checks import report_fact_fields
from hybridize.analyzer.frameworks.framework import FRAMEWORKS as COMPILE_TARGETS
from hybridize.model import DECORATOR_ARG_NAMES, BenefitRule

_TRISTATE: dict[str, Any] = {"type": ["boolean", "null"]}
_BOOL: dict[str, Any] = {"type": "boolean"}
_STRING: dict[str, Any] = {"type": "string"}
_INT: dict[str, Any] = {"type": "integer"}
_STRING_LIST: dict[str, Any] = {"type": "array", "items": {"type": "string"}}

SEVERITIES: tuple[str, ...] = ("ok", "info", "warning", "error")
REFACTORINGS: tuple[str, ...] = ("convert_eager_to_hybrid", "optimize_hybrid")
TRANSFORMATIONS: tuple[str | None, ...] = (
    "convert_to_hybrid",
    "convert_to_eager",
    "reconfigure",
    None,
)
PRECONDITIONS: tuple[str | None, ...] = ("P1", "P2", "P3", "P4", "P5", "P6", None)
FRAMEWORKS: tuple[str, ...] = tuple(framework.name for framework in COMPILE_TARGETS)
"""The frameworks a verdict names (`Framework.name`), as the adapters give them."""
SPEC_CLASSES: tuple[str, ...] = ("TensorSpec", "SparseTensorSpec", "RaggedTensorSpec")


def _closed_object(properties: dict[str, Any]) -> dict[str, Any]:
    """An object with exactly these keys, all required (the report never omits a field)."""
    return {
        "type": "object",
        "required": list(properties),
        "properties": properties,
        "additionalProperties": False,
    }


def report_json_schema() -> dict[str, Any]:
    """The report's JSON Schema (draft 2020-12). Every fixed object is closed and fully
    required; a function object has a field for each fact the registry's checks report
    (`report_fact_fields`): the schema follows the registry as the report does."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "hybridize analysis report",
        "description": "Output of `hybridize analyze PATH --format json` (schema_version 1).",
        **_closed_object(
            {
                "schema_version": {"enum": [1]},
                "tool": {"$ref": "#/$defs/tool"},
                "root": _STRING,
                "errors": {"type": "array", "items": {"$ref": "#/$defs/file_error"}},
                "functions": {"type": "array", "items": {"$ref": "#/$defs/function"}},
                "refactored_files": {
                    "description": "Relative path -> full new text of every file the plan changes.",
                    "type": "object",
                    "additionalProperties": _STRING,
                },
                "summary": {"$ref": "#/$defs/summary"},
            }
        ),
        "$defs": {
            "tool": _closed_object({"name": {"enum": ["hybridize"]}, "version": _STRING}),
            "file_error": _closed_object({"file": _STRING, "message": _STRING}),
            "tensor_spec": _closed_object(
                {
                    "spec": {"enum": list(SPEC_CLASSES)},
                    "dtype": {"type": ["string", "null"]},
                    "shape": {
                        "description": "null: unknown rank; a null axis: unknown or varying size.",
                        "type": ["array", "null"],
                        "items": {"type": ["integer", "null"]},
                    },
                }
            ),
            "spec_tree": {
                "description": "A tensor spec, or a nested list of them for a list/tuple parameter.",
                "anyOf": [
                    {"$ref": "#/$defs/tensor_spec"},
                    {"type": "array", "items": {"$ref": "#/$defs/spec_tree"}},
                ],
            },
            "signature": {
                "type": ["array", "null"],
                "items": {"$ref": "#/$defs/spec_tree"},
            },
            "param": _closed_object(
                {
                    "name": _STRING,
                    "is_tensor": _TRISTATE,
                    "tensor_types": {"type": "array", "items": {"$ref": "#/$defs/spec_tree"}},
                }
            ),
            "finding": _closed_object(
                {
                    "code": _STRING,
                    "name": _STRING,
                    "severity": {"enum": list(SEVERITIES)},
                    "message": _STRING,
                    "line": _INT,
                    "column": _INT,
                    "end_line": _INT,
                    "end_column": _INT,
                }
            ),
            "decorator_args": _closed_object({name: _BOOL for name in DECORATOR_ARG_NAMES}),
            "function": _closed_object(
                {
                    "file": _STRING,
                    "qualname": _STRING,
                    "line": _INT,
                    "framework": {"enum": list(FRAMEWORKS)},
                    "is_hybrid": _BOOL,
                    "has_tensor_parameter": _TRISTATE,
                    "has_primitive_parameters": _TRISTATE,
                    "has_python_side_effects": _TRISTATE,
                    "is_recursive": _TRISTATE,
                    "refactoring": {"enum": list(REFACTORINGS)},
                    "passes": _BOOL,
                    "passing_precondition": {"enum": list(PRECONDITIONS)},
                    "transformation": {"enum": list(TRANSFORMATIONS)},
                    "failures": _STRING_LIST,
                    "has_errors": _BOOL,
                    "speculative": _BOOL,
                    "assumptions": _STRING_LIST,
                    "status_severity": {"enum": list(SEVERITIES)},
                    "has_tensor_computation": _TRISTATE,
                    **{fact: _TRISTATE for fact in report_fact_fields()},
                    "caller_covered": _TRISTATE,
                    "decorator_args": {"$ref": "#/$defs/decorator_args"},
                    "supplied_input_signature": {"$ref": "#/$defs/signature"},
                    "input_signature": {"$ref": "#/$defs/signature"},
                    "input_signature_absence_reason": {"type": ["string", "null"]},
                    "params": {"type": "array", "items": {"$ref": "#/$defs/param"}},
                    "findings": {"type": "array", "items": {"$ref": "#/$defs/finding"}},
                    "benefit": {"enum": ["high", "low", "none", None]},
                    "benefit_reasons": {"type": "array", "items": {"type": "string"}},
                    "proposed": {"type": "boolean"},
                    "benefit_rule": {"enum": [*get_args(BenefitRule), None]},
                }
            ),
            "summary": _closed_object(
                {
                    "functions": _INT,
                    "candidates": _INT,
                    "refactorable": _INT,
                    "seconds": {"type": "number"},
                    "proposed": _INT,
                    "low_benefit": _INT,
                    "blocked": _INT,
                }
            ),
        },
    }


# --- the validator -------------------------------------------------------------------------------

VALIDATION_KEYWORDS: frozenset[str] = frozenset(
    {
        "type",
        "required",
        "properties",
        "additionalProperties",
        "items",
        "enum",
        "anyOf",
        "oneOf",
        "$ref",
    }
)
"""The JSON Schema keywords that `validate` implements."""

ANNOTATION_KEYWORDS: frozenset[str] = frozenset(
    {"$schema", "$id", "$defs", "title", "description", "$comment"}
)
"""Keywords that carry no constraint; `validate` accepts and ignores them."""


def _type_name(value: Any) -> str:
    """The JSON type of a Python value, for messages ("object", "integer", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


_JSON_TYPES = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})


def _has_type(value: Any, name: str) -> bool:
    # bool is an int subclass in Python but never a JSON number; a float with an integral value
    # is an integer in JSON Schema (2020-12), as `1.0` is.
    match name:
        case "null":
            return value is None
        case "boolean":
            return isinstance(value, bool)
        case "integer":
            return (isinstance(value, int) and not isinstance(value, bool)) or (
                isinstance(value, float) and value.is_integer()
            )
        case "number":
            return isinstance(value, int | float) and not isinstance(value, bool)
        case "string":
            return isinstance(value, str)
        case "array":
            return isinstance(value, list)
        case "object":
            return isinstance(value, dict)
    raise ValueError(f"unknown JSON Schema type {name!r}")


def _json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: `true` is not `1`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return bool(a == b)


def _resolve(ref: str, root: Mapping[str, Any]) -> Mapping[str, Any]:
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref values are supported, got {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            raise ValueError(f"unresolvable $ref {ref!r}")
        node = node[part]
    if not isinstance(node, Mapping):
        raise ValueError(f"$ref {ref!r} does not point to a schema")
    return node


def _child(path: str, key: object) -> str:
    """`$.a.b`, `$.a[0]`, `$.files['pkg/x.py']`: where in the instance an error is."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if isinstance(key, str) and key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{key!r}]"


def _show(value: Any) -> str:
    """A value as JSON text (shortened), or its repr when it is not JSON at all."""
    try:
        json_value = _type_name(value) in _JSON_TYPES
        text = json.dumps(value, ensure_ascii=False) if json_value else repr(value)
    except (TypeError, ValueError):  # a JSON container holding a non-JSON value
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(value: Any) -> str:
    """`string "12"`, `boolean true`, `null`: the JSON type and the value, for messages."""
    kind = _type_name(value)
    return kind if value is None else f"{kind} {_show(value)}"


def _validate(
    value: Any, schema: Mapping[str, Any] | bool, root: Mapping[str, Any], path: str
) -> list[str]:
    if schema is True:
        return []
    if schema is False:
        return [f"{path}: no value is allowed here"]
    unknown = set(schema) - VALIDATION_KEYWORDS - ANNOTATION_KEYWORDS
    if unknown:
        raise ValueError(f"unsupported JSON Schema keyword(s) {sorted(unknown)} at {path}")

    if "$ref" in schema:
        referenced = _validate(value, _resolve(schema["$ref"], root), root, path)
        if referenced:
            return referenced

    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_has_type(value, t) for t in types):
            expected = " or ".join(types)
            return [f"{path}: expected {expected}, got {_describe(value)}"]

    if "enum" in schema and not any(_json_equal(value, option) for option in schema["enum"]):
        options = ", ".join(_show(option) for option in schema["enum"])
        return [f"{path}: {_show(value)} is not one of {options}"]

    errors: list[str] = []
    for keyword in ("anyOf", "oneOf"):
        if keyword in schema:
            errors.extend(_validate_alternatives(value, schema[keyword], keyword, root, path))

    if isinstance(value, dict):
        properties: Mapping[str, Any] = schema.get("properties", {})
        errors.extend(
            f"{path}: missing required key {key!r}"
            for key in schema.get("required", [])
            if key not in value
        )
        for key, item in value.items():
            if key in properties:
                errors.extend(_validate(item, properties[key], root, _child(path, key)))
            elif "additionalProperties" in schema:
                extra = schema["additionalProperties"]
                if extra is False:
                    errors.append(f"{path}: unexpected key {key!r}")
                else:
                    errors.extend(_validate(item, extra, root, _child(path, key)))

    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            errors.extend(_validate(item, schema["items"], root, _child(path, index)))

    return errors


def _validate_alternatives(
    value: Any,
    alternatives: list[Mapping[str, Any]],
    keyword: str,
    root: Mapping[str, Any],
    path: str,
) -> list[str]:
    outcomes = [_validate(value, alt, root, path) for alt in alternatives]
    matching = sum(1 for errors in outcomes if not errors)
    if keyword == "oneOf" and matching > 1:
        return [f"{path}: matches {matching} alternatives of oneOf, expected exactly one"]
    if matching:
        return []
    # When the value has the right JSON type for exactly one alternative, its errors are the
    # useful ones ("missing key 'dtype'"), not "matches no alternative".
    right_type = [
        errors for errors in outcomes if not any(e.startswith(f"{path}: expected ") for e in errors)
    ]
    if len(right_type) == 1:
        return right_type[0]
    return [f"{path}: {_describe(value)} matches none of the {keyword} alternatives"]


def validate(instance: Any, schema: Mapping[str, Any]) -> list[str]:
    """Check `instance` against `schema` (the keyword subset above); return the errors found.

    Each error reads `<path>: <problem>`, the path written like `$.functions[0].line`. An empty
    list means valid. Raises `ValueError` for a schema using an unsupported keyword or `$ref`.
    """
    return _validate(instance, schema, schema, "$")


def validate_report(obj: Any) -> list[str]:
    """Check a parsed JSON report against `report_json_schema()`; empty when it is valid."""
    return validate(obj, report_json_schema())
