"""Runs every command line of a conformance case file through Dynamo's own parsers.

    python check.py CASES.json RESULTS.json

Runs inside the virtualenv of one Dynamo release (see ../venv.ts). For each
case it sets the process's environment, hands the argument list to the entry
point the release's table names (`module:function`), and records whether
Dynamo accepted it, or Dynamo's own error: argparse's `error:` line, the
message of the exception it raised, or the error it logged before exiting.
Everything is imported once; a case costs milliseconds.
"""

import argparse
import asyncio
import contextlib
import importlib
import inspect
import io
import json
import logging
import os
import re
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import engine_tables  # noqa: E402
import trtllm_config  # noqa: E402


class Captured(logging.Handler):
    """Collects what Dynamo logs at ERROR while it parses (some modules log, then exit)."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def last_error_line(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if "error:" in line]
    return (errors or lines or [""])[-1]


@contextlib.contextmanager
def environment(env):
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


ABBREVIATED = []


def watch_abbreviations():
    """Records a flag argparse accepted only as an abbreviation of a longer one.

    argparse looks for prefix matches only when a flag is not one of the
    parser's own spellings; a command line that relies on that breaks the day
    the engine adds another flag with the same prefix.
    """
    original = argparse.ArgumentParser._get_option_tuples

    def get_option_tuples(self, option_string):
        tuples = original(self, option_string)
        if len(tuples) == 1:
            ABBREVIATED.append((option_string.split("=")[0], tuples[0][1] if isinstance(tuples[0][1], str) else tuples[0][0].option_strings[0]))
        return tuples

    argparse.ArgumentParser._get_option_tuples = get_option_tuples


def resolve(entry):
    module, _, name = entry.partition(":")
    return getattr(importlib.import_module(module), name)


def call_entry(fn, prog, argv):
    """Calls a parse function the way its module's main does: with argv, or through sys.argv."""
    takes_args = any(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is inspect.Parameter.empty
        for p in inspect.signature(fn).parameters.values()
    )
    saved = sys.argv
    sys.argv = [prog, *argv]
    try:
        result = fn(list(argv)) if takes_args else fn()
        if inspect.iscoroutine(result):
            result = asyncio.run(result)
        # a parser factory (the 0.9 planner): parse with what it returns
        if hasattr(result, "parse_args") and hasattr(result, "add_argument"):
            result = result.parse_args(list(argv))
        return result
    finally:
        sys.argv = saved


def camel_to_snake(key):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower().replace("-", "_")


def profiler_planner_argv(config):
    """The planner flags a v1alpha1 DGDR's `profilingConfig.config.planner` becomes.

    The profiler (benchmarks/profiler in Dynamo's repository, not in the wheel)
    turns each key from camelCase into snake_case, takes it with or without the
    `planner_` prefix as the planner argument of that name, and passes
    `--<name>=<value>` (`--<name>` for true) to the planner it deploys.
    """
    argv = []
    for key, value in config.items():
        name = camel_to_snake(key)
        name = name[len("planner_"):] if name.startswith("planner_") else name
        flag = "--" + name.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is not False and value is not None:
            argv.append(f"{flag}={value}")
    return argv


def run_case(case, entries, release):
    process = case["process"]
    if process == "dgdr-planner":
        case = {**case, "process": "planner", "argv": profiler_planner_argv(case["config"])}
        process = "planner"
    entry = entries.get(process)
    if entry is None:
        return {"status": "error", "error": f"Dynamo {release['dynamo']} has no {process} entry point in releases.json"}
    fn = resolve(entry)
    handler = Captured()
    logging.getLogger().addHandler(handler)
    ABBREVIATED.clear()
    engine_tables.DEPRECATED.clear()
    err = io.StringIO()
    out = io.StringIO()
    try:
        with environment(case.get("env", {})), contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            parsed = call_entry(fn, case.get("prog", f"python3 -m {case.get('module', process)}"), case["argv"])
            checks = after_parse(case, parsed)
        if ABBREVIATED:
            flag, full = ABBREVIATED[0]
            return {"status": "error", "error": f"{flag} is not a flag of this parser; argparse took it as an abbreviation of {full}"}
        if engine_tables.DEPRECATED:
            return {"status": "error", "error": f"{engine_tables.DEPRECATED[0]} is deprecated by the engine"}
        return {"status": "ok", "checks": checks}
    except SystemExit as e:
        message = last_error_line(err.getvalue())
        if e.code in (0, None):
            return {"status": "error", "error": f"exited with status 0 before starting ({message})"}
        logged = handler.lines[-1] if handler.lines else ""
        return {"status": "error", "error": message if "error:" in message or not logged else logged, "exit": e.code}
    except Exception as e:  # Dynamo's own ValueError & co. are the finding
        return {"status": "error", "error": f"{type(e).__name__}: {e}"}
    finally:
        logging.getLogger().removeHandler(handler)


def load_predictor(parsed):
    """The planner's start: it looks its load predictor up in Dynamo's registry and builds it."""
    try:
        from dynamo.planner.utils.load_predictor import LOAD_PREDICTORS
    except ImportError as e:
        raise RuntimeError(f"the planner's load predictors do not import ({e}); install the planner's dependencies") from None
    cls = LOAD_PREDICTORS.get(parsed.load_predictor)
    if cls is None:
        raise KeyError(f"--load-predictor {parsed.load_predictor!r}: this release's planner knows {', '.join(LOAD_PREDICTORS)}")
    params = [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]
    if len(params) == 1 and params[0].kind == params[0].POSITIONAL_OR_KEYWORD and params[0].default is inspect.Parameter.empty:
        cls(parsed)  # predictors that read their settings from the parsed arguments


def after_parse(case, parsed):
    """Follow-up checks on what Dynamo parsed: files it reads (TensorRT-LLM engine configs), the planner's predictor."""
    checks = []
    if case["process"] == "planner" and hasattr(parsed, "load_predictor"):
        load_predictor(parsed)
    path = getattr(parsed, "extra_engine_args", None)
    if case["process"] == "trtllm" and path:
        files = case.get("files", {})
        if path not in files:
            raise FileNotFoundError(f"--extra-engine-args {path}: no such file among the case's mounted files ({', '.join(files) or 'none'})")
        trtllm_config.check(files[path], path)
        checks.append("engine-config")
    return checks


def prepare(release):
    """Stands in for what a GPU-less machine lacks, before Dynamo is imported."""
    tables = {}
    for engine, table_path in release.get("engines", {}).items():
        try:
            importlib.import_module(engine)
            continue  # the real engine is installed: use it
        except ImportError:
            pass
        table = engine_tables.EngineTable(os.path.join(HERE, "..", table_path))
        engine_tables.INSTALLERS[engine](table)
        tables[engine] = f"{table.engine} {table.version} flag table"
    if "trtllm" in release.get("parsers", {}):
        tables["trtllm"] = trtllm_config.install_stand_in(release)
    return tables


def quiet_network():
    """Parsing must never download: model fetches are replaced by no-ops."""
    for name in ("dynamo.sglang.args",):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "fetch_llm"):

            async def no_fetch(*a, **k):
                return None

            module.fetch_llm = no_fetch


def main():
    cases_path, results_path = sys.argv[1], sys.argv[2]
    with open(cases_path) as f:
        doc = json.load(f)
    release = doc["release"]
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    stand_ins = prepare(release)
    quiet_network()
    watch_abbreviations()
    results = {}
    for case in doc["cases"]:
        results[case["id"]] = run_case(case, release["parsers"], release)
    with open(results_path, "w") as f:
        json.dump({"dynamo": release["dynamo"], "standIns": stand_ins, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
