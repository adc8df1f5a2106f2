// dcn-view: draws /api/topology as SVG and polls /api/state (the contract is the
// orchestrator's view API: class/data-* names below are what the tests query).
// Every string from the testbed goes into the DOM as textContent or an attribute.
'use strict';
(() => {
  const SVGNS = 'http://www.w3.org/2000/svg';
  const POLL_MS = 1000, RETRY_MS = 2000, TIMEOUT_MS = 10000, SERVER_MS = 1000;
  const BIG = 600;             // more nodes: no labels, thin strokes
  const EAGER_TITLES = 1500;   // up to this many links, tooltips are rewritten each poll
  const FLOWS_DRAWN = 40;      // more flows: only the hovered one's and the selected server's paths are drawn
  const GREY = [176, 176, 176], YELLOW = [245, 196, 0], RED = [215, 25, 28], UNKNOWN = '#dddddd';

  const $ = (id) => document.getElementById(id);
  const svg = $('net');
  let topo = null, geo = null;
  let timer = null, busy = false;
  let selected = null, serverBusy = false, serverAt = 0;
  let hlFlow = null;
  const flowEls = new Map();   // server|5-tuple -> its polyline and list entry, kept across polls
  let vb = null, fitVB = null, drag = null, dragged = false;

  function svgEl(tag, attrs, parent, text) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k] == null ? '' : attrs[k]);
    if (text != null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function htmlEl(tag, cls, parent, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  async function getJSON(url) {
    const ctl = new AbortController();
    const t = setTimeout(() => ctl.abort(), TIMEOUT_MS);
    try {
      const r = await fetch(url, {cache: 'no-store', signal: ctl.signal});
      const body = await r.json().catch(() => null);
      if (r.ok && body === null) throw new Error(`${url}: not JSON`);
      if (!r.ok) {
        const e = new Error((body && body.error) || `HTTP ${r.status}`);
        e.status = r.status;
        throw e;
      }
      return body;
    } catch (e) {
      throw ctl.signal.aborted ? new Error(`no answer in ${TIMEOUT_MS / 1000} s`) : e;
    } finally {
      clearTimeout(t);
    }
  }

  // ---- numbers and colours
  const num = (v, d = 1) => (typeof v === 'number' && isFinite(v)) ? v.toFixed(d) : '?';
  const cap = (v) => Number.isInteger(v) ? String(v) : num(v);
  const endsKey = (a, b) => a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
  function loadColour(v, mbps) {
    if (typeof v !== 'number' || !(mbps > 0)) return UNKNOWN;
    const f = Math.max(0, Math.min(1, v / mbps));
    const [c0, c1, u] = f < 0.5 ? [GREY, YELLOW, f * 2] : [YELLOW, RED, f * 2 - 1];
    return `rgb(${c0.map((c, i) => Math.round(c + (c1[i] - c) * u)).join(',')})`;
  }
  // the 5-tuple; MDCube's flows, assembled from its agents' segments, by their flow id
  function flowKey(f) { return [f.src, f.dst, f.proto, f.sport, f.dport, f.flow_id ?? ''].join('|'); }
  function flowColour(key) {   // FNV-1a of the 5-tuple; hues 80..340 keep clear of the load colours
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
    return `hsl(${80 + h % 260}, 70%, 42%)`;
  }
  function duration(s) {
    if (typeof s !== 'number') return '';
    const m = Math.floor(s / 60), h = Math.floor(m / 60);
    return h ? `${h} h ${m % 60} min` : m ? `${m} min ${Math.floor(s % 60)} s` : `${num(s)} s`;
  }
  const clock = (t) => new Date(t * 1000).toLocaleTimeString([], {hour12: false});

  // ---- the topology
  function nodeGap(nodes, w, h) {   // the smallest distance between two nodes (grid hashing)
    if (nodes.length < 2) return Math.max(w, h, 1);
    const cell = Math.max(Math.sqrt(Math.max(w * h, 1e-6) / nodes.length), 1e-6);
    const grid = new Map(), cellOf = (p) => [Math.floor(p.x / cell), Math.floor(p.y / cell)];
    for (const p of nodes) {
      const k = cellOf(p).join();
      if (!grid.has(k)) grid.set(k, []);
      grid.get(k).push(p);
    }
    let best = Infinity;
    for (const p of nodes) {
      const [i, j] = cellOf(p);
      for (let di = -1; di <= 1; di++) for (let dj = -1; dj <= 1; dj++) {
        for (const q of grid.get(`${i + di},${j + dj}`) || []) {
          const d = Math.hypot(p.x - q.x, p.y - q.y);
          if (q !== p && d > 1e-9 && d < best) best = d;
        }
      }
    }
    return isFinite(best) ? best : cell;
  }

  function drawTopology(t) {
    const t0 = performance.now();
    topo = t;
    const layers = {};
    for (const id of ['groups', 'links', 'flows', 'nodes']) { layers[id] = $(id); layers[id].replaceChildren(); }
    $('flow-list').replaceChildren();
    flowEls.clear();
    const pos = new Map();
    let missing = 0;
    for (const n of t.nodes || []) {
      if (typeof n.x === 'number' && typeof n.y === 'number') pos.set(n.name, n); else missing++;
    }
    // extent: the layout's width x height, widened to whatever lies outside it
    let x0 = 0, y0 = 0, x1 = +t.width || 0, y1 = +t.height || 0;
    const widen = (ax, ay, bx, by) => {
      x0 = Math.min(x0, ax); y0 = Math.min(y0, ay); x1 = Math.max(x1, bx); y1 = Math.max(y1, by);
    };
    for (const n of pos.values()) widen(n.x, n.y, n.x, n.y);
    for (const g of t.groups || []) widen(g.x, g.y, g.x + g.w, g.y + g.h);
    const w = Math.max(x1 - x0, 1e-3), h = Math.max(y1 - y0, 1e-3);
    const box = svg.getBoundingClientRect();
    const pxu = Math.min((box.width || 1000) / (w * 1.12), (box.height || 700) / (h * 1.12));  // px per unit
    const gap = nodeGap([...pos.values()], w, h);
    let r = Math.min(0.35 * gap, 12 / pxu);
    r = Math.max(r, 1.5 / pxu);
    const longest = Math.max(1, ...[...pos.keys()].slice(0, BIG + 1).map((k) => String(k).length));
    const font = Math.min(11 / pxu, 0.42 * gap, 1.5 * gap / longest);   // a label about as wide as the gap
    const big = pos.size > BIG || (t.links || []).length > 3 * BIG;
    const labels = !big && font * pxu >= 7;
    svg.classList.toggle('big', big);
    const m = Math.max(0.05 * Math.max(w, h), 2.5 * r + font);
    fitVB = {x: x0 - m, y: y0 - m, w: w + 2 * m, h: h + 2 * m};
    setVB(fitVB);

    let frag = document.createDocumentFragment();
    for (const g of t.groups || []) {
      const e = svgEl('g', {class: 'group', 'data-name': g.name}, frag);
      svgEl('rect', {x: g.x, y: g.y, width: g.w, height: g.h, rx: Math.min(g.w, g.h) * 0.03}, e);
      const gf = 12 / pxu;
      if (!big || g.w * pxu > 60) {
        // above the box, where no node of the unit lies
        svgEl('text', {x: g.x, y: g.y - gf * 0.35, 'font-size': gf, 'stroke-width': gf * 0.25}, e, g.name);
      }
      svgEl('title', {}, e, g.name);
    }
    layers.groups.appendChild(frag);

    const links = new Map();
    frag = document.createDocumentFragment();
    for (const lk of t.links || []) {
      const a = pos.get(lk.a), b = pos.get(lk.b);
      if (!a || !b) continue;
      const mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
      const g = svgEl('g', {class: 'link', 'data-id': lk.id, 'data-a': lk.a, 'data-b': lk.b, 'data-kind': lk.kind || ''}, frag);
      const ab = svgEl('line', {class: 'ab', x1: a.x, y1: a.y, x2: mx, y2: my, stroke: UNKNOWN}, g);
      const ba = svgEl('line', {class: 'ba', x1: mx, y1: my, x2: b.x, y2: b.y, stroke: UNKNOWN}, g);
      const o = {lk, g, ab, ba, s: null, failed: false,
        abTitle: svgEl('title', {}, ab), baTitle: svgEl('title', {}, ba)};
      links.set(String(lk.id), o);
      linkTitles(o);
    }
    layers.links.appendChild(frag);

    const nodes = new Map();
    frag = document.createDocumentFragment();
    for (const n of pos.values()) {
      const kind = n.kind === 'switch' ? 'switch' : 'server';
      const g = svgEl('g', {class: `node ${kind}`, 'data-name': n.name, transform: `translate(${n.x} ${n.y})`}, frag);
      if (kind === 'server') svgEl('circle', {r}, g);
      else svgEl('rect', {x: -1.3 * r, y: -0.8 * r, width: 2.6 * r, height: 1.6 * r, rx: 0.2 * r}, g);
      svgEl('path', {class: 'cross', d: `M${-r} ${-r}L${r} ${r}M${-r} ${r}L${r} ${-r}`}, g);
      if (labels) {
        const y = kind === 'server' ? r + font : -0.8 * r - 0.5 * font;
        svgEl('text', {y, 'text-anchor': 'middle', 'font-size': font, 'stroke-width': font * 0.25}, g, n.name);
      }
      nodes.set(n.name, {n, g, title: svgEl('title', {}, g, `${n.name} (${kind})`)});
    }
    layers.nodes.appendChild(frag);
    geo = {pos, links, nodes, r, failed: new Set()};

    const label = t.label && t.label !== t.family ? ` \u2014 ${t.label}` : '';
    $('spec').textContent = `${t.spec || '?'} (${t.family || '?'})${label}, generation ${t.generation}` +
      (missing ? ` \u2014 ${missing} nodes without coordinates not drawn` : '');
    const want = selected || hashServer();
    if (want && geo.nodes.has(want) && geo.nodes.get(want).n.kind === 'server') selectServer(want);
    else closeServer();
    performance.measure('dcn-view topology', {start: t0});   // the page's own costs, for a profiler
  }

  function linkTitles(o) {
    const {lk, s} = o, fail = o.failed ? ' (failed)' : '';
    o.abTitle.textContent = `${lk.a} -> ${lk.b}: ${num(s && s.ab)} of ${cap(lk.mbps)} Mb/s${fail}`;
    o.baTitle.textContent = `${lk.b} -> ${lk.a}: ${num(s && s.ba)} of ${cap(lk.mbps)} Mb/s${fail}`;
  }
  function setStroke(line, c) {
    if (line.getAttribute('stroke') !== c) line.setAttribute('stroke', c);
  }

  // ---- a state sample
  function applyState(st) {
    const t0 = performance.now();
    const L = st.links || {}, eager = geo.links.size <= EAGER_TITLES;
    for (const [id, o] of geo.links) {
      const s = L[id] || null, failed = !!(s && s.failed);
      o.s = s;
      if (failed !== o.failed) { o.failed = failed; o.g.classList.toggle('failed', failed); }
      setStroke(o.ab, loadColour(s && s.ab, o.lk.mbps));
      setStroke(o.ba, loadColour(s && s.ba, o.lk.mbps));
      if (eager) linkTitles(o);
    }
    const fn = st.failed_nodes || {}, now = new Set();
    for (const [name, kind] of Object.entries(fn)) {
      const o = geo.nodes.get(name);
      if (!o) continue;
      now.add(name);
      o.g.classList.add('failed');
      o.g.dataset.failed = String(kind);
      o.title.textContent = `${name} (${o.n.kind}): failed (${kind})`;
    }
    for (const name of geo.failed) {
      if (now.has(name)) continue;
      const o = geo.nodes.get(name);
      o.g.classList.remove('failed');
      delete o.g.dataset.failed;
      o.title.textContent = `${name} (${o.n.kind})`;
    }
    geo.failed = now;
    drawFlows(Array.isArray(st.flows) ? st.flows : []);
    drawExperiment(st.experiment);
    drawEvents(Array.isArray(st.events) ? st.events : []);
    $('sample').textContent = typeof st.t === 'number' ? `sample ${clock(st.t)}` : '';
    document.body.dataset.stateT = String(st.t);
    window.dcnView = {topology: topo, state: st};
    performance.measure('dcn-view state', {start: t0});
    if (selected && Date.now() - serverAt >= SERVER_MS) refreshServer();
  }

  // Each poll updates the flows' elements in place (a new one is made, a
  // gone one removed, an attribute set only when it changed): the
  // all-to-all's 500 flows rebuilt every second kept a headless Chromium at
  // a fifth of the box (results/view-cost/)
  function drawFlows(flows) {
    const layer = $('flows'), list = $('flow-list'), step = geo.r * 0.45;
    // a flow's hops; the n-th flow over a link is drawn n steps beside it
    const used = new Map(), seen = new Set();
    flows.forEach((f) => {
      const path = (Array.isArray(f.path) ? f.path : []).filter((n) => geo.pos.has(n));
      const key = flowKey(f), id = `${f.server || ''}|${key}`;
      const pts = path.map((name, i) => {
        const hop = (u, v) => {   // the hop's offset, perpendicular to the link drawn from its lower name
          const k = endsKey(u, v), slot = used.get(k) || 0;
          used.set(k, slot + 1);
          const [p, q] = u < v ? [geo.pos.get(u), geo.pos.get(v)] : [geo.pos.get(v), geo.pos.get(u)];
          const len = Math.hypot(q.x - p.x, q.y - p.y) || 1, d = ((slot % 6) + 1) * step;
          return [-(q.y - p.y) / len * d, (q.x - p.x) / len * d];
        };
        return {name, off: i + 1 < path.length ? hop(name, path[i + 1]) : null};
      });
      const points = pts.map(({name, off}, i) => {
        const n = geo.pos.get(name), a = i > 0 ? pts[i - 1].off : null, b = off;
        const [dx, dy] = a && b ? [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] : (a || b || [0, 0]);
        return `${(n.x + dx).toFixed(4)},${(n.y + dy).toFixed(4)}`;
      }).join(' ');
      const pathText = (Array.isArray(f.path) ? f.path : []).map(String).join(' ');
      const head = f.sport == null ? `${f.src} -> ${f.dst}, flow ${f.flow_id}${f.complete === false ? ' (path so far)' : ''}`
        : `${f.src}:${f.sport} -> ${f.dst}:${f.dport}`;
      const rate = typeof f.rate_mbps === 'number' ? `${num(f.rate_mbps)} Mb/s` : '';
      let o = flowEls.get(id);
      if (!o) {
        const colour = flowColour(key);
        const line = svgEl('polyline', {class: 'flow', stroke: colour, 'data-src': f.src, 'data-dst': f.dst,
          'data-sport': f.sport, 'data-dport': f.dport, 'data-proto': f.proto, 'data-server': f.server || ''}, layer);
        const li = htmlEl('li', null, list);
        line.dataset.flow = li.dataset.flow = key;
        htmlEl('span', 'swatch', li).style.background = colour;
        htmlEl('span', 'head', li, head);
        o = {line, li, title: svgEl('title', {}, line), rateEl: htmlEl('span', 'rate', li),
             pathEl: htmlEl('div', 'path', li), points: null, pathText: null, rate: null};
        for (const e of [line, li]) {
          e.addEventListener('mouseenter', () => highlight(key));
          e.addEventListener('mouseleave', () => highlight(null));
        }
        flowEls.set(id, o);
      }
      if (o.points !== points) { o.line.setAttribute('points', points); o.points = points; }
      const mine = selected !== null && path.includes(selected);
      if (o.line.classList.contains('sel') !== mine) o.line.classList.toggle('sel', mine);
      if (o.pathText !== pathText || o.rate !== rate) {
        o.line.dataset.path = pathText;
        o.pathEl.textContent = pathText;
        o.rateEl.textContent = rate;
        o.title.textContent = `${head} ${rate}\n${pathText}`;
        o.pathText = pathText;
        o.rate = rate;
      }
      seen.add(id);
    });
    for (const [id, o] of flowEls) {
      if (!seen.has(id)) { o.line.remove(); o.li.remove(); flowEls.delete(id); }
    }
    const many = flows.length > FLOWS_DRAWN;
    layer.classList.toggle('many', many);
    $('flow-count').textContent = flows.length ? `(${flows.length})` : '';
    $('flow-note').textContent = many ? `more than ${FLOWS_DRAWN}: the paths drawn are the hovered flow's and ` +
      'those through the selected server' : '';
    highlight(hlFlow);
  }
  function highlight(key) {
    hlFlow = key;
    for (const ul of [$('flows'), $('flow-list')]) {
      for (const e of ul.children) e.classList.toggle('hl', key !== null && e.dataset.flow === key);
    }
  }

  function drawExperiment(x) {
    const box = $('experiment');
    box.hidden = !x;
    if (!x) return;
    $('exp-name').textContent = x.name || '';
    $('exp-phase').textContent = x.phase || '';
    const p = $('exp-progress'), frac = typeof x.progress === 'number' ? Math.max(0, Math.min(1, x.progress)) : null;
    $('exp-run').textContent = [x.runs != null ? `run ${x.run} of ${x.runs}` : null,
      frac !== null ? `${Math.round(frac * 100)} % of the transfers done` : null].filter(Boolean).join(', ');
    $('exp-elapsed').textContent = typeof x.elapsed_s === 'number' ? `elapsed ${duration(x.elapsed_s)}` : '';
    if (frac !== null) p.value = frac; else p.removeAttribute('value');   // no value: indeterminate
  }
  function drawEvents(events) {
    const ul = $('event-list');
    ul.replaceChildren();
    for (const ev of events.slice(-12).reverse()) htmlEl('li', null, ul, String(ev));
  }

  // ---- the selected server
  function selectServer(name) {
    if (selected && geo.nodes.has(selected)) geo.nodes.get(selected).g.classList.remove('selected');
    selected = name;
    serverAt = 0;
    geo.nodes.get(name).g.classList.add('selected');
    $('server-panel').hidden = false;
    $('server-name').textContent = name;
    $('server-body').replaceChildren(htmlEl('div', null, null, 'asking the agent\u2026'));
    refreshServer();
  }
  function hashServer() {   // index.html#server=h00 opens h00's panel
    const m = /^#server=(.+)$/.exec(location.hash);
    try { return m ? decodeURIComponent(m[1]) : null; } catch (e) { return null; }
  }
  function closeServer() {
    if (selected && geo && geo.nodes.has(selected)) geo.nodes.get(selected).g.classList.remove('selected');
    if (selected && hashServer()) history.replaceState(null, '', location.pathname + location.search);
    selected = null;
    $('server-panel').hidden = true;
  }
  async function refreshServer() {
    if (!selected || serverBusy) return;
    const name = selected;
    serverBusy = true;
    serverAt = Date.now();
    try {
      const d = await getJSON(`api/server/${encodeURIComponent(name)}`);
      if (selected === name) renderServer(d);
    } catch (e) {
      if (selected === name) $('server-body').replaceChildren(htmlEl('div', 'error', null, `no answer: ${e.message}`));
    } finally {
      serverBusy = false;
    }
  }
  function table(parent, title, heads, rows, empty) {
    htmlEl('h3', null, parent, title);
    if (rows === null) return htmlEl('div', 'error', parent, 'the agent did not answer');
    if (!rows.length) return htmlEl('div', 'note', parent, empty);
    const t = htmlEl('table', null, parent), tr = heads.length ? htmlEl('tr', null, t) : null;
    for (const h of heads) htmlEl('th', null, tr, h);
    for (const row of rows) {
      const r = htmlEl('tr', null, t);
      for (const c of row) {
        if (c && typeof c === 'object') htmlEl('td', c.cls, r, c.text); else htmlEl('td', null, r, String(c));
      }
    }
    return t;
  }
  function renderServer(d) {
    const body = document.createDocumentFragment();
    const list = (v, key) => Array.isArray(v) ? v : (v && Array.isArray(v[key]) ? v[key] : null);
    const st = d.status;
    if (['status', 'neighbors', 'flows', 'failures'].every((k) => d[k] == null)) {
      htmlEl('div', 'error', body, 'the agent did not answer');
      return $('server-body').replaceChildren(body);
    }
    table(body, 'Status', [], st && typeof st === 'object' ?
      Object.entries(st).map(([k, v]) => [k, v !== null && typeof v === 'object' ? JSON.stringify(v) : v]) : null, '');
    const neigh = list(d.neighbors, 'neighbors');
    table(body, 'Neighbours', ['name', 'port', 'up', 'last heard'], neigh && neigh.map((n) => [
      n.name, n.port, n.up ? 'up' : {text: 'down', cls: 'down'},
      typeof n.last_heard_ms === 'number' ? `${num(n.last_heard_ms / 1000)} s ago` : 'never']), 'none');
    const fl = list(d.flows, 'flows');
    table(body, 'Flows', ['flow', 'path'], fl && fl.map((f) => [
      `${f.src}:${f.sport} -> ${f.dst}:${f.dport}`, (f.path || []).join(' ')]), 'none');
    const fa = list(d.failures, 'failures');
    table(body, 'Failed links', ['a', 'b', 'kind', 'expires'], fa && fa.map((f) => [
      f.a, f.b, f.kind, typeof f.expires_in_ms === 'number' ? `in ${num(f.expires_in_ms / 1000)} s` : 'no timeout']),
    'none');
    $('server-body').replaceChildren(body);
  }

  // ---- zoom and pan (the viewBox is in layout units; the browser keeps the aspect ratio)
  function setVB(v) {
    vb = v;
    svg.setAttribute('viewBox', `${v.x} ${v.y} ${v.w} ${v.h}`);
  }
  svg.addEventListener('wheel', (e) => {
    if (!vb) return;
    e.preventDefault();
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(svg.getScreenCTM().inverse());
    const f = Math.min(Math.max(Math.exp(e.deltaY * 0.0015), fitVB.w / 40 / vb.w), fitVB.w * 2 / vb.w);
    setVB({x: p.x - (p.x - vb.x) * f, y: p.y - (p.y - vb.y) * f, w: vb.w * f, h: vb.h * f});
  }, {passive: false});
  svg.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || !vb) return;
    drag = {x: e.clientX, y: e.clientY, vb, s: svg.getScreenCTM().a};
    dragged = false;
  });
  window.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!dragged && Math.hypot(dx, dy) < 4) return;
    dragged = true;
    svg.classList.add('dragging');
    setVB({...drag.vb, x: drag.vb.x - dx / drag.s, y: drag.vb.y - dy / drag.s});
  });
  window.addEventListener('pointerup', () => { drag = null; svg.classList.remove('dragging'); });
  svg.addEventListener('dblclick', () => fitVB && setVB(fitVB));
  svg.addEventListener('click', (e) => {
    if (dragged) { dragged = false; return; }
    const n = e.target.closest('.node.server');
    if (n && geo && geo.nodes.has(n.dataset.name)) selectServer(n.dataset.name); else closeServer();
  });
  $('links').addEventListener('mouseover', (e) => {   // big networks: tooltips written when shown
    const g = e.target.closest('.link');
    if (g && geo) { const o = geo.links.get(g.dataset.id); if (o) linkTitles(o); }
  });
  $('server-close').addEventListener('click', closeServer);
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') closeServer(); });

  // ---- polling: one request at a time, the next one a second after the answer
  function setConn(ok, err) {
    $('conn').hidden = ok;
    if (!ok) $('conn').textContent = `testbed not answering (${err && err.message ? err.message : err}), retrying`;
    document.body.classList.toggle('stale', !ok);
  }
  function schedule(ms) {
    if (timer === null && document.visibilityState !== 'hidden') timer = setTimeout(tick, ms);
  }
  async function tick() {
    timer = null;
    if (document.visibilityState === 'hidden') return;
    busy = true;
    let ok = true;
    try {
      if (!topo) drawTopology(await getJSON('api/topology'));
      const st = await getJSON('api/state');
      if (st.generation !== topo.generation) drawTopology(await getJSON('api/topology'));
      if (st.generation === topo.generation) applyState(st);   // else: a newer network; the next sample fits it
      setConn(true);
    } catch (e) {
      ok = false;
      setConn(false, e);
    }
    busy = false;
    schedule(ok ? POLL_MS : RETRY_MS);
  }
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') { clearTimeout(timer); timer = null; }
    else if (!busy && timer === null) tick();
  });
  tick();
})();
