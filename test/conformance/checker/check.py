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
import warnings

import yaml

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


def materialize(case, root):
    """Writes the case's mounted files under `root` and points the command line at them.

    A flag value that names a mounted file (`--extra-engine-args /etc/...`,
    `--config /workspace/planner_config/...`) is replaced by the written copy, so
    Dynamo reads exactly what the ConfigMap holds.
    """
    files = case.get("files", {})
    where = {}
    for i, (path, text) in enumerate(sorted(files.items())):
        local = os.path.join(root, str(i), os.path.basename(path))
        os.makedirs(os.path.dirname(local), exist_ok=True)
        with open(local, "w") as f:
            f.write(text)
        where[path] = local
    argv = [where.get(a, a) for a in case["argv"]]
    return {**case, "argv": argv, "local": {v: k for k, v in where.items()}}


def run_case(case, entries, release, root):
    process = case["process"]
    if process == "dgdr-planner":
        case = {**case, "process": "planner", "argv": profiler_planner_argv(case["config"])}
        process = "planner"
    if process == "dgdr":
        return check_request(case)
    case = materialize(case, os.path.join(root, str(abs(hash(case["id"])))))
    entry = entries.get(process)
    if entry is None:
        return {"status": "error", "error": f"Dynamo {release['dynamo']} has no {process} entry point in releases.json"}
    try:
        fn = resolve(entry)
    except Exception as e:
        return {"status": "error", "error": f"{entry} does not import: {type(e).__name__}: {e}"}
    handler = Captured()
    logging.getLogger().addHandler(handler)
    ABBREVIATED.clear()
    engine_tables.DEPRECATED.clear()
    err = io.StringIO()
    out = io.StringIO()
    caught = []
    try:
        with environment(case.get("env", {})), contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parsed = call_entry(fn, case.get("prog", f"python3 -m {case.get('module', process)}"), case["argv"])
            checks = after_parse(case, parsed)
        deprecations = sorted({str(w.message) for w in caught if dynamo_deprecation(w)})
        if ABBREVIATED:
            flag, full = ABBREVIATED[0]
            return {"status": "error", "error": f"{flag} is not a flag of this parser; argparse took it as an abbreviation of {full}"}
        if engine_tables.DEPRECATED:
            return {"status": "error", "error": f"{engine_tables.DEPRECATED[0]} is deprecated by the engine"}
        return {"status": "ok", "checks": checks, "deprecations": deprecations}
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


def dynamo_deprecation(w):
    """A deprecation Dynamo warns about (not one of the libraries it imports)."""
    if not issubclass(w.category, (FutureWarning, DeprecationWarning)) or "deprecated" not in str(w.message):
        return False
    # Dynamo's Deprecated helper words them "... is deprecated and will be removed in v1.7; use ..."
    return f"{os.sep}dynamo{os.sep}" in w.filename or " will be removed in v" in str(w.message)


def after_parse(case, parsed):
    """Follow-up checks on what Dynamo parsed: files it reads (engine configs, planner configs), the planner's predictor."""
    checks = []
    if case["process"] == "planner":
        if hasattr(type(parsed), "model_fields"):
            strict_planner_config(case)
            checks.append("planner-config")
        elif hasattr(parsed, "load_predictor"):
            load_predictor(parsed)
    path = getattr(parsed, "extra_engine_args", None)
    if case["process"] == "trtllm" and path:
        mounted = case["local"].get(path)
        if mounted is None:
            raise FileNotFoundError(f"--extra-engine-args {path}: no such file among the case's mounted files ({', '.join(case.get('files', {})) or 'none'})")
        with open(path) as f:
            trtllm_config.check(f.read(), mounted)
        checks.append("engine-config")
    return checks


def _models_in(annotation):
    """The pydantic model classes an annotation names (through Optional, Union, list and dict)."""
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    out = []
    for arg in getattr(annotation, "__args__", ()) or ():
        out.extend(_models_in(arg))
    return out


def unknown_keys(model, data, path=""):
    """Keys of `data` the pydantic `model` has no field for, at any depth (the models themselves ignore them)."""
    if not isinstance(data, dict):
        return []
    names = {}
    for name, field in model.model_fields.items():
        names[name] = field
        for alias in (field.alias, getattr(field, "validation_alias", None)):
            if isinstance(alias, str):
                names[alias] = field
            for choice in getattr(alias, "choices", []) or []:
                if isinstance(choice, str):
                    names[choice] = field
    out = []
    for key, value in data.items():
        where = f"{path}.{key}" if path else key
        field = names.get(key)
        if field is None:
            out.append(where)
            continue
        for sub in _models_in(field.annotation):
            items = value if isinstance(value, list) else [value]
            for i, item in enumerate(items):
                out.extend(unknown_keys(sub, item, f"{where}[{i}]" if isinstance(value, list) else where))
            break
    return out


def validate_strictly(model, data, what):
    """Validates `data` with the release's own model, then refuses keys it would silently drop."""
    model.model_validate(data)
    unknown = unknown_keys(model, data)
    if unknown:
        raise ValueError(f"{what}: {', '.join(unknown)}: not a field of {model.__name__} (Dynamo would ignore it)")


def strict_planner_config(case):
    """1.x: the PlannerConfig the planner read, again with unknown keys refused."""
    from dynamo.planner.config.planner_config import PlannerConfig

    argv = case["argv"]
    arg = argv[argv.index("--config") + 1]
    with open(arg) as f:
        text = f.read()
    data = json.loads(text) if arg.endswith(".json") else yaml.safe_load(text)
    validate_strictly(PlannerConfig, data, "PlannerConfig")


def check_request(case):
    """1.x: a DynamoGraphDeploymentRequest spec against the release's own pydantic types."""
    try:
        from dynamo.profiler.utils.dgdr_v1beta1_types import DynamoGraphDeploymentRequestSpec
        from dynamo.planner.config.planner_config import PlannerConfig
    except ImportError as e:
        return {"status": "error", "error": f"the release's request types do not import: {e}"}
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            spec = case["spec"]
            validate_strictly(DynamoGraphDeploymentRequestSpec, spec, "spec")
            planner = (spec.get("features") or {}).get("planner")
            if planner is not None:
                validate_strictly(PlannerConfig, planner, "spec.features.planner")
        return {"status": "ok", "checks": ["request"]}
    except Exception as e:
        return {"status": "error", "error": f"{type(e).__name__}: {e}"}


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
        engine_tables.install(engine, table)
        tables[engine] = f"{table.engine} {table.version} flag table"
    if "trtllm" in release.get("parsers", {}):
        tables["trtllm"] = trtllm_config.install_stand_in(release)
    return tables


def quiet_network():
    """Parsing must never download: the model fetches SGLang's parse_args makes are no-ops."""
    try:
        module = importlib.import_module("dynamo.sglang.args")
    except ImportError:
        return

    async def no_fetch(model, *a, **k):
        return model

    # 0.8/0.9 call fetch_llm, 1.x fetch_model; both only download weights
    for name in ("fetch_llm", "fetch_model"):
        if hasattr(module, name):
            setattr(module, name, no_fetch)


HISTOGRAM_SERIES = re.compile(r"_(bucket|sum|count)$")
# series Prometheus itself makes for every scrape target
PROMETHEUS_SERIES = {"up", "scrape_duration_seconds", "scrape_samples_scraped"}


def metric_catalog(release):
    """Every metric name the release's own code defines.

    Two sources: the metric classes releases.json names, instantiated against
    Prometheus's registry (what the planner and the workers register), and the
    names `dynamo.prometheus_names` composes for the Rust runtime: each
    frontend_service constant under name_prefix.FRONTEND, each work_handler and
    kvstats constant under name_prefix.COMPONENT.
    """
    import prometheus_client

    registry = prometheus_client.REGISTRY
    before = set(registry._names_to_collectors)
    names = set()
    for entry in release.get("metrics", []):
        cls = resolve(entry)
        params = inspect.signature(cls).parameters
        if "registry" in params:
            own = prometheus_client.CollectorRegistry()
            cls(registry=own)
            names |= set(own._names_to_collectors)
        else:
            cls()
    names |= set(registry._names_to_collectors) - before
    pn = importlib.import_module("dynamo.prometheus_names")
    constants = lambda cls: [v for k, v in vars(cls).items() if k.isupper() and isinstance(v, str) and not k.endswith(("_LABEL", "_ENV"))]
    prefixes = pn.name_prefix
    for group, prefix in (("frontend_service", prefixes.FRONTEND), ("work_handler", prefixes.COMPONENT), ("kvstats", prefixes.COMPONENT)):
        if hasattr(pn, group):
            names |= {f"{prefix}_{name}" for name in constants(getattr(pn, group))}
    return names


def check_metrics(release, queried):
    """The metrics each dashboard or alert reads that the release does not define."""
    catalog = metric_catalog(release)
    unknown = {}
    for source, metrics in queried.items():
        missing = sorted({m for m in metrics if m not in PROMETHEUS_SERIES and m not in catalog and HISTOGRAM_SERIES.sub("", m) not in catalog})
        if missing:
            unknown[source] = missing
    return {"catalog": len(catalog), "unknown": unknown}


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
    with tempfile.TemporaryDirectory(prefix="conformance-") as root:
        for case in doc["cases"]:
            results[case["id"]] = run_case(case, release["parsers"], release, root)
    metrics = check_metrics(release, doc.get("metrics", {}))
    with open(results_path, "w") as f:
        json.dump({"dynamo": release["dynamo"], "standIns": stand_ins, "results": results, "metrics": metrics}, f, indent=1)


if __name__ == "__main__":
    main()
