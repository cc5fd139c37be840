"""Records what PyTorch's key-value stores (HashStore, FileStore, TCPStore, PrefixStore over each)
answer to one sequence of operations into fixtures/distributed_store.json.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_distributed_store.py
tests/python/test_distributed_store.py replays the sequence on rstorch's stores. Each step is
[method, args]; str arguments go as they are, bytes as {"hex": ...}; an answer is the returned
value (bytes as {"hex": ...}, lists element-wise) or {"error": exception class name, "message"}."""
import datetime
import json
import pathlib
import tempfile

import torch.distributed as dist

STEPS = [
    ["set", ["a", "1"]], ["set", ["b", {"hex": "0078ff"}]], ["get", ["a"]], ["get", ["b"]], ["num_keys", []],
    ["add", ["c", 3]], ["add", ["c", -5]], ["get", ["c"]], ["add", ["a", 4]], ["get", ["a"]],
    ["get", ["missing"]], ["wait", [["missing"]]], ["check", [["a", "missing"]]], ["check", [["a", "b"]]],
    ["compare_set", ["a", "5", "six"]], ["get", ["a"]], ["compare_set", ["a", "nope", "seven"]],
    ["compare_set", ["fresh", "", "v"]], ["compare_set", ["absent", "x", "v"]], ["check", [["absent"]]],
    ["delete_key", ["a"]], ["delete_key", ["a"]], ["num_keys", []],
    ["multi_set", [["k1", "k2"], ["v1", {"hex": "7632"}]]], ["multi_get", [["k1", "k2"]]],
    ["append", ["k1", "++"]], ["append", ["new", "q"]], ["get", ["k1"]], ["get", ["new"]],
    ["list_keys", []], ["has_extended_api", []],
    ["queue_push", ["q", "first"]], ["queue_push", ["q", "second"]], ["queue_len", ["q"]], ["queue_pop", ["q"]],
    ["queue_len", ["q"]], ["num_keys", []],
]


def decode(value):
    if isinstance(value, dict):
        return bytes.fromhex(value["hex"])
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def encode(value):
    if isinstance(value, bytes):
        return {"hex": value.hex()}
    if isinstance(value, list):
        return sorted(encode(v) for v in value) if all(isinstance(v, str) for v in value) else [encode(v) for v in value]
    return value


def replay(store, steps):
    """Every step's answer (list_keys sorted: its order is the store's own)."""
    answers = []
    for name, args in steps:
        try:
            answers.append(encode(getattr(store, name)(*decode(args))))
        except Exception as e:  # noqa: BLE001 (the error is the recorded answer)
            answers.append({"error": type(e).__name__, "message": str(e)})
    return answers


def stores(module):
    timeout = datetime.timedelta(seconds=0.2)
    made = {"HashStore": module.HashStore(), "FileStore": module.FileStore(tempfile.mktemp(), 1),
            "TCPStore": module.TCPStore("127.0.0.1", 0, 1, True, timeout)}
    for name in list(made):
        made["PrefixStore/" + name] = module.PrefixStore("pre", module.HashStore() if name == "HashStore" else made[name])
    for store in made.values():
        store.set_timeout(timeout)
    return made


def main():
    results = {name: replay(store, STEPS) for name, store in stores(dist).items()}
    out = pathlib.Path(__file__).with_name("fixtures") / "distributed_store.json"
    out.write_text(json.dumps({"steps": STEPS, "answers": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
