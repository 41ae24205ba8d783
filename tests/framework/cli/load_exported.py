"""Opens the two files `runner export` writes as a user's notebook would: the state dict with
torch.load, the safetensors file by its published layout (8 bytes of little-endian header
length, the JSON header, the data). Prints each tensor's name and shape, one per line, and
exits 1 when the two files differ in a name or a value.

Usage: load_exported.py STEM   (reads STEM.pt and STEM.safetensors)
"""
import json
import struct
import sys

import torch

DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
    "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8,
    "U8": torch.uint8, "BOOL": torch.bool,
}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    start = 8 + length
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        dtype = DTYPES[entry["dtype"]]
        raw = bytearray(data[start + begin:start + end])
        flat = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        tensors[name] = flat.reshape(entry["shape"])
    return tensors


def main(stem):
    # LibTorch's C++ pickler tags the dict with its type, a global PyTorch 2.6's weights-only
    # default refuses.
    state_dict = torch.load(stem + ".pt", weights_only=False)
    safetensors = read_safetensors(stem + ".safetensors")
    if sorted(state_dict) != sorted(safetensors):
        print("names differ:", sorted(state_dict), sorted(safetensors))
        return 1
    for name in sorted(state_dict):
        if not torch.equal(state_dict[name], safetensors[name]):
            print("values differ:", name)
            return 1
        print(name, list(state_dict[name].shape))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
