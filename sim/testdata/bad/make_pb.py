#!/usr/bin/env python3
"""Regenerates the binary bad inputs of this folder from pb_source.txt.

Run from the repository root (needs protoc):  python3 sim/testdata/bad/make_pb.py
A binary trace is TraceText's wire form with the field tags dropped: TraceText
is `1: header` then `2: records`, each length-delimited, and the stream is the
same length-delimited messages without tags.
"""
import pathlib
import re
import subprocess

HERE = pathlib.Path(__file__).parent
ROOT = HERE.parent.parent.parent


def varint(data, pos):
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def stream_of(text):
    """The delimited stream and the (start, end) byte range of each message."""
    wire = subprocess.run(
        ["protoc", "--encode=pto.trace.TraceText", "-I", str(ROOT / "proto"),
         str(ROOT / "proto" / "task_stream.proto")],
        input=text.encode(), capture_output=True, check=True).stdout
    out, spans, pos = bytearray(), [], 0
    while pos < len(wire):
        _, pos = varint(wire, pos)  # the tag
        length, body = varint(wire, pos)
        spans.append((len(out), len(out) + body - pos + length))
        out += wire[pos:body + length]
        pos = body + length
    return bytes(out), spans


# The schema version pto_sim reads, from its one definition.
VERSION = int(re.search(r"kTaskStreamVersion = (\d+);",
                        (ROOT / "proto" / "stream_version.h").read_text()).group(1))
CURRENT = f"version: {VERSION}"

source = (HERE / "pb_source.txt").read_text()
assert CURRENT in source, f"pb_source.txt must say {CURRENT}"
stream, spans = stream_of(source)
# truncated.pb: cut in the middle of the submit record (message 3).
start, end = spans[3]
(HERE / "truncated.pb").write_bytes(stream[:(start + end) // 2])
# wrong_version.pb: a header of the next version (a newer ptoc's file).
wrong, _ = stream_of(source.replace(CURRENT, f"version: {VERSION + 1}", 1))
(HERE / "wrong_version.pb").write_bytes(wrong)
# old_version.pb: a header of the previous version (an older ptoc's file).
old, _ = stream_of(source.replace(CURRENT, f"version: {VERSION - 1}", 1))
(HERE / "old_version.pb").write_bytes(old)
