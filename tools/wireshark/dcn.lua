-- Wireshark/tshark dissector for the DCN header of dcn-testbed (EtherType
-- 0x88B5), as specified byte for byte in docs/protocol.md. Install with
-- `make wireshark-plugin`, or load once with `tshark -X lua_script:dcn.lua`.
--
-- Checks follow the agent's codec (agent/src/agent/core/proto.c) in the same
-- order, and name a malformed frame with the tokens dcn-dump prints
-- (agent/src/dump/dump_decode.h): truncated, bad-version, bad-extension,
-- bad-checksum, unknown-type, nhi-beyond-path, nhi-zero, and, with the
-- BCube preferences set, bad-src, not-neighbor, loop, wrong-dst.
--
-- Without a topology the NHA path is shown raw, as port/index per hop
-- ("[0/3],1/1": the hop being crossed, NHA[NHI-1], in brackets). With the
-- preferences dcn.bcube_n and dcn.bcube_k (a full BCube_k(n), e.g.
-- -o dcn.bcube_n:4 -o dcn.bcube_k:1) servers get their names (h00, h13)
-- and the path is walked server by server ("h00,[h03],h13": the frame
-- travels to server NHI). Other families: use dcn-dump --topo.

local dcn = Proto("dcn", "DCN source-routing header")

-- The header's constants, named as agent/src/agent/core/wire.h defines them
-- for the agent and its kernel relay (without the DCN_ prefix); that file is
-- the definition, and tests/unit/wire_lua.sh fails when this table differs.
local W = {
    ETHERTYPE = 0x88B5, ETH_HLEN = 14, VERSION = 1, HDR_FIXED = 28, HDR_BASE = 36, PROTO_IPV4 = 0x0800,
    FLAG_MDCUBE = 0x01, FLAG_SEGMENTED = 0x02,
    T_DATA = 1, T_PROBE = 2, T_PROBE_RESP = 3, T_PATH_FAIL = 4, T_HELLO = 5, T_UNREACH = 6,
    OFF_VERSION = 0, OFF_TYPE = 1, OFF_FLAGS = 2, OFF_NHOPS = 3, OFF_SRC = 4, OFF_DST = 8, OFF_PKTID = 12,
    OFF_PROTO = 14, OFF_PLEN = 16, OFF_CSUM = 18, OFF_NHI = 20, OFF_AVAIL = 24, OFF_NHA = 28,
}

local TYPES = { [W.T_DATA] = "data", [W.T_PROBE] = "probe", [W.T_PROBE_RESP] = "probe-response",
    [W.T_PATH_FAIL] = "path-failure", [W.T_HELLO] = "hello", [W.T_UNREACH] = "unreachable" }
local CSUM_STATUS = { [0] = "Bad", [1] = "Good", [2] = "Unverified" }
local FIXED, BROADCAST, MAX_CONTAINERS, PATH_MAX_NODES = W.HDR_FIXED, 0xFFFFFFFF, 16, 160

local f = dcn.fields
f.version = ProtoField.uint8("dcn.version", "Version")
f.type = ProtoField.uint8("dcn.type", "Type", base.DEC, TYPES)
f.type_name = ProtoField.string("dcn.type_name", "Type name")
f.flags = ProtoField.uint8("dcn.flags", "Flags", base.HEX)
f.flag_mdcube = ProtoField.bool("dcn.flags.mdcube", "MDCube extension present", 8, nil, 0x01)
f.flag_segmented = ProtoField.bool("dcn.flags.segmented", "Segmented (hierarchical MDCube routing)", 8, nil, 0x02)
f.nhops = ProtoField.uint8("dcn.nhops", "Server hops (NHAs)")
f.src = ProtoField.uint32("dcn.src", "Source server")
f.dst = ProtoField.uint32("dcn.dst", "Destination server")
f.src_name = ProtoField.string("dcn.src_name", "Source server name")
f.dst_name = ProtoField.string("dcn.dst_name", "Destination server name")
f.pkt_id = ProtoField.uint16("dcn.id", "Packet id")
f.proto = ProtoField.uint16("dcn.proto", "Protocol type", base.HEX)
f.plen = ProtoField.uint16("dcn.len", "Payload length")
f.csum = ProtoField.uint16("dcn.checksum", "Header checksum", base.HEX)
f.csum_status = ProtoField.uint8("dcn.checksum.status", "Header checksum status", base.DEC, CSUM_STATUS)
f.nhi = ProtoField.uint8("dcn.nhi", "Next hop index (NHI)")
f.reserved = ProtoField.uint24("dcn.reserved", "Reserved", base.HEX)
f.avail = ProtoField.uint32("dcn.bw", "Available bandwidth (Mb/s)")
f.nha = ProtoField.uint8("dcn.nha", "NHA", base.HEX)
f.nha_port = ProtoField.uint8("dcn.nha.port", "Out port", base.DEC, nil, 0xC0)
f.nha_index = ProtoField.uint8("dcn.nha.index", "Index (switch port; 63 = direct cable)", base.DEC, nil, 0x3F)
f.nha_pad = ProtoField.bytes("dcn.nha.padding", "NHA padding")
f.hop_server = ProtoField.uint32("dcn.path.server", "Server on the path")
f.path = ProtoField.string("dcn.path", "Path (servers, receiver in brackets)")
f.path_raw = ProtoField.string("dcn.path_raw", "Path (NHAs as port/index, hop being crossed in brackets)")
f.ext_count = ProtoField.uint8("dcn.mdcube.count", "Containers listed")
f.ext_index = ProtoField.uint8("dcn.mdcube.index", "Next container index")
f.ext_seg_start = ProtoField.uint8("dcn.mdcube.segment_start", "Segment start (NHA index)", base.DEC)
f.ext_reserved = ProtoField.uint8("dcn.mdcube.reserved", "Reserved", base.HEX)
f.ext_flow = ProtoField.uint32("dcn.mdcube.flow", "Flow id", base.HEX)
f.ext_container = ProtoField.uint32("dcn.mdcube.container", "Container")
f.probe_seq = ProtoField.uint32("dcn.probe.seq", "Probe sequence")
f.probe_src = ProtoField.ipv4("dcn.probe.src_ip", "Flow source IP")
f.probe_dst = ProtoField.ipv4("dcn.probe.dst_ip", "Flow destination IP")
f.probe_sport = ProtoField.uint16("dcn.probe.src_port", "Flow source port")
f.probe_dport = ProtoField.uint16("dcn.probe.dst_port", "Flow destination port")
f.probe_proto = ProtoField.uint8("dcn.probe.proto", "Flow IP protocol")
f.probe_pad = ProtoField.uint24("dcn.probe.pad", "Padding", base.HEX)
f.fail_a = ProtoField.uint32("dcn.failure.node_a", "Failed link, node a")
f.fail_b = ProtoField.uint32("dcn.failure.node_b", "Failed link, node b")
f.fail_type = ProtoField.uint8("dcn.failure.type", "Type of the dropped packet", base.DEC, TYPES)
f.fail_pad = ProtoField.uint8("dcn.failure.pad", "Padding", base.HEX)
f.fail_id = ProtoField.uint16("dcn.failure.id", "Id of the dropped packet")
f.hello_port = ProtoField.uint8("dcn.hello.port", "Sender's port")
f.hello_flags = ProtoField.uint8("dcn.hello.flags", "Flags (0x01: the heard set follows)", base.HEX)
f.hello_ms = ProtoField.uint16("dcn.hello.interval", "Hello interval (ms)")
f.hello_reserved = ProtoField.uint32("dcn.hello.reserved", "Reserved", base.HEX)
f.hello_heard = ProtoField.uint64("dcn.hello.heard", "Neighbours the sender's port hears (bit i: its neighbour i)", base.HEX)
f.unreach_flow = ProtoField.uint32("dcn.unreach.flow", "Flow id", base.HEX)
f.unreach_dst = ProtoField.uint32("dcn.unreach.orig_dst", "Original destination server")
f.unreach_from = ProtoField.uint32("dcn.unreach.from_container", "Container it was sent from")
f.unreach_to = ProtoField.uint32("dcn.unreach.to_container", "Container it could not reach")
f.payload_short = ProtoField.string("dcn.payload_short", "Control payload too short")
f.malformed = ProtoField.string("dcn.malformed", "Malformed")

local e_csum = ProtoExpert.new("dcn.checksum.bad", "Bad DCN header checksum", expert.group.CHECKSUM,
    expert.severity.ERROR)
local e_malformed = ProtoExpert.new("dcn.malformed.expert", "Malformed DCN frame", expert.group.MALFORMED,
    expert.severity.ERROR)
local e_short = ProtoExpert.new("dcn.payload_short.expert", "DCN control payload too short", expert.group.MALFORMED,
    expert.severity.WARN)
dcn.experts = { e_csum, e_malformed, e_short }

dcn.prefs.bcube_n = Pref.uint("BCube n", 0, "Switch ports of a full BCube_k(n); 0: no topology (raw NHAs)")
dcn.prefs.bcube_k = Pref.uint("BCube k", 0, "Top level of the BCube (servers have k+1 ports)")

local ip_dissector = Dissector.get("ip")
local B36 = "0123456789abcdefghijklmnopqrstuvwxyz"

local function nha_bytes(nhops)
    local n = math.floor((nhops + 3) / 4) * 4
    if n < 8 then return 8 end
    return n
end

-- The BCube in the preferences, or nil.
local function bcube()
    local n, k = dcn.prefs.bcube_n, dcn.prefs.bcube_k
    if n < 2 or n > 64 or k > 7 then return nil end
    return { n = n, k = k, servers = n ^ (k + 1) }
end

local function digit(b, addr, level)
    return math.floor(addr / b.n ^ level) % b.n
end

local function server_name(b, addr)
    if addr == BROADCAST then return "*" end
    if not b or addr >= b.servers then return tostring(addr) end
    local s = "h"
    for l = b.k, 0, -1 do
        local d = digit(b, addr, l)
        if b.n <= 36 then s = s .. B36:sub(d + 1, d + 1) else s = s .. string.format("%02d", d) end
    end
    return s
end

-- Walks the NHAs from src like nha_walk(): the servers, or nil and a reason.
local function bcube_walk(b, src, dst, nha)
    if src >= b.servers then return nil, "bad-src" end
    local servers, u = { src }, src
    for h = 1, #nha do
        local port, idx = math.floor(nha[h] / 64), nha[h] % 64
        if port > b.k or idx == 63 or idx >= b.n then return nil, "not-neighbor" end
        local d = digit(b, u, port)
        if idx == d then return nil, "not-neighbor" end
        if 1 + 2 * h > PATH_MAX_NODES then return nil, "loop" end
        local v = u + (idx - d) * b.n ^ port
        for _, s in ipairs(servers) do
            if s == v then return nil, "loop" end
        end
        servers[#servers + 1] = v
        u = v
    end
    if dst and u ~= dst then return nil, "wrong-dst" end
    return servers
end

-- Internet checksum over the header: true when it verifies.
local function checksum_ok(tvb, len)
    local sum = 0
    for i = 0, len - 2, 2 do sum = sum + tvb(i, 2):uint() end
    while sum > 0xFFFF do sum = (sum % 0x10000) + math.floor(sum / 0x10000) end
    return sum == 0xFFFF
end

local function raw_path(nha, nhi, nhops)
    local parts = {}
    for i = 1, nhops do
        if nha[i] == nil then
            parts[#parts + 1] = "..."
            break
        end
        local s = string.format("%d/%d", math.floor(nha[i] / 64), nha[i] % 64)
        if i == nhi then s = "[" .. s .. "]" end
        parts[#parts + 1] = s
    end
    if #parts == 0 then return "-" end
    return table.concat(parts, ",")
end

local function named_path(b, servers, nhi)
    local parts = {}
    for i, s in ipairs(servers) do
        local nm = server_name(b, s)
        if i - 1 == nhi then nm = "[" .. nm .. "]" end
        parts[i] = nm
    end
    return table.concat(parts, ",")
end

-- Control payloads by type (docs/protocol.md, "Packet types and payloads";
-- sizes of proto.h): name and bytes. The agent drops a control packet whose
-- payload length is below its type's size (drop_bad_payload), so such a
-- payload is not decoded; it gets dcn.payload_short and an expert warning.
-- This is no dcn.malformed token: the codec accepts the header, and
-- dcn-dump (which prints no payload fields then either) says nothing.
local PAYLOADS = { [W.T_PROBE] = { "Probe", 20 }, [W.T_PROBE_RESP] = { "Probe", 20 },
    [W.T_PATH_FAIL] = { "Path failure", 12 }, [W.T_HELLO] = { "Hello", 8 }, [W.T_UNREACH] = { "Unreachable", 16 } }

local function payload_fields(tree, tvb, off, len, ty, plen)
    local spec = PAYLOADS[ty]
    if not spec then return end
    local name, size = spec[1], spec[2]
    local n = math.min(len - off, plen) -- the bytes the agent reads: the payload length, as captured
    if n < size then
        local why = string.format("%s payload of %d bytes, %d expected", name:lower(), n, size)
        local item = tree:add(f.payload_short, why)
        item:set_generated()
        item:add_proto_expert_info(e_short, "DCN control payload too short: " .. why)
        return
    end
    local p = tree:add(dcn, tvb(off, size), name)
    if ty == W.T_PROBE or ty == W.T_PROBE_RESP then
        p:add(f.probe_seq, tvb(off, 4))
        p:add(f.probe_src, tvb(off + 4, 4))
        p:add(f.probe_dst, tvb(off + 8, 4))
        p:add(f.probe_sport, tvb(off + 12, 2))
        p:add(f.probe_dport, tvb(off + 14, 2))
        p:add(f.probe_proto, tvb(off + 16, 1))
        p:add(f.probe_pad, tvb(off + 17, 3))
    elseif ty == W.T_PATH_FAIL then
        p:add(f.fail_a, tvb(off, 4))
        p:add(f.fail_b, tvb(off + 4, 4))
        p:add(f.fail_type, tvb(off + 8, 1))
        p:add(f.fail_pad, tvb(off + 9, 1))
        p:add(f.fail_id, tvb(off + 10, 2))
    elseif ty == W.T_HELLO then
        p:add(f.hello_port, tvb(off, 1))
        p:add(f.hello_flags, tvb(off + 1, 1))
        p:add(f.hello_ms, tvb(off + 2, 2))
        p:add(f.hello_reserved, tvb(off + 4, 4))
        -- the heard set (16-byte hellos; an 8-byte hello has none)
        if n >= 16 and tvb(off + 1, 1):uint() % 2 == 1 then
            p:add(f.hello_heard, tvb(off + 8, 8))
        end
    elseif ty == W.T_UNREACH then
        local b = bcube()
        p:add(f.unreach_flow, tvb(off, 4))
        p:add(f.unreach_dst, tvb(off + 4, 4)):append_text(" (" .. server_name(b, tvb(off + 4, 4):uint()) .. ")")
        p:add(f.unreach_from, tvb(off + 8, 4))
        p:add(f.unreach_to, tvb(off + 12, 4))
    end
end

local function mark_malformed(tree, pinfo, why)
    tree:add(f.malformed, why):set_generated()
    tree:add_proto_expert_info(e_malformed, "Malformed DCN frame: " .. why)
    pinfo.cols.info:append(" [MALFORMED " .. why .. "]")
end

function dcn.dissector(tvb, pinfo, tree)
    local len = tvb:len()
    pinfo.cols.protocol = "DCN"
    pinfo.cols.info = "DCN"
    local t = tree:add(dcn, tvb())
    if len < FIXED then -- the codec checks the length first, whatever the version
        mark_malformed(t, pinfo, "truncated")
        return len
    end
    local version = tvb(W.OFF_VERSION, 1):uint()
    t:add(f.version, tvb(W.OFF_VERSION, 1))
    if version ~= W.VERSION then
        mark_malformed(t, pinfo, "bad-version")
        return len
    end
    local ty, flags, nhops = tvb(W.OFF_TYPE, 1):uint(), tvb(W.OFF_FLAGS, 1):uint(), tvb(W.OFF_NHOPS, 1):uint()
    local src, dst = tvb(W.OFF_SRC, 4):uint(), tvb(W.OFF_DST, 4):uint()
    local plen, nhi = tvb(W.OFF_PLEN, 2):uint(), tvb(W.OFF_NHI, 1):uint()
    local b = bcube()
    local tyname = TYPES[ty] or ("type-" .. ty)
    t:add(f.type, tvb(W.OFF_TYPE, 1))
    t:add(f.type_name, tyname):set_generated()
    local fl = t:add(f.flags, tvb(W.OFF_FLAGS, 1))
    fl:add(f.flag_mdcube, tvb(W.OFF_FLAGS, 1))
    fl:add(f.flag_segmented, tvb(W.OFF_FLAGS, 1))
    t:add(f.nhops, tvb(W.OFF_NHOPS, 1))
    t:add(f.src, tvb(W.OFF_SRC, 4)):append_text(" (" .. server_name(b, src) .. ")")
    t:add(f.dst, tvb(W.OFF_DST, 4)):append_text(" (" .. server_name(b, dst) .. ")")
    if b then
        t:add(f.src_name, server_name(b, src)):set_generated()
        t:add(f.dst_name, server_name(b, dst)):set_generated()
    end
    t:add(f.pkt_id, tvb(W.OFF_PKTID, 2))
    t:add(f.proto, tvb(W.OFF_PROTO, 2))
    t:add(f.plen, tvb(W.OFF_PLEN, 2))
    local csum_item = t:add(f.csum, tvb(W.OFF_CSUM, 2))
    t:add(f.nhi, tvb(W.OFF_NHI, 1))
    t:add(f.reserved, tvb(W.OFF_NHI + 1, W.OFF_AVAIL - W.OFF_NHI - 1))
    t:add(f.avail, tvb(W.OFF_AVAIL, 4))

    -- The NHA array, as far as it is captured.
    local nha = {}
    local nt = t:add(dcn, tvb(W.OFF_NHA, math.min(nha_bytes(nhops), len - W.OFF_NHA)), "NHA path")
    for i = 1, nhops do
        local off = W.OFF_NHA + i - 1
        if off >= len then break end
        nha[i] = tvb(off, 1):uint()
        local item = nt:add(f.nha, tvb(off, 1))
        item:prepend_text(string.format("hop %d: ", i - 1))
        item:append_text(string.format(" (port %d, index %d%s)", math.floor(nha[i] / 64), nha[i] % 64,
            nha[i] % 64 == 63 and ", direct cable" or ""))
        if i == nhi then item:append_text(" [hop being crossed]") end
        item:add(f.nha_port, tvb(off, 1))
        item:add(f.nha_index, tvb(off, 1))
    end
    if nhops < nha_bytes(nhops) and len >= FIXED + nha_bytes(nhops) then
        nt:add(f.nha_pad, tvb(FIXED + nhops, nha_bytes(nhops) - nhops))
    end

    -- Header length and the codec's checks, in its order.
    local n, malformed, ext_ok = FIXED + nha_bytes(nhops), nil, false
    local segmented = math.floor(flags / W.FLAG_SEGMENTED) % 2 == 1
    local mdcube = math.floor(flags / W.FLAG_MDCUBE) % 2 == 1
    if segmented and not mdcube then
        malformed = "bad-extension"
    elseif mdcube then
        if len < n + 8 then
            malformed = "truncated"
        else
            local count, idx = tvb(n, 1):uint(), tvb(n + 1, 1):uint()
            local e = t:add(dcn, tvb(n, math.min(8 + 4 * count, len - n)), "MDCube extension")
            e:add(f.ext_count, tvb(n, 1))
            e:add(f.ext_index, tvb(n + 1, 1))
            local seg = tvb(n + 2, 1):uint()
            e:add(f.ext_seg_start, tvb(n + 2, 1))
            e:add(f.ext_reserved, tvb(n + 3, 1))
            e:add(f.ext_flow, tvb(n + 4, 4))
            if count > MAX_CONTAINERS or idx > count or seg > nhops or (seg ~= 0 and not segmented) then
                malformed = "bad-extension"
            else
                for i = 0, count - 1 do
                    local off = n + 8 + 4 * i
                    if off + 4 > len then break end
                    local c = e:add(f.ext_container, tvb(off, 4))
                    if i == idx then c:append_text(" [next to reach]") end
                end
                ext_ok = true
            end
            n = n + 8 + 4 * count
            if not malformed and len < n then malformed = "truncated" end
        end
    end
    if not malformed and len < n then malformed = "truncated" end
    if not malformed then
        if checksum_ok(tvb, n) then
            t:add(f.csum_status, 1):set_generated()
        else
            t:add(f.csum_status, 0):set_generated()
            csum_item:add_proto_expert_info(e_csum)
            malformed = "bad-checksum"
        end
        if not malformed and len - n < plen then malformed = "truncated" end
    else
        t:add(f.csum_status, 2):set_generated()
    end

    -- The header's own rules, then the path over the topology.
    local servers, why
    if not malformed then
        if not TYPES[ty] then
            malformed = "unknown-type"
        elseif ty ~= 5 then
            if nhi > nhops then
                malformed = "nhi-beyond-path"
            elseif nhi == 0 then
                malformed = "nhi-zero"
            elseif b then
                servers, why = bcube_walk(b, src, (not segmented) and dst or nil, nha)
                malformed = why
            end
        end
    end
    local raw = ty == W.T_HELLO and nhops == 0 and "-" or raw_path(nha, nhi, nhops)
    t:add(f.path_raw, raw):set_generated()
    local shown = raw
    if servers then
        shown = named_path(b, servers, nhi)
        t:add(f.path, shown):set_generated()
        for _, s in ipairs(servers) do
            t:add(f.hop_server, s):append_text(" (" .. server_name(b, s) .. ")"):set_generated()
        end
    end
    local summary = string.format("%s %s > %s nhi %d/%d path %s", tyname, server_name(b, src),
        server_name(b, dst), nhi, nhops, shown)
    pinfo.cols.info = summary
    if malformed then mark_malformed(t, pinfo, malformed) end
    t:set_len(math.min(n, len))

    -- The payload: IPv4 to Wireshark's own dissector, control payloads here
    -- (also an empty one: a control payload shorter than its type's is flagged).
    if n <= len and (not malformed or malformed ~= "truncated") then
        if ty == W.T_DATA and tvb(W.OFF_PROTO, 2):uint() == W.PROTO_IPV4 then
            if n < len then
                ip_dissector:call(tvb(n):tvb(), pinfo, tree)
                -- keep the DCN summary (and any MALFORMED flag) in front of IP's
                pinfo.cols.info:prepend(summary .. (malformed and (" [MALFORMED " .. malformed .. "]") or "") .. " | ")
            end
        else
            payload_fields(t, tvb, n, len, ty, plen)
        end
    end
    return len
end

DissectorTable.get("ethertype"):add(W.ETHERTYPE, dcn)
