#!/usr/bin/env bash
# The dcn-topo command line: bad input gives one clear line and exit status 2.
set -u
T=$1
fail=0; pass=0
expect() { # expect STATUS PATTERN -- ARGS...
  local want=$1 pat=$2; shift 3
  local err; err=$("$T" "$@" 2>&1 >/dev/null); local rc=$?
  if [ "$rc" != "$want" ] || ! grep -qE -- "$pat" <<<"$err"; then
    echo "FAIL: dcn-topo $* -> rc=$rc, stderr='$err' (want rc=$want, /$pat/)"; fail=$((fail+1))
  else pass=$((pass+1)); fi
}
expect 2 "unknown topology family 'nosuch'" -- export nosuch n=2
expect 2 "leaves=0 is out of range \(allowed 1\.\.1024\)" -- export tree leaves=0
expect 2 "leaves=abc is not an integer" -- export tree leaves=abc
expect 2 "unknown parameter 'x'" -- export tree x=1
expect 2 "given twice" -- export tree leaves=2 leaves=3
expect 2 "not of the form key=value" -- export tree leaves
expect 2 "no node named 'h99'" -- paths tree h0 h99
expect 2 "is a switch" -- paths tree h0 s1
expect 2 "no algorithm 'nope'" -- paths tree h0 h1 --algo nope
expect 2 "not cabled together" -- paths tree h0 h5 --fail-link h0,h5
expect 2 "unknown command" -- frobnicate tree
expect 2 "usage" --
# replicas (Theorem 4) and trees (BuildMultipleSPTs): bcube only, valid names.
expect 2 "works on the bcube family only, not tree" -- replicas tree h0 h1
expect 2 "works on the bcube family only, not mdcube" -- trees mdcube h00
expect 2 "target h11 is not a one-digit neighbour of the source \(source h00\)" -- replicas bcube n=4 k=1 h00 h11
expect 2 "target h00 is not a one-digit neighbour" -- replicas bcube n=4 k=1 h00 h00
expect 2 "target h02 is on the same level as an earlier target" -- replicas bcube n=4 k=1 h00 h01 h02
expect 2 "3 targets, at most k\+1 = 2" -- replicas bcube n=4 k=1 h00 h01 h10 h20
expect 2 "no node named 'h99'" -- replicas bcube n=4 k=1 h00 h99
expect 2 "no node named 'h44'" -- replicas bcube n=4 k=1 h44 h01
expect 2 "is a switch" -- replicas bcube n=4 k=1 h00 s0_0
expect 2 "needs SRC and at least one TARGET" -- replicas bcube n=4 k=1 h00
expect 2 "n=1 is out of range" -- replicas bcube n=1 k=1 h00 h01
expect 2 "is a switch" -- trees bcube n=4 k=1 s0_0
expect 2 "no node named 'h4'" -- trees bcube n=4 k=1 h4
expect 2 "exactly one SRC" -- trees bcube n=4 k=1 h00 h01
expect 2 "exactly one SRC" -- trees bcube n=4 k=1
expect 2 "needs a full BCube \(parts=n\)" -- trees bcube n=4 k=1 parts=2 h00
expect 2 "32768 servers, at most 4096" -- trees bcube n=8 k=4 h00000
# bfs and components (the server graph's BFS tree, components under failures)
expect 2 "no node named 'h99'" -- bfs bcube n=4 k=1 h99
expect 2 "is a switch" -- bfs bcube n=4 k=1 s0_0
expect 2 "usage" -- bfs bcube
expect 2 "no node named 'nosuch'" -- bfs bcube n=4 k=1 h00 --fail-node nosuch
expect 2 "no node named 'q'" -- components bcube n=4 k=1 --fail-node q
expect 2 "not cabled together" -- components bcube n=4 k=1 --fail-link h00,h01
expect 2 "takes NODE,NODE" -- components bcube n=4 k=1 --fail-link h00
expect 2 "n=1 is out of range" -- components bcube n=1
# connectivity (the server graph's vertex connectivity): bounded, no failures
expect 2 "connectivity takes no --fail-node or --fail-link" -- connectivity bcube n=4 k=1 --fail-node h00
expect 2 "connectivity takes no --fail-node or --fail-link" -- connectivity bcube n=4 k=1 --fail-link h00,s0_0
expect 2 "export takes no --fail-node or --fail-link" -- export bcube n=4 k=1 --fail-node h00
expect 2 "stats takes no --fail-node or --fail-link" -- stats bcube n=4 k=1 --fail-link h00,s0_0
expect 2 "connectivity: 11264 servers, at most 8192" -- connectivity bcdc n=11
expect 2 "connectivity: the server graph has more than 262144 edges \(at most 262144\)" -- connectivity tree leaves=2 per_leaf=512
expect 2 "not of the form key=value" -- connectivity bcube n=4 k=1 h00
expect 2 "usage" -- connectivity
good() { # good DESCRIPTION PYTHON-CHECK -- ARGS...
  local what=$1 check=$2; shift 3
  if "$T" "$@" | /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); $check"; then pass=$((pass+1));
  else echo "FAIL: $what: dcn-topo $*"; fail=$((fail+1)); fi
}
good "replicas: 01 and 10 exchange via 11" 'e={(x["from"],x["to"]):x for x in d["edges"]}; assert len(e)==6 and d["targets"]=={"h01":0,"h10":1}; assert e[("h01","h10")]["path"]==["h01","s1_1","h11","s0_1","h10"] and e[("h10","h01")]["via"]=="h11"; assert e[("h00","h01")]["path"]==["h00","s0_0","h01"] and e[("h00","h01")]["via"] is None' -- replicas bcube n=4 k=1 h00 h01 h10
good "trees: the notes' two trees from 00" 't=d["trees"]; assert len(t)==2 and d["servers"]==16; assert [x["root"] for x in t]==["h01","h10"] and [x["depth"] for x in t]==[7,7]; assert t[0]["parent"]["h10"]=="h13" and t[1]["parent"]["h01"]=="h31" and t[1]["level"]["h01"]==1; assert all(len(x["parent"])==15 and len(x["edges"])==15 and sum(map(len,x["children"].values()))==15 for x in t); assert t[0]["children"]["h00"]==["h01"] and t[0]["edges"][0]["path"]==["h00","s0_0","h01"]' -- trees bcube n=4 k=1 h00
good "trees: BCube_3 n=4, 4 trees of depth 13" 'assert [x["depth"] for x in d["trees"]]==[13]*4 and len({(e["parent"],e["child"]) for x in d["trees"] for e in x["edges"]})==4*255' -- trees bcube n=4 k=3 h0123
good "bfs: h01 behind h11 when s0_0 is down" 'assert d["reached"]==16 and d["distance"]["h01"]==3 and d["parent"]["h01"]=="h11" and d["parent"]["h00"] is None and list(d["distance"])[:4]==["h00","h10","h20","h30"]' -- bfs bcube n=4 k=1 h00 --fail-node s0_0
good "bfs: a failed source reaches nothing" 'assert d["reached"]==0 and d["distance"]=={}' -- bfs bcube n=4 k=1 h00 --fail-node h00
good "components: h00 cut off" 'c=d["component"]; assert d["components"]==2 and c["h00"]==0 and set(c.values())=={0,1} and c["h33"]==1' -- components bcube n=4 k=1 --fail-node s0_0 --fail-node s1_0
good "components: a failed server is null" 'c=d["component"]; assert d["components"]==1 and c["h5"] is None and c["h0"]==0' -- components tree --fail-node h5
good "connectivity: BCube_1 n=4 is (k+1)(n-1) = 6-connected" 'assert (d["servers"],d["edges"],d["degree_min"],d["connectivity"])==(16,48,6,6) and len(d["cut"])==6 and len(set(d["separates"]))==2 and not set(d["cut"])&set(d["separates"])' -- connectivity bcube n=4 k=1
good "connectivity: a tree's server graph is complete" 'assert d["connectivity"]==15 and d["separates"] is None and len(d["cut"])==15 and d["max_flows"]==0' -- connectivity tree
# the cut B_4 prints parts its pair once its servers fail (dcn-topo components)
if /usr/bin/python3 - "$T" <<'PY'
import json, subprocess, sys
def run(*words):
    return json.loads(subprocess.run([sys.argv[1], *words], capture_output=True, text=True, check=True).stdout)
d = run("connectivity", "bcdc", "n=4")
c = run("components", "bcdc", "n=4", *[w for s in d["cut"] for w in ("--fail-node", s)])["component"]
a, b = d["separates"]
assert d["connectivity"] == 6 and len(d["cut"]) == 6 and c[a] is not None and c[a] != c[b], (d, c)
PY
then pass=$((pass+1)); else echo "FAIL: connectivity: the cut of bcdc n=4 does not part its pair"; fail=$((fail+1)); fi
# A good call succeeds and prints JSON.
if "$T" export tree | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["servers"])==16' ; then pass=$((pass+1)); else echo "FAIL: export tree"; fail=$((fail+1)); fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
