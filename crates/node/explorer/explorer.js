// The Cowboy block explorer: a single-page app that is just another JSON-RPC client of the node
// that serves it (crates/node/src/explorer.rs; methods in crates/node/RPC.md).
//
// Pages (the URL fragment is the route): #/ latest blocks and transactions, live through a
// `newHeads` WebSocket subscription (polling every 2 s if the socket fails); #/block/HEIGHT|HASH
// with its transactions, vote record, timer executions and hook events;
// #/tx/HASH with receipt, events, the error's line in the actor source and the trace tree;
// #/address/ADDR with balance, nonce, source (highlighted), one storage entry and recent events.
//
// Everything the chain returns is attacker-controlled (actor source, event data, storage,
// error messages). The DOM is built only with createElement and text nodes; a string from the
// chain is never parsed as markup, and a link is made only from a value that matched the
// hash/address/height pattern first.
"use strict";

(() => {
  const HASH = /^0x[0-9a-fA-F]{64}$/;
  const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
  const HEIGHT = /^[0-9]{1,15}$/;
  const RECENT_BLOCKS = 10;
  const RECENT_TXS = 15;
  // cowboy_getEvents scans at most 10,000 blocks per query (RPC.md).
  const EVENT_WINDOW = 10000;
  const EVENTS_SHOWN = 50;
  const POLL_MS = 2000;

  // ---- DOM construction: text only -------------------------------------------------------

  // el("td", {className: "ok"}, "text", node, [more]) — strings become text nodes.
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "href") throw new Error("links are made by link() only");
      node[k] = v;
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const c of children) {
      if (c === null || c === undefined) continue;
      if (Array.isArray(c)) append(node, c);
      else if (c instanceof Node) node.appendChild(c);
      else node.appendChild(document.createTextNode(String(c)));
    }
  }

  const ROUTE_PATTERN = { block: /^(?:0x[0-9a-fA-F]{64}|[0-9]{1,15})$/, tx: HASH, address: ADDRESS };

  // A link to an explorer page, or plain text if `value` is not what that page takes.
  function link(kind, value, label) {
    const v = String(value);
    if (!ROUTE_PATTERN[kind].test(v)) return el("span", { className: "mono" }, v);
    const a = el("a", { className: "mono" }, label === undefined ? v : label);
    a.setAttribute("href", `#/${kind}/${v}`);
    return a;
  }

  function short(h) {
    const s = String(h);
    return s.length > 18 ? `${s.slice(0, 10)}…${s.slice(-6)}` : s;
  }

  // An amount (wei, a decimal string) in CBY, exact (BigInt), trailing zeros trimmed.
  function cby(wei) {
    const s = String(wei);
    if (!/^[0-9]+$/.test(s)) return s;
    const v = BigInt(s);
    const unit = 10n ** 18n;
    const frac = (v % unit).toString().padStart(18, "0").replace(/0+$/, "");
    return `${v / unit}${frac ? "." + frac : ""} CBY`;
  }

  function time(ms) {
    return typeof ms === "number" ? new Date(ms).toISOString().replace(".000Z", "Z") : String(ms);
  }

  function json(v) {
    return el("code", {}, JSON.stringify(v));
  }

  function status(ok) {
    return ok ? el("span", { className: "ok" }, "success") : el("span", { className: "bad" }, "failed");
  }

  // A two-column table of [label, value] rows; rows with an undefined value are left out.
  function fields(rows) {
    return el("table", { className: "fields" },
      rows.filter(([, v]) => v !== undefined)
        .map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, v === null ? "—" : v))));
  }

  function table(headers, rows, empty) {
    if (rows.length === 0) return el("p", { className: "muted" }, empty);
    return el("table", {},
      el("tr", {}, headers.map((h) => el("th", {}, h))),
      rows.map((cells) => el("tr", {}, cells.map((c) => el("td", {}, c)))));
  }

  function errorBox(e) {
    return el("div", { className: "error" }, e instanceof RpcError ? e.describe() : String(e));
  }

  // ---- JSON-RPC ----------------------------------------------------------------------------

  class RpcError extends Error {
    constructor(e) {
      super(e.message);
      this.code = e.code;
      this.data = e.data;
    }
    describe() {
      return `RPC error ${this.code}: ${this.message}`;
    }
  }

  let nextId = 1;

  async function post(body) {
    const r = await fetch("/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return r.json();
  }

  async function rpc(method, params) {
    const j = await post({ jsonrpc: "2.0", id: nextId++, method, params });
    if (j.error) throw new RpcError(j.error);
    return j.result;
  }

  // Several calls in one HTTP request; each answer is its result or an RpcError.
  async function batch(calls) {
    if (calls.length === 0) return [];
    const first = nextId;
    nextId += calls.length;
    const answers = await post(calls.map(([method, params], i) =>
      ({ jsonrpc: "2.0", id: first + i, method, params })));
    const byId = new Map((Array.isArray(answers) ? answers : [answers]).map((a) => [a.id, a]));
    return calls.map((_, i) => {
      const a = byId.get(first + i);
      if (!a) return new RpcError({ code: -32603, message: "no answer in the batch" });
      return a.error ? new RpcError(a.error) : a.result;
    });
  }

  function must(v) {
    if (v instanceof Error) throw v;
    return v;
  }

  // ---- Python highlighting -----------------------------------------------------------------

  const KEYWORDS = new Set(("False None True and as assert async await break class continue def " +
    "del elif else except finally for from global if import in is lambda nonlocal not or pass " +
    "raise return try while with yield match case").split(" "));
  const BUILTINS = new Set(("abs all any bool bytes callable dict divmod enumerate filter float " +
    "getattr hasattr hash int isinstance issubclass iter len list map max min next object ord " +
    "chr pow print range repr reversed round set setattr sorted str sum super tuple type zip " +
    "self Exception ValueError TypeError KeyError IndexError RuntimeError AssertionError " +
    "ZeroDivisionError").split(" "));
  // One token per match, tried in order: comment, string (any prefix, triple or single quoted;
  // an unterminated one runs to the end of its line or, triple quoted, of the file), number,
  // decorator, name, blank, any other character. Every alternative is linear in its match.
  const TOKEN = new RegExp([
    /(#[^\n]*)/.source,
    /((?:[rRbBuUfF]{1,2})?(?:'''[\s\S]*?(?:'''|$)|"""[\s\S]*?(?:"""|$)|'(?:\\.|[^'\\\n])*'?|"(?:\\.|[^"\\\n])*"?))/.source,
    /(0[xXoObB][0-9a-fA-F_]+|\d[\d_]*(?:\.[\d_]*)?(?:[eE][+-]?\d+)?[jJ]?)/.source,
    /(@[A-Za-z_][\w.]*)/.source,
    /([A-Za-z_]\w*)/.source,
    /(\s+)/.source,
    /([\s\S])/.source,
  ].join("|"), "gy");

  // [[class or "", text], ...] covering `source` exactly.
  function pythonTokens(source) {
    const out = [];
    let afterDef = false;
    TOKEN.lastIndex = 0;
    let m;
    while (TOKEN.lastIndex < source.length && (m = TOKEN.exec(source)) !== null) {
      const [text, com, str, num, dec, name, blank] = m;
      let cls = "";
      if (com !== undefined) cls = "com";
      else if (str !== undefined) cls = "str";
      else if (num !== undefined) cls = "num";
      else if (dec !== undefined) cls = "dec";
      else if (name !== undefined) {
        cls = afterDef ? "def" : KEYWORDS.has(name) ? "kw" : BUILTINS.has(name) ? "bi" : "";
      }
      if (blank === undefined) afterDef = name === "def" || name === "class";
      out.push([cls, text]);
    }
    return out;
  }

  // The source as numbered lines of highlighted tokens; `hit` (a line number) is marked.
  function highlighted(source, hit) {
    const lines = [[]];
    for (const [cls, text] of pythonTokens(source)) {
      const parts = text.split("\n");
      parts.forEach((part, i) => {
        if (i > 0) lines.push([]);
        if (part) lines[lines.length - 1].push(cls ? el("span", { className: `tok-${cls}` }, part) : part);
      });
    }
    return el("pre", { className: "source" }, lines.map((tokens, i) =>
      el("span", { className: i + 1 === hit ? "line hit" : "line" },
        el("span", { className: "lineno" }, String(i + 1)), tokens, "\n")));
  }

  // ---- pages -------------------------------------------------------------------------------

  const main = document.getElementById("main");
  // Each render owns a generation; an answer arriving after the user moved on is dropped.
  let generation = 0;

  // A refresh (a new head on the home page) keeps the page on screen until the new one is ready.
  async function show(render, refresh = false) {
    const mine = ++generation;
    if (!refresh) main.replaceChildren(el("h1", {}, "loading…"));
    try {
      const nodes = await render();
      if (mine === generation) main.replaceChildren(...nodes);
    } catch (e) {
      if (mine === generation) main.replaceChildren(errorBox(e));
    }
  }

  // Home: the latest blocks (kept by height) and the transactions in them.
  const recent = new Map();

  async function loadRecent(head) {
    const want = [];
    for (let h = head; h >= 0 && h > head - RECENT_BLOCKS; h--) want.push(h);
    const missing = want.filter((h) => !recent.has(h));
    const got = await batch(missing.map((h) => ["cowboy_getBlockByNumber", [h, true]]));
    missing.forEach((h, i) => { if (got[i] && !(got[i] instanceof Error)) recent.set(h, got[i]); });
    for (const h of [...recent.keys()]) if (!want.includes(h)) recent.delete(h);
    return want.map((h) => recent.get(h)).filter(Boolean);
  }

  async function home() {
    const head = await rpc("cowboy_blockNumber", []);
    const blocks = await loadRecent(head);
    const txs = blocks.flatMap((b) => b.transactions).slice(0, RECENT_TXS);
    return [
      el("h1", {}, `Chain head: block ${head}`),
      el("div", { className: "columns" },
        el("section", { id: "latest-blocks" }, el("h2", {}, "Latest blocks"),
          table(["height", "hash", "time", "txs", "cycles"], blocks.map((b) => [
            link("block", b.height), link("block", b.hash, short(b.hash)), time(b.timestamp),
            String(b.transactions.length), String(b.cyclesUsed)]), "no blocks yet")),
        el("section", { id: "latest-transactions" }, el("h2", {}, "Latest transactions"),
          table(["hash", "block", "kind", "from", "to"], txs.map((t) => [
            link("tx", t.hash, short(t.hash)), link("block", t.blockHeight), t.kind + (t.handler ? ` ${t.handler}` : ""),
            link("address", t.from, short(t.from)), t.to ? link("address", t.to, short(t.to)) : "(deploy)"]),
          "no transactions in these blocks"))),
    ];
  }

  async function block(id) {
    const b = HASH.test(id)
      ? await rpc("cowboy_getBlockByHash", [id, true])
      : await rpc("cowboy_getBlockByNumber", [Number(id), true]);
    if (b === null) return [el("h1", {}, `Block ${id}`), el("p", {}, "No finalized block by that id.")];
    const voters = b.votes ? await votersOf(b.votes) : [];
    const hooks = (await rpc("cowboy_getHookEvents", [b.height])) || { begin: [], end: [] };
    const hookEvents = hooks.begin.concat(hooks.end);
    return [
      el("h1", {}, `Block ${b.height}`),
      fields([
        ["hash", el("span", { className: "mono" }, b.hash)],
        ["parent", b.height > 0 ? link("block", b.parentHash) : el("span", { className: "mono" }, b.parentHash)],
        ["time", time(b.timestamp)],
        ["proposer", el("span", { className: "mono" }, String(b.proposer))],
        ["state root", el("span", { className: "mono" }, b.stateRoot)],
        ["tx root", el("span", { className: "mono" }, b.txRoot)],
        ["receipts root", el("span", { className: "mono" }, b.receiptsRoot)],
        ["cycles used", String(b.cyclesUsed)],
        ["cells used", String(b.cellsUsed)],
        ["cycle basefee", `${b.cycleBasefee} wei`],
        ["cell basefee", `${b.cellBasefee} wei`],
        ["randomness", el("span", { className: "mono" }, b.randomness)],
        ...(b.beacon ? [["beacon", [el("span", { className: "mono" }, short(b.beacon.signature)),
          " signs block ", link("block", String(b.beacon.height))]]] : []),
      ]),
      el("h2", {}, `Transactions (${b.transactions.length})`),
      table(["#", "hash", "kind", "from", "to", "value"], b.transactions.map((t) => [
        String(t.index), link("tx", t.hash, short(t.hash)), t.kind + (t.handler ? ` ${t.handler}` : ""),
        link("address", t.from, short(t.from)), t.to ? link("address", t.to, short(t.to)) : "(deploy)",
        cby(t.value)]), "none"),
      ...votesSection(b, voters),
      el("h2", {}, `Timer executions (${b.timerExecutions.length})`),
      table(["timer", "owner", "handler", "result", "cycles"], b.timerExecutions.map((x) => [
        String(x.timerId), link("address", x.owner, short(x.owner)), x.handler,
        x.success ? status(true) : [status(false), " ", errorText(x.error)], String(x.cyclesUsed)]), "none"),
      // Events of the block's system hooks: an epoch boundary's rewards and set changes, a
      // downtime jailing, a beacon round's decision.
      el("h2", {}, `Hook events (${hookEvents.length})`),
      table(["phase", "emitter", "topic", "data"], hookEvents.map((e) => [
        `${e.hook}_block`, link("address", e.emitter, short(e.emitter)), e.topic, json(e.dataValue)]), "none"),
    ];
  }

  // The epoch's participants in consensus order (by consensus key, as commonware numbers
  // them), so a vote's signer index names a validator; [] if the set is no longer kept.
  async function votersOf(votes) {
    let set;
    try {
      set = await rpc("cowboy_getValidatorSet", [votes.epoch]);
    } catch (_) {
      return [];
    }
    const key = (m) => String((m.consensus_key || {}).bytes || "");
    const members = ((set && set.members) || []).slice().sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
    return members.map((m) => ({ address: String((m.validator || {}).bytes || ""), key: key(m) }));
  }

  // The vote record: the notarize votes the proposer saw for its grandparent's round, from
  // which the chain counts missed votes (downtime).
  function votesSection(b, voters) {
    if (!b.votes) return [el("h2", {}, "Votes"), el("p", {}, "No vote record in this block.")];
    const v = b.votes;
    const of = voters.length ? ` of ${voters.length}` : "";
    return [
      el("h2", {}, `Votes (${v.signers.length}${of})`),
      el("p", {}, `Notarize votes for the proposal of epoch ${v.epoch}, view ${v.view} (parent view ${v.parentView}): the round of block ${b.height - 2}.`),
      table(["signer", "validator", "consensus key"], v.signers.map((i) => {
        const m = voters[i];
        return [String(i), m ? link("address", m.address, short(m.address)) : "(set not kept)", m ? el("span", { className: "mono" }, short(m.key)) : ""];
      }), "none"),
    ];
  }

  function errorText(e) {
    if (!e) return "";
    return `${e.class}: ${e.message}${e.line ? ` (line ${e.line})` : ""}`;
  }

  function eventsTable(events) {
    return table(["emitter", "topic", "data", "block", "transaction"], events.map((e) => [
      link("address", e.emitter, short(e.emitter)), e.topic, json(e.dataValue),
      link("block", e.blockHeight), eventSource(e)]),
    "no events");
  }

  // What emitted an event: its transaction, a timer's run, or the block's own hooks.
  function eventSource(e) {
    if (e.transactionHash) return link("tx", e.transactionHash, short(e.transactionHash));
    if (e.hook) return `${e.hook}_block`;
    return `timer ${e.timerId}`;
  }

  // The failing line of an actor with a few lines around it, from the source on chain now.
  async function traceback(address, error) {
    if (!error || !error.line || !ADDRESS.test(String(address))) return null;
    const src = await rpc("cowboy_getActorSource", [address]).catch(() => null);
    if (!src) return null;
    const lines = src.source.split("\n");
    const from = Math.max(0, error.line - 4);
    const excerpt = lines.slice(from, error.line + 3).join("\n");
    const pre = highlighted(excerpt, error.line - from);
    // Renumber the excerpt's lines to the file's.
    pre.querySelectorAll(".lineno").forEach((n, i) => { n.textContent = String(from + i + 1); });
    return el("div", { id: "traceback" }, el("h2", {}, "Traceback"),
      el("p", {}, `${error.class}: ${error.message}, line ${error.line} of `, link("address", address)), pre);
  }

  function callTree(calls) {
    if (!calls || calls.length === 0) return null;
    return el("ul", { className: "calls" }, calls.map((c) => el("li", {},
      el("div", { className: "call-head" }, `${c.kind} `, link("address", c.from, short(c.from)), " → ",
        link("address", c.to, short(c.to)), `.${c.handler}`, c.value !== "0" ? ` value ${cby(c.value)}` : "",
        `  cycles ${c.cycles} · cells ${c.cells} · `, status(c.success),
        c.error ? ` ${errorText(c.error)}` : "",
        c.returnValue !== null && c.returnValue !== undefined ? [" → ", json(c.returnValue)] : ""),
      c.events.map((e) => el("div", { className: "sub" }, "event ", el("b", {}, e.topic), " ", json(e.dataValue))),
      c.storage.map((s) => el("div", { className: "sub mono" },
        `${s.op} ${s.key}${s.size === null || s.size === undefined ? "" : ` (${s.size} bytes)`}`)),
      callTree(c.calls))));
  }

  async function transaction(hash) {
    const [tx, receipt] = await batch([["cowboy_getTransaction", [hash]], ["cowboy_getReceipt", [hash]]]);
    if (must(tx) === null) return [el("h1", {}, "Transaction"), el("p", {}, `No transaction ${hash}.`)];
    const out = [
      el("h1", {}, `Transaction ${short(hash)}`),
      fields([
        ["hash", el("span", { className: "mono" }, tx.hash)],
        ["block", tx.blockHeight === null ? "pending" : link("block", tx.blockHeight)],
        ["index", tx.index === null ? undefined : String(tx.index)],
        ["kind", tx.kind + (tx.handler ? ` ${tx.handler}` : "")],
        ["from", link("address", tx.from)],
        ["to", tx.to ? link("address", tx.to) : "(deploy)"],
        ["value", cby(tx.value)],
        ["nonce", String(tx.nonce)],
        ["limits", `${tx.cyclesLimit} cycles, ${tx.cellsLimit} cells`],
        ["fee caps", `${tx.maxFeePerCycle} wei/cycle, ${tx.maxFeePerCell} wei/cell`],
      ]),
    ];
    const r = must(receipt);
    if (r === null) return [...out, el("p", {}, "Not in a finalized block yet.")];
    out.push(el("h2", {}, "Receipt"), fields([
      ["status", status(r.success)],
      ["error", r.error ? errorText(r.error) : undefined],
      ["actor created", r.contractAddress ? link("address", r.contractAddress) : undefined],
      ["cycles used", String(r.cyclesUsed)],
      ["cells used", String(r.cellsUsed)],
      ["fee paid", cby(r.feePaid)],
      ["return value", r.returnValue === null ? null : json(r.returnValue)],
    ]));
    const tb = await traceback(r.to || r.contractAddress, r.error);
    if (tb) out.push(tb);
    out.push(el("h2", {}, `Events (${r.events.length})`), eventsTable(r.events));
    out.push(el("h2", {}, "Trace"));
    try {
      const t = await rpc("cowboy_traceTransaction", [hash]);
      out.push(el("div", { id: "trace" },
        el("p", { className: "note" }, `Re-executed by the node: ${t.cyclesUsed} cycles, ${t.cellsUsed} cells.`),
        callTree(t.calls) || el("p", { className: "muted" }, "no handler ran (a transfer)")));
    } catch (e) {
      out.push(errorBox(e));
    }
    return out;
  }

  // A storage key typed by the user: 0x-hex is the raw key; anything else is a text key,
  // stored by the SDK under its canonical CBOR (RPC.md: self.storage["count"] is CBOR "count").
  function storageKey(input) {
    if (/^0x([0-9a-fA-F]{2})*$/.test(input)) return input.toLowerCase();
    const utf8 = new TextEncoder().encode(input);
    const n = utf8.length;
    const head = n < 24 ? [0x60 + n]
      : n < 0x100 ? [0x78, n]
        : n < 0x10000 ? [0x79, n >> 8, n & 0xff]
          : [0x7a, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
    return "0x" + [...head, ...utf8].map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  async function storageEntry(address, keyInput) {
    const key = storageKey(keyInput);
    const s = await rpc("cowboy_getStorage", [address, key]);
    const header = await rpc("cowboy_getBlockByNumber", [s.height, false]);
    const rootMatches = header !== null && header.stateRoot === s.stateRoot;
    const proof = s.proof === null ? "none (an older block)"
      : `${(s.proof.length - 2) / 2} bytes, as returned by the node; not verified in the browser ` +
        "(verify with cowboy-py's get_storage or cowboy-proof-verifier)";
    return el("div", { id: "storage-entry" }, fields([
      ["key", el("span", { className: "mono" }, `${keyInput}  (${key})`)],
      ["value", s.value === null ? "absent" : json(s.valueValue)],
      ["raw", s.value === null ? undefined : el("span", { className: "mono" }, s.value)],
      ["proof", proof],
      ["state root", [el("span", { className: "mono" }, s.stateRoot), " ",
        rootMatches ? el("span", { className: "ok" }, `= header of block ${s.height}`)
          : el("span", { className: "bad" }, `differs from the header of block ${s.height}`)]],
    ]));
  }

  async function address(addr, query) {
    const [account, source, head] = await batch([
      ["cowboy_getAccount", [addr]], ["cowboy_getActorSource", [addr]], ["cowboy_blockNumber", []]]);
    const a = must(account);
    const out = [
      el("h1", {}, `${a.isActor ? "Actor" : "Account"} ${a.address}`),
      fields([
        ["balance", cby(a.balance)],
        ["nonce", String(a.nonce)],
        ["code hash", a.codeHash === null ? null : el("span", { className: "mono" }, a.codeHash)],
        ["as of block", link("block", a.height)],
      ]),
    ];
    const src = must(source);
    if (src !== null) {
      out.push(el("h2", {}, "Source"), el("div", { id: "source" }, highlighted(src.source, 0)));
      const keyInput = query.get("key");
      const form = el("form", { className: "inline", id: "storage-form" },
        el("input", { name: "key", value: keyInput || "", placeholder: 'storage key: text (e.g. count) or 0x-hex' }),
        el("button", { type: "submit" }, "Read storage"));
      form.addEventListener("submit", (ev) => {
        ev.preventDefault();
        location.hash = `#/address/${addr}?key=${encodeURIComponent(form.elements.key.value)}`;
      });
      out.push(el("h2", {}, "Storage"), form);
      if (keyInput) out.push(await storageEntry(addr, keyInput).catch(errorBox));
    }
    const h = must(head);
    const events = await rpc("cowboy_getEvents", [{ address: addr, fromBlock: Math.max(0, h - EVENT_WINDOW + 1), toBlock: h }]);
    out.push(el("h2", {}, `Events (last ${EVENTS_SHOWN} in the last ${EVENT_WINDOW} blocks)`),
      el("div", { id: "events" }, eventsTable(events.slice(-EVENTS_SHOWN).reverse())));
    return out;
  }

  async function search(q) {
    const s = q.trim();
    if (HEIGHT.test(s)) return `#/block/${s}`;
    if (ADDRESS.test(s)) return `#/address/${s}`;
    if (HASH.test(s)) {
      const [tx, b] = await batch([["cowboy_getTransaction", [s]], ["cowboy_getBlockByHash", [s, false]]]);
      if (tx && !(tx instanceof Error)) return `#/tx/${s}`;
      if (b && !(b instanceof Error)) return `#/block/${s}`;
    }
    return null;
  }

  // ---- routing and live updates ------------------------------------------------------------

  function route() {
    const [path, q] = location.hash.replace(/^#/, "").split("?");
    const query = new URLSearchParams(q || "");
    const [, kind, id] = path.split("/");
    if (kind === "block" && ROUTE_PATTERN.block.test(id)) return show(() => block(id));
    if (kind === "tx" && HASH.test(id)) return show(() => transaction(id));
    if (kind === "address" && ADDRESS.test(id)) return show(() => address(id, query));
    if (kind === "search") return show(() => searched(decodeURIComponent(path.slice("/search/".length))));
    return show(home);
  }

  // #/search/QUERY: go to the page QUERY names, or say that nothing matches.
  async function searched(q) {
    const to = await search(q);
    if (to) {
      location.replace(to);
      return [el("h1", {}, "found")];
    }
    return [el("h1", {}, "Not found"),
      el("p", {}, `Nothing on this chain matches “${q}”: try a block height, a block or transaction hash, or an address.`)];
  }

  document.getElementById("search").addEventListener("submit", (ev) => {
    ev.preventDefault();
    location.hash = `#/search/${encodeURIComponent(document.getElementById("query").value)}`;
  });

  function onHome() {
    return !location.hash || location.hash === "#/" || location.hash === "#";
  }

  const statusLine = document.getElementById("status");
  let lastHead = -1;

  // A new head, by height (polling) or with its parent's hash (the subscription). A head that
  // went down, or whose parent is not the block cached below it, means a dev revert rebuilt
  // the chain: the cached blocks are dropped and fetched again.
  function newHead(height, parentHash) {
    if (height === lastHead) return;
    const below = recent.get(height - 1);
    if (height < lastHead || (below && parentHash && below.hash !== parentHash)) recent.clear();
    lastHead = height;
    statusLine.textContent = `${statusLine.dataset.mode}: head ${height}`;
    if (onHome()) show(home, true);
  }

  function poll() {
    statusLine.dataset.mode = "polling";
    const tick = () => rpc("cowboy_blockNumber", []).then((h) => newHead(h), () => {
      statusLine.textContent = "node unreachable";
    });
    tick();
    setInterval(tick, POLL_MS);
  }

  function live() {
    let socket;
    try {
      socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`);
    } catch {
      return poll();
    }
    let fellBack = false;
    const fallBack = () => { if (!fellBack) { fellBack = true; poll(); } };
    socket.onopen = () => {
      statusLine.dataset.mode = "live";
      statusLine.textContent = "live";
      socket.send(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "cowboy_subscribe", params: ["newHeads"] }));
    };
    socket.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.method === "cowboy_subscription" && msg.params && msg.params.result) newHead(msg.params.result.height, msg.params.result.parentHash);
      else if (msg.method === "cowboy_subscription") { socket.close(); fallBack(); }
    };
    socket.onerror = fallBack;
    socket.onclose = fallBack;
  }

  window.addEventListener("hashchange", route);
  route();
  live();
})();
