#!/bin/sh
# The Wireshark dissector's table of the header's constants (W in
# tools/wireshark/dcn.lua) against their one definition,
# agent/src/agent/core/wire.h: the same names (without DCN_) and values,
# none missing on either side. Usage: wire_lua.sh SOURCE_DIR
set -eu
src=${1:?usage: wire_lua.sh SOURCE_DIR}
exec /usr/bin/python3 - "$src/agent/src/agent/core/wire.h" "$src/tools/wireshark/dcn.lua" <<'PY'
import re, sys
h, lua = (open(p).read() for p in sys.argv[1:3])
c = {m.group(1): int(m.group(2), 0) for m in re.finditer(r"^#define DCN_(\w+) (0x[0-9A-Fa-f]+|\d+)\b", h, re.M)}
block = re.search(r"^local W = \{(.*?)^\}", lua, re.S | re.M)
if not block:
    sys.exit("wire_lua: no 'local W = { ... }' table in %s" % sys.argv[2])
w = {k: int(v, 0) for k, v in re.findall(r"(\w+) = (0x[0-9A-Fa-f]+|\d+)", block.group(1))}
bad = ["%s: wire.h %s, dcn.lua %s" % (k, c.get(k), w.get(k)) for k in sorted(set(c) | set(w)) if c.get(k) != w.get(k)]
if len(c) < 20 or bad:
    sys.exit("wire_lua: dcn.lua's W differs from wire.h (%d constants there):\n  %s" % (len(c), "\n  ".join(bad)))
print("wire_lua: %d constants agree" % len(c))
PY
