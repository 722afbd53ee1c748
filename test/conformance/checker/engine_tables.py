"""Stand-ins for the inference engines' command-line parsers, built from tables.

vLLM and SGLang are 9-11 GB installs. Dynamo's worker modules build their
parser by adding Dynamo's own flags and then calling the engine's
`add_cli_args`. Here the engine's half is replaced by a parser rebuilt from a
flag table that `engines/generate.py` wrote from the real engine parser (every
flag's spellings, destination, action, arity, choices, default and value kind,
and the JSON Schema of each config a flag parses). Dynamo's half, and
everything Dynamo does with the parsed values, is Dynamo's own code.

What a table cannot stand in for is the engine's own cross-field checks
(vLLM's `EngineArgs.create_engine_config`, SGLang's `ServerArgs.__post_init__`);
those need the engine and a GPU. Where a config value is JSON, unknown keys
are reported even where the engine itself would ignore them.
"""

import argparse
import json
import re
import sys
import types

_HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def human_int(value):
    """An integer, optionally with a decimal (k, m, g, t) or binary (K, M, G, T) suffix."""
    text = value.strip()
    m = _HUMAN_INT.fullmatch(text)
    if not m:
        return int(text)
    number, suffix = m.groups()
    if suffix in _DECIMAL:
        return int(float(number) * _DECIMAL[suffix])
    if "." in number:
        raise argparse.ArgumentTypeError(f"decimals are not allowed with binary suffix {suffix}: {value!r}")
    return int(number) * _BINARY[suffix]


def human_int_or_auto(value):
    return -1 if value.strip() in ("-1", "auto", "AUTO", "Auto") else human_int(value)


class SchemaError(Exception):
    pass


def _resolve(schema, root):
    while "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        schema = root.get("$defs", {}).get(name, {})
    return schema


_JSON_TYPES = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "object": dict,
    "array": list,
    "null": type(None),
}


def _type_ok(value, name):
    if name in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _JSON_TYPES.get(name, object))


def validate(value, schema, root=None, path=""):
    """Checks `value` against a (pydantic-generated) JSON Schema; raises SchemaError naming the key."""
    root = root or schema
    schema = _resolve(schema, root)
    where = path or "the config"
    if "anyOf" in schema or "oneOf" in schema:
        errors = []
        for option in schema.get("anyOf", schema.get("oneOf")):
            try:
                validate(value, option, root, path)
                return
            except SchemaError as e:
                errors.append(str(e))
        raise SchemaError(errors[0] if len(errors) == 1 else f"{where}: {value!r} matches none of the allowed forms ({'; '.join(errors)})")
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaError(f"{where}: {value!r} is not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        raise SchemaError(f"{where}: {value!r} must be {schema['const']!r}")
    t = schema.get("type")
    if t is not None:
        names = t if isinstance(t, list) else [t]
        if not any(_type_ok(value, n) for n in names):
            raise SchemaError(f"{where}: {value!r} is not of type {'/'.join(names)}")
    if isinstance(value, dict) and ("properties" in schema or schema.get("type") == "object"):
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", None)
        for key, item in value.items():
            sub = f"{path}.{key}" if path else key
            if key in props:
                validate(item, props[key], root, sub)
            elif isinstance(extra, dict):
                validate(item, extra, root, sub)
            elif extra is not True and props:
                raise SchemaError(f"{sub}: unknown key; known keys are {', '.join(sorted(props))}")
        for key in schema.get("required", []):
            if key not in value:
                raise SchemaError(f"{path + '.' if path else ''}{key}: is required")
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            validate(item, schema["items"], root, f"{path}[{i}]")


class ConfigStandIn(types.SimpleNamespace):
    """A parsed engine config: the schema's defaults with the given keys over them."""

    _name = "Config"
    _schema = {}

    def __init__(self, **given):
        try:
            validate(given, self._schema)
        except SchemaError as e:
            raise ValueError(f"{self._name}: {e}") from None
        defaults = {k: v.get("default") for k, v in self._schema.get("properties", {}).items()}
        super().__init__(**{**defaults, **given})

    @classmethod
    def from_cli(cls, text):
        return parse_config(cls, text)

    def __repr__(self):
        return f"{self._name}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


def config_class(name, schema):
    return type(name, (ConfigStandIn,), {"_name": name, "_schema": schema})


def parse_config(cls, text):
    try:
        given = json.loads(text)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"{cls._name}: not valid JSON ({e.msg} at column {e.colno}): {text!r}") from None
    if not isinstance(given, dict):
        raise argparse.ArgumentTypeError(f"{cls._name}: must be a JSON object, got {text!r}")
    try:
        return cls(**given)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _json_object_or_str(text):
    return json.loads(text) if re.match(r"(?s)^\s*{.*}\s*$", text) else text


class EngineTable:
    """One engine release's flags, and the config classes its flags parse."""

    def __init__(self, path):
        with open(path) as f:
            self.table = json.load(f)
        self.engine = self.table["engine"]
        self.version = self.table["version"]
        self.configs = {name: config_class(name, c["schema"]) for name, c in self.table["configs"].items()}

    def converter(self, kind):
        if kind is None or kind == "str" or str(kind).startswith("opaque:"):
            return str
        if kind == "int":
            return int
        if kind == "float":
            return float
        if kind == "human-int":
            return human_int
        if kind == "human-int-or-auto":
            return human_int_or_auto
        if kind == "json":
            return json.loads
        if kind == "json-object-or-str":
            return _json_object_or_str
        if isinstance(kind, dict) and "optional" in kind:
            inner = self.converter(kind["optional"])

            def optional(text, inner=inner):
                return None if text in ("", "None") else inner(text)

            optional.__name__ = getattr(inner, "__name__", "value")
            return optional
        if isinstance(kind, dict) and "config" in kind:
            cls = self.configs[kind["config"]]

            def config(text, cls=cls):
                return parse_config(cls, text)

            config.__name__ = kind["config"]
            return config
        raise ValueError(f"{self.engine} {self.version} table: unknown value kind {kind!r}")

    def add_cli_args(self, parser):
        """Adds the engine's flags to `parser`, as the engine's own add_cli_args does."""
        for a in self.table["actions"]:
            flags = a["flags"]
            # argparse.SUPPRESS survives JSON as its string; argparse tells it apart by identity
            default = argparse.SUPPRESS if a["default"] == argparse.SUPPRESS else a["default"]
            kwargs = {"dest": a["dest"], "default": default, "required": a["required"]}
            action = a["action"]
            if action == "boolean_optional":
                positive = [f for f in flags if not f.startswith("--no-")]
                parser.add_argument(*positive, action=argparse.BooleanOptionalAction, **kwargs)
                continue
            if action in ("store_true", "store_false", "count"):
                parser.add_argument(*flags, action=action, **kwargs)
                continue
            if action == "store_const":
                parser.add_argument(*flags, action=action, const=a["const"], **kwargs)
                continue
            if action not in ("store", "append"):
                # the engine's own action classes (SGLang's LoRAPathAction, DeprecatedStoreTrueAction...):
                # they take what their arity says, and those named Deprecated* note their use
                parser.add_argument(
                    *flags,
                    action=EngineAction,
                    nargs=a["nargs"],
                    const=a["const"],
                    type=None if a["nargs"] == 0 else self.converter(a["value"]),
                    deprecated_flag=action.startswith("Deprecated"),
                    **kwargs,
                )
                continue
            if a["nargs"] is not None:
                kwargs["nargs"] = a["nargs"]
            if a["choices"] is not None:
                kwargs["choices"] = a["choices"]
            parser.add_argument(*flags, action=action, type=self.converter(a["value"]), **kwargs)
        return parser

    def from_cli_args(self, cls, args):
        """The engine's args object: every engine destination, read from the parsed namespace."""
        obj = cls.__new__(cls)
        for a in self.table["actions"]:
            setattr(obj, a["dest"], getattr(args, a["dest"], a["default"]))
        return obj


DEPRECATED = []


class EngineAction(argparse.Action):
    """One of the engine's own argparse actions: stores its value (or const), and notes a deprecated flag's use."""

    def __init__(self, option_strings, dest, deprecated_flag=False, **kwargs):
        super().__init__(option_strings, dest, **kwargs)
        self.deprecated_flag = deprecated_flag

    def __call__(self, parser, namespace, values, option_string=None):
        if self.deprecated_flag:
            DEPRECATED.append(option_string)
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)


class FlexibleParser(argparse.ArgumentParser):
    """vLLM's parser accepts `--flag_name` for `--flag-name`; so does this stand-in."""

    def parse_known_args(self, args=None, namespace=None):
        if args is None:
            args = sys.argv[1:]
        normalized = []
        for arg in args:
            if arg.startswith("--") and not arg.startswith("---"):
                name, eq, value = arg.partition("=")
                normalized.append(name.replace("_", "-") + eq + value)
            else:
                normalized.append(arg)
        return super().parse_known_args(normalized, namespace)


def stand_in_module(name, **attrs):
    """Registers a module of stand-ins under `name`, marked as such."""
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    m.__conformance_stand_in__ = True
    sys.modules[name] = m
    return m


def args_class(name, table):
    """An engine's args class (vLLM's AsyncEngineArgs, SGLang's ServerArgs) backed by `table`."""

    def add_cli_args(parser, **_options):
        # (vLLM 0.26+ takes async_args_only=; the table holds the full flag set either way)
        return table.add_cli_args(parser)

    def from_cli_args(cls, args):
        return table.from_cli_args(cls, args)

    return type(name, (), {"add_cli_args": staticmethod(add_cli_args), "from_cli_args": classmethod(from_cli_args)})



def install_vllm(table):
    """Installs a `vllm` package whose parser is the table's."""
    AsyncEngineArgs = args_class("AsyncEngineArgs", table)
    EngineArgs = type("EngineArgs", (AsyncEngineArgs,), {})
    configs = table.configs
    kv_transfer = configs.get("KVTransferConfig") or config_class("KVTransferConfig", {})
    kv_events = configs.get("KVEventsConfig") or config_class("KVEventsConfig", {})
    root = stand_in_module("vllm", __version__=table.version, __path__=[])
    # classes Dynamo 1.6 imports while it parses, only to name them in annotations
    opaque = {name: type(name, (), {"__conformance_stand_in__": True}) for name in ("VllmConfig", "AsyncLLM")}
    stand_in_module("vllm.config", __path__=[], **{**configs, "KVTransferConfig": kv_transfer, "KVEventsConfig": kv_events, "VllmConfig": opaque["VllmConfig"]})
    stand_in_module("vllm.v1", __path__=[])
    stand_in_module("vllm.v1.engine", __path__=[])
    stand_in_module("vllm.v1.engine.async_llm", AsyncLLM=opaque["AsyncLLM"])
    stand_in_module("vllm.distributed", __path__=[])
    stand_in_module("vllm.distributed.kv_events", KVEventsConfig=kv_events)
    stand_in_module("vllm.engine", __path__=[])
    stand_in_module("vllm.engine.arg_utils", AsyncEngineArgs=AsyncEngineArgs, EngineArgs=EngineArgs)
    stand_in_module("vllm.utils", __path__=[], FlexibleArgumentParser=FlexibleParser)
    stand_in_module("vllm.utils.argparse_utils", FlexibleArgumentParser=FlexibleParser)
    return root


def install_sglang(table):
    """Installs an `sglang` package whose ServerArgs parser is the table's."""
    ServerArgs = args_class("ServerArgs", table)

    def get_model_config(self):
        # SGLang reads the model's own config here (1.x asks whether it is multimodal, to patch
        # SGLang's image handling); the checker has no model: it takes every model as text-only
        return types.SimpleNamespace(is_multimodal=False)

    ServerArgs.get_model_config = get_model_config

    class ConfigArgumentMerger:
        def __init__(self, *a, **k):
            raise NotImplementedError("sglang --config files need the SGLang engine; the conformance checker does not render them")

    def not_installed(*_a, **_k):
        raise NotImplementedError("the SGLang engine is not installed; the conformance checker only parses")

    class EngineType(type):
        # Dynamo 1.6 wraps the engine's methods at import time (sglang/gateway.py reads
        # `sgl.Engine.async_generate`): any method is there, and fails if called
        def __getattr__(cls, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return not_installed

    class Engine(metaclass=EngineType):
        __init__ = not_installed

    # Dynamo 1.x reads both from the top-level package
    root = stand_in_module("sglang", __version__=table.version, __path__=[], Engine=Engine, ServerArgs=ServerArgs)
    stand_in_module("sglang.srt", __path__=[])
    stand_in_module("sglang.srt.server_args", ServerArgs=ServerArgs)
    stand_in_module("sglang.srt.server_args_config_parser", ConfigArgumentMerger=ConfigArgumentMerger)
    return root


def install_packages(table):
    """Empty stand-ins for the engine's other subpackages, so that Dynamo's probes for one
    (`from sglang.srt.utils.x import y` inside a try) fail the way they do with the real engine."""
    for name in table.table.get("packages", []):
        if name not in sys.modules:
            stand_in_module(name, __path__=[])


def install(engine, table):
    INSTALLERS[engine](table)
    install_packages(table)


INSTALLERS = {"vllm": install_vllm, "sglang": install_sglang}
