# Writes a message nested DEPTH levels deep through one LEN field (TAG, a
# byte) around TAIL (hex), then once more in OUTER when given (a schema's
# way in: sem3.M.inner, then Inner.child all the way down):
#   python3 deep.py DEPTH TAG TAIL [OUTER]
# TAG "any" nests google.protobuf.Any messages, each the value of the next.
import sys


def wrap(tag, body):
    n, v = len(body), bytearray()
    while True:
        v.append((n & 0x7f) | (0x80 if n > 0x7f else 0))
        n >>= 7
        if not n:
            break
    return bytes([tag]) + bytes(v) + body


URL = b"type.googleapis.com/google.protobuf.Any"
depth, tail = int(sys.argv[1]), bytes.fromhex(sys.argv[3])
body = tail
for _ in range(depth):
    if sys.argv[2] == "any":
        body = wrap(0x0a, URL) + wrap(0x12, body)
    else:
        body = wrap(int(sys.argv[2], 16), body)
if len(sys.argv) > 4:
    body = wrap(int(sys.argv[4], 16), body)
sys.stdout.buffer.write(body)
