"""Describe an inference engine's own command-line parser as a flag table.

Run inside a virtualenv that has the engine installed (generate.sh makes one):

    python generate.py vllm vllm-<version>.json
    python generate.py sglang sglang-<version>.json

The engines are 9-11 GB installs, too heavy for every conformance run. The
table records what the conformance checker needs to stand in for the engine's
half of a worker's command line: every flag with its spellings, destination,
action, arity, choices, default and the kind of value it takes, plus the JSON
Schema of every config object a flag parses (vLLM's --kv-transfer-config,
--kv-events-config, ...), and whether the engine ignores or rejects unknown
keys in them. Value kinds are read off the engine's own type functions and
probed, not assumed.
"""

import argparse
import contextlib
import dataclasses
import io
import json
import platform
import sys
from importlib.metadata import version as package_version


def vllm_parser():
    # vLLM picks a device platform while it builds its parser; there is no GPU here.
    import vllm.platforms
    from vllm.platforms.cpu import CpuPlatform

    vllm.platforms._current_platform = CpuPlatform()
    from vllm.engine.arg_utils import AsyncEngineArgs

    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    parser = FlexibleArgumentParser()
    AsyncEngineArgs.add_cli_args(parser)
    return parser, "vllm.engine.arg_utils.AsyncEngineArgs.add_cli_args"


def sglang_parser():
    from sglang.srt.server_args import ServerArgs

    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    return parser, "sglang.srt.server_args.ServerArgs.add_cli_args"


PARSERS = {"vllm": vllm_parser, "sglang": sglang_parser}


def closure_values(fn):
    out = list(fn.__defaults__ or ())
    for cell in fn.__closure__ or ():
        with contextlib.suppress(ValueError):
            out.append(cell.cell_contents)
    return out


def accepts(fn, value):
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            fn(value)
        return True
    except Exception:
        return False


def reads_none(fn):
    """Whether the type function turns "None" into no value (vLLM's optional types)."""
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            return fn("None") is None
    except Exception:
        return False


def config_class(fn):
    """The config class a parse function validates JSON into, if any."""
    for v in closure_values(fn):
        if isinstance(v, type) and (dataclasses.is_dataclass(v) or hasattr(v, "model_json_schema")):
            return v
        if callable(v) and not isinstance(v, type) and v is not fn:
            inner = config_class(v)
            if inner is not None:
                return inner
    return None


def value_kind(fn, schemas, extras):
    """What a flag's type function accepts, as a kind the checker implements."""
    if fn is None:
        return "str"
    if fn in (int, float, str):
        return fn.__name__
    name = getattr(fn, "__qualname__", repr(fn))
    optional = reads_none(fn)
    cls = config_class(fn)
    if cls is not None:
        schemas[cls.__name__] = schema_of(cls)
        extras[cls.__name__] = unknown_key_behaviour(fn)
        kind = {"config": cls.__name__}
    elif "human_readable_int_or_auto" in name:
        kind = "human-int-or-auto"
    elif "human_readable_int" in name:
        kind = "human-int"
    elif "union_dict_and_str" in name:
        kind = "json-object-or-str"
    else:
        inner = [v for v in closure_values(fn) if v in (int, float, str, json.loads)]
        if inner:
            kind = "json" if inner[0] is json.loads else inner[0].__name__
        elif accepts(fn, "1") and not accepts(fn, "1.5"):
            kind = "int"
        elif accepts(fn, "1.5") and not accepts(fn, "abc"):
            kind = "float"
        elif accepts(fn, "abc"):
            kind = "str"
        else:
            kind = f"opaque:{name}"
    return {"optional": kind} if optional else kind


def schema_of(cls):
    from pydantic import TypeAdapter
    from pydantic.json_schema import GenerateJsonSchema

    class Lenient(GenerateJsonSchema):
        # a field validated by a plain function has no JSON Schema: any value is left to the engine
        def handle_invalid_for_json_schema(self, schema, error_info):
            return {}

    return TypeAdapter(cls).json_schema(schema_generator=Lenient)


def unknown_key_behaviour(fn):
    """Feed a config with an unknown key to the engine's parse function."""
    for probe in ('{"__conformance_probe__": 1}',):
        try:
            fn(probe)
            return "ignored"
        except Exception as e:
            if "__conformance_probe__" in str(e) or "xtra" in str(e):
                return "rejected"
            return "unknown"
    return "unknown"


def jsonable(value):
    """A JSON form of a default or choice, or None with the reason when it has none."""
    try:
        json.dumps(value)
        return value, None
    except TypeError:
        if hasattr(value, "value"):
            return jsonable(value.value)
        return None, repr(value)


ACTIONS = {
    "_StoreAction": "store",
    "_StoreTrueAction": "store_true",
    "_StoreFalseAction": "store_false",
    "_StoreConstAction": "store_const",
    "_AppendAction": "append",
    "_CountAction": "count",
    "BooleanOptionalAction": "boolean_optional",
}


def describe(parser):
    schemas, extras, actions = {}, {}, []
    for a in parser._actions:
        kind = type(a).__name__
        if kind in ("_HelpAction", "_VersionAction"):
            continue
        default, default_repr = jsonable(a.default)
        entry = {
            "flags": list(a.option_strings),
            "dest": a.dest,
            "action": ACTIONS.get(kind, kind),
            "nargs": a.nargs,
            "const": jsonable(a.const)[0],
            "default": default,
            "choices": [jsonable(c)[0] for c in a.choices] if a.choices is not None else None,
            "value": value_kind(a.type, schemas, extras) if kind in ("_StoreAction", "_AppendAction") else None,
            "required": bool(a.required),
        }
        if default_repr is not None:
            # an object default (a config instance): the checker leaves it unset
            entry["defaultRepr"] = default_repr
        actions.append(entry)
    return actions, schemas, extras


def packages(engine, depth=4):
    """The engine's subpackages, by dotted name: Dynamo probes some of them (`sglang.srt.utils...`)."""
    import importlib.util
    import os

    root = os.path.dirname(importlib.util.find_spec(engine).origin)
    out = []
    for here, dirs, files in os.walk(root):
        rel = os.path.relpath(here, os.path.dirname(root))
        if rel.count(os.sep) >= depth:
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
        if "__init__.py" in files:
            out.append(rel.replace(os.sep, "."))
    return sorted(out)


def main():
    engine = sys.argv[1]
    parser, source = PARSERS[engine]()
    actions, schemas, extras = describe(parser)
    table = {
        "engine": engine,
        "version": package_version(engine),
        "parser": source,
        "python": platform.python_version(),
        "generator": "test/conformance/engines/generate.py",
        "packages": packages(engine),
        "actions": actions,
        "configs": {name: {"unknownKeys": extras[name], "schema": schemas[name]} for name in sorted(schemas)},
    }
    # one flag per line: a regenerated table diffs flag by flag
    lines = ",\n".join("  " + json.dumps(a) for a in actions)
    head = {k: v for k, v in table.items() if k not in ("actions", "configs", "packages")}
    head["packages"] = table["packages"]
    text = json.dumps(head, indent=1)[:-2] + ',\n "actions": [\n' + lines + '\n ],\n "configs": '
    text += json.dumps(table["configs"], indent=1, sort_keys=True).replace("\n", "\n ") + "\n}\n"
    json.loads(text)
    with open(sys.argv[2], "w") as out:
        out.write(text)


if __name__ == "__main__":
    main()
