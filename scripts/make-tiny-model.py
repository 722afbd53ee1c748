"""Writes a tiny stand-in model directory for `dynamo-constructs rehearse --tokenizer DIR`.

    python3 scripts/make-tiny-model.py DIR

The mocker and the frontend need a tokenizer and a model config, and nothing else of a model;
where the Hugging Face hub cannot be reached (CI), this directory stands in for it: a byte-level
BPE tokenizer trained here on a few sentences, a ChatML chat template, and a small Qwen2-shaped
config.

It needs the `tokenizers` package. A Python that has it (Dynamo's virtualenvs have it through
`transformers`) runs it directly; any other Python 3.9+ creates a virtualenv with it on first use,
beside rehearse's own ($DYNAMO_CONSTRUCTS_CACHE/rehearse, else
${XDG_CACHE_HOME:-~/.cache}/dynamo-constructs/rehearse; from PyPI), and runs there.

The vocabulary is padded to 4096 entries: the mocker answers with random token ids up to about
2000, and an id the tokenizer does not know decodes to nothing (answers with empty content).
"""

import json
import os
import shutil
import subprocess
import sys

try:
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors, trainers
except ImportError:
    Tokenizer = None

# the release the tokenizer files are known to load with (Dynamo 1.6.1's virtualenv has it)
TOKENIZERS = "tokenizers==0.23.3"

VOCABULARY = 4096
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
TEXT = [
    "A rehearsal runs the frontend and the workers without a GPU.",
    "The router sends each request to the worker that holds its prefix.",
    "Prefill workers hand the KV cache to decode workers over the fabric.",
    "The planner scales prefill and decode to hold time to first token and inter-token latency.",
    "system user assistant You answer briefly.",
]


def main(out):
    os.makedirs(out, exist_ok=True)
    tokenizer = Tokenizer(models.BPE(unk_token=None))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=800, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train_from_iterator(TEXT * 40, trainer)
    filler = [AddedToken(f" w{i}", normalized=False) for i in range(VOCABULARY - tokenizer.get_vocab_size())]
    tokenizer.add_tokens(filler)
    tokenizer.save(os.path.join(out, "tokenizer.json"))

    end = tokenizer.token_to_id("<|im_end|>")
    start_of_text = tokenizer.token_to_id("<|endoftext|>")
    template = (
        "{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{% endfor %}"
        "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
    )
    files = {
        "config.json": {
            "model_type": "qwen2",
            "architectures": ["Qwen2ForCausalLM"],
            "vocab_size": tokenizer.get_vocab_size(),
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "max_position_embeddings": 8192,
            "bos_token_id": start_of_text,
            "eos_token_id": end,
            "torch_dtype": "bfloat16",
            "tie_word_embeddings": True,
        },
        "tokenizer_config.json": {
            "tokenizer_class": "PreTrainedTokenizerFast",
            "eos_token": "<|im_end|>",
            "pad_token": "<|endoftext|>",
            "bos_token": None,
            "model_max_length": 8192,
            "chat_template": template,
        },
        "generation_config.json": {"eos_token_id": [end], "bos_token_id": start_of_text},
    }
    for name, content in files.items():
        with open(os.path.join(out, name), "w") as f:
            json.dump(content, f, indent=1)
    print(out)


def cached_venv():
    """Where the virtualenv with `tokenizers` lives: beside rehearse's, outside any clone."""
    cache = os.environ.get("DYNAMO_CONSTRUCTS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "dynamo-constructs"
    )
    return os.path.join(cache, "rehearse", "venv-" + TOKENIZERS.replace("==", "-"))


def step(argv, what, hint):
    """Runs one setup step quietly; on failure exits with its last lines and what to do."""
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        last = "\n".join(r.stderr.strip().splitlines()[-8:])
        sys.exit(f"make-tiny-model.py: {what} failed:\n{last}\n{hint}")


def run_with_tokenizers(argv):
    """Runs this script again with the cached virtualenv's Python, creating it on first use; returns its exit status."""
    venv = cached_venv()
    python = os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")
    yourself = f"or install tokenizers into this Python yourself ({sys.executable} -m pip install {TOKENIZERS})"
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        sys.exit(f"make-tiny-model.py: {venv} has no working tokenizers package; remove that directory and run again, {yourself}")
    stamp = os.path.join(venv, ".installed")
    installed = os.path.exists(python) and os.path.exists(stamp) and open(stamp).read() == TOKENIZERS
    if not installed:
        print(f"make-tiny-model.py: this Python has no tokenizers package; installing {TOKENIZERS} into {venv} (first run only)", file=sys.stderr)
        shutil.rmtree(venv, ignore_errors=True)
        os.makedirs(os.path.dirname(venv), exist_ok=True)
        step([sys.executable, "-m", "venv", venv], f"{sys.executable} -m venv", f"Install Python's venv module (Debian and Ubuntu: apt install python3-venv), {yourself}")
        step([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", TOKENIZERS], f"pip install {TOKENIZERS}", f"pip needs PyPI (or your index, PIP_INDEX_URL); {yourself}")
        with open(stamp, "w") as f:
            f.write(TOKENIZERS)
    return subprocess.call([python, os.path.abspath(__file__)] + argv)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make-tiny-model.py DIR")
    if Tokenizer is None:
        sys.exit(run_with_tokenizers(sys.argv[1:]))
    main(sys.argv[1])
