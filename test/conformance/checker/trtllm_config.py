"""TensorRT-LLM for the conformance checker: what Dynamo's trtllm parser imports, and engine configs.

TensorRT-LLM is not installable from PyPI (its releases there are stubs that
download from NVIDIA's own index). Dynamo's `dynamo.trtllm` argument parser
reads four defaults from `tensorrt_llm.llmapi.BuildConfig`; a stand-in
provides them, and everything else the parser does is Dynamo's own code.

The engine config file Dynamo passes to TensorRT-LLM (`--extra-engine-args`)
is read with PyYAML's safe loader and merged into the LLM API arguments;
`check` loads it the same way and requires a mapping. Its keys are not
checked here: that needs TensorRT-LLM's own pydantic models.
"""

import ast
import enum
import importlib.util
import types

import yaml

from engine_tables import stand_in_module as _module

# The parser prints these as its defaults; nothing the library renders depends on them.
BUILD_DEFAULTS = {"max_batch_size": 2048, "max_num_tokens": 8192, "max_seq_len": None, "max_beam_width": 1}


def class_from_source(module, name):
    """Runs one class definition of a Dynamo module (an Enum) without importing the module."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    with open(spec.origin) as f:
        tree = ast.parse(f.read())
    node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
    if node is None:
        return None
    namespace = {"Enum": enum.Enum, "__name__": module}
    exec(compile(ast.Module(body=[node], type_ignores=[]), spec.origin, "exec"), namespace)
    return namespace[name]


def install_stand_in(release):
    try:
        import tensorrt_llm  # noqa: F401

        return "TensorRT-LLM installed"
    except ImportError:
        pass

    class BuildConfig:
        model_fields = {k: types.SimpleNamespace(default=v) for k, v in BUILD_DEFAULTS.items()}

    class BaseLlmArgs:
        model_fields = BuildConfig.model_fields

    _module("tensorrt_llm", __version__="stand-in", __path__=[])
    _module("tensorrt_llm.llmapi", __path__=[], BuildConfig=BuildConfig)
    _module("tensorrt_llm.llmapi.llm_args", BaseLlmArgs=BaseLlmArgs, TorchLlmArgs=BaseLlmArgs)
    # 0.8/0.9: the parser takes DisaggregationMode from the request handlers, which import
    # torch and the engine. 0.9 defines the enum in dynamo.trtllm.constants; 0.8 in the
    # handlers module itself, whose class definition is run on its own.
    try:
        from dynamo.trtllm.constants import DisaggregationMode
    except ImportError:
        DisaggregationMode = class_from_source("dynamo.trtllm.request_handlers.handler_base", "DisaggregationMode")
    if DisaggregationMode is not None:
        _module("dynamo.trtllm.request_handlers.handler_base", DisaggregationMode=DisaggregationMode)
    return "TensorRT-LLM BuildConfig defaults stand-in"


def check(text, path):
    """Loads an engine config as TensorRT-LLM does and checks its keys."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ValueError(f"{path}: not valid YAML: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: must be a mapping of LLM API arguments, got {type(data).__name__}")
