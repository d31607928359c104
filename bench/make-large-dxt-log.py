#!/usr/bin/env python3
"""Makes a Darshan log with many DXT segments from a real one, to measure how memory grows
with a log's segments (BENCHMARKS.md, "A log's DXT segments left in the file").

    bench/make-large-dxt-log.py SOURCE.darshan COPIES OUT.darshan

SOURCE is a format 3.21 log with a DXT_POSIX region (the corpus's jlbez log). OUT holds its
DXT_POSIX records COPIES times over, each copy a zlib stream of its own (as ranks write them),
appended after the original bytes with the header's DXT_POSIX entry pointed at it. Everything
else is the source's. The log is made, not committed.
"""

import struct
import sys
import zlib

HEADER_FORMAT_321 = b"3.21"
# DXT_POSIX is module 10; format 3.21 has no slot for PnetCDF variables (module 6, added in
# 3.41), so its slot is the 10th, index 9.
DXT_POSIX_SLOT = 9
MODULE_MAPS = 40  # the 16 (offset, length) pairs of format 3.21 start here


def inflate_streams(region: bytes) -> bytes:
    out = bytearray()
    rest = region
    while rest:
        decoder = zlib.decompressobj()
        out += decoder.decompress(rest)
        rest = decoder.unused_data
        if not decoder.eof:
            break
    return bytes(out)


def main() -> None:
    source, copies, target = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    data = bytearray(open(source, "rb").read())
    if not data.startswith(HEADER_FORMAT_321):
        sys.exit(f"{source}: format {data[:4]!r}; this script reads 3.21 headers")
    at = MODULE_MAPS + 16 * DXT_POSIX_SLOT
    offset, length = struct.unpack_from("<QQ", data, at)
    if length == 0:
        sys.exit(f"{source}: no DXT_POSIX region")
    records = inflate_streams(bytes(data[offset : offset + length]))
    stream = zlib.compress(records, 1)
    region = stream * copies
    struct.pack_into("<QQ", data, at, len(data), len(region))
    with open(target, "wb") as out:
        out.write(data)
        out.write(region)
    print(f"{target}: {copies} copies of {len(records):,} bytes of DXT_POSIX records "
          f"({copies * len(records):,} decompressed, {len(region):,} compressed)")


if __name__ == "__main__":
    main()
