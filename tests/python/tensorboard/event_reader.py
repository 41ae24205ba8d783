"""Reads TensorBoard event files without TensorBoard and without runner's writer: the TFRecord
framing checked by its two masked CRC-32C (crcmod), each record parsed by Python protobuf
classes that protoc compiles at test time from runner's .proto files."""
import glob
import importlib
import os
import struct
import subprocess
import sys
import tempfile

import crcmod.predefined

_crc32c = crcmod.predefined.mkPredefinedCrcFun("crc-32c")


def masked_crc(data):
    crc = _crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def compile_protos(proto_dir, protoc="protoc"):
    """The modules event_pb2, summary_pb2 and hparams_pb2, compiled into a temporary folder."""
    out = tempfile.mkdtemp(prefix="runner-protos-")
    protos = sorted(glob.glob(os.path.join(proto_dir, "*.proto")))
    subprocess.run([protoc, "-I", proto_dir, "-I", "/usr/include", "--python_out", out, *protos],
                   check=True)
    sys.path.insert(0, out)
    return {name: importlib.import_module(name + "_pb2") for name in ("event", "summary", "hparams")}


def records(path):
    """The data of each record of the file; AssertionError when a length or CRC is wrong."""
    with open(path, "rb") as f:
        data = f.read()
    at, out = 0, []
    while at < len(data):
        header = data[at:at + 12]
        assert len(header) == 12, f"{path}: record header cut at byte {at}"
        (length,) = struct.unpack("<Q", header[:8])
        (length_crc,) = struct.unpack("<I", header[8:])
        assert length_crc == masked_crc(header[:8]), f"{path}: length CRC at byte {at}"
        body = data[at + 12:at + 12 + length + 4]
        assert len(body) == length + 4, f"{path}: record cut at byte {at}"
        (data_crc,) = struct.unpack("<I", body[length:])
        assert data_crc == masked_crc(body[:length]), f"{path}: data CRC at byte {at}"
        out.append(body[:length])
        at += 12 + length + 4
    return out


def event_files(folder):
    """The event files of a folder in the order TensorBoard reads them: by name."""
    return sorted(os.path.join(folder, name) for name in os.listdir(folder) if "tfevents" in name)


def events(path, modules):
    parsed = []
    for data in records(path):
        event = modules["event"].Event()
        event.ParseFromString(data)
        parsed.append(event)
    return parsed


def scalars(folder, modules):
    """{tag: [(step, value), ...]} of the folder's files as TensorBoard keeps them: every
    event in reading order, save that a SessionLog START at step s drops what was read before
    at step s or later."""
    shown = {}
    for path in event_files(folder):
        for event in events(path, modules):
            if event.WhichOneof("what") == "session_log" and \
                    event.session_log.status == modules["event"].SessionLog.START:
                for tag, series in shown.items():
                    shown[tag] = [(step, value) for step, value in series if step < event.step]
            for value in event.summary.value:
                if value.WhichOneof("value") == "simple_value":
                    shown.setdefault(value.tag, []).append((event.step, value.simple_value))
    return shown


def plugin_data(folder, tag, modules):
    """Each HParamsPluginData of `tag` in the folder's files, in reading order."""
    found = []
    for path in event_files(folder):
        for event in events(path, modules):
            for value in event.summary.value:
                if value.tag == tag:
                    assert value.metadata.plugin_data.plugin_name == "hparams"
                    data = modules["hparams"].HParamsPluginData()
                    data.ParseFromString(value.metadata.plugin_data.content)
                    found.append(data)
    return found
