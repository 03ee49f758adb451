#!/usr/bin/env python3
"""Writes a stream of messages in a record framing, for the framing tests:
an independent writer (Python's standard library only) of what pbdiff reads.

  write_framed.py FRAMING OUT MESSAGE...

FRAMING is delimited, tfrecord, grpc, confluent, confluent-value or
confluent-keyed (a MESSAGE "KEY|VALUE", KEY "-" for none, VALUE as for
confluent); each
MESSAGE is hex digits (may be empty: ""); for grpc a MESSAGE written "z:HEX"
is gzip-compressed with the compressed flag set.  A TFRecord's CRCs are
CRC-32C computed here by table.

For confluent (Kafka values each after a 4-byte big-endian length, as
kcat -f '%R%s' writes) and confluent-value (one value, no length), a MESSAGE
is "ID/INDEXES:HEX": the schema id, then the message indexes separated by
commas, written as the Confluent serializer does (the single byte 0 for
[0], else a zigzag varint count and zigzag varint indexes): "7/0:0801",
"9/1,0:0802"; "tombstone" (a length of -1, no value) and "empty" (a length of
0) are records without a value.  confluent-value takes one MESSAGE."""
import gzip
import struct
import sys

TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    TABLE.append(c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked(c):
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def zigzag(n):
    return varint((n << 1) ^ (n >> 63))


def confluent_value(arg):
    head, data = arg.split(":", 1)
    schema_id, indexes = head.split("/")
    path = [int(i) for i in indexes.split(",")]
    if path == [0]:
        index_list = b"\x00"
    else:
        index_list = zigzag(len(path)) + b"".join(zigzag(i) for i in path)
    return b"\x00" + struct.pack(">I", int(schema_id)) + index_list + bytes.fromhex(data)


def frame(framing, arg):
    if framing == "confluent-keyed":  # "KEY|VALUE": kcat -f '%K%k%R%s'; KEY "-" for none
        key, value = arg.split("|", 1)
        head = struct.pack(">i", -1) if key == "-" else struct.pack(">I", len(key)) + key.encode()
        return head + frame("confluent", value)
    if framing == "confluent":
        if arg == "tombstone":  # kcat's %R of a record without a value: -1
            return struct.pack(">i", -1)
        value = b"" if arg == "empty" else confluent_value(arg)
        return struct.pack(">I", len(value)) + value
    if framing == "confluent-value":
        return confluent_value(arg)
    compress = arg.startswith("z:")
    return frame_bytes(framing, bytes.fromhex(arg[2:] if compress else arg), compress)


def frame_bytes(framing, data, compress=False):
    """One message in the framing (also for tests/support/write_corpus.py)."""
    if framing == "delimited":
        return varint(len(data)) + data
    if framing == "tfrecord":
        length = struct.pack("<Q", len(data))
        return (length + struct.pack("<I", masked(crc32c(length))) + data +
                struct.pack("<I", masked(crc32c(data))))
    if framing == "grpc":
        if compress:
            data = gzip.compress(data)
        return bytes([1 if compress else 0]) + struct.pack(">I", len(data)) + data
    sys.exit(f"unknown framing {framing}")


if __name__ == "__main__":
    framing, out = sys.argv[1], sys.argv[2]
    with open(out, "wb") as f:
        for arg in sys.argv[3:]:
            f.write(frame(framing, arg))
