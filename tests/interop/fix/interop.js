'use strict'
// FIX 4.4 interop scenario: jspurefix (an independent FIX engine) as the
// initiator against a running cfx-exchanged. Two firms log on, trade, cancel,
// get a reject and market data; every expected message is awaited with a
// bounded wait and its field values are checked. On failure the error lists
// every message each session sent and received. Over TLS (--ca), jspurefix's
// TLS transport verifies the exchange's certificate against that CA.
//
//   node interop.js --host 127.0.0.1 --port 9878 [--dict <QuickFIX XML>]
//   node interop.js --port 9868 --ca var/cfx/tls/ca.crt
//
// run.js starts a fresh cfx-exchanged and calls run() below; running this
// file alone is for a server that is already up on a fresh data dir.
require('reflect-metadata') // tsyringe, which jspurefix uses, needs it first
const path = require('path')
const fs = require('fs')
const {
  AsciiSession, SessionLauncher, JsFixWinstonLogFactory, WinstonLogger
} = require('jspurefix')

const WAIT_MS = Number(process.env.CFX_INTEROP_WAIT_MS || 10000)
const SYMBOL = 'XB2SZ6'

// ---------------------------------------------------------------- raw FIX --

// "8=FIX.4.4|9=..|35=8|..." (jspurefix logs with '|' or SOH) -> [[tag, value]].
function parseRaw (txt) {
  const out = []
  for (const part of txt.split(/[\x01|]/)) {
    if (part === '') continue
    const eq = part.indexOf('=')
    if (eq <= 0) continue
    out.push([Number(part.slice(0, eq)), part.slice(eq + 1)])
  }
  return out
}

class Msg {
  constructor (dir, raw) {
    this.dir = dir // 'in' or 'out'
    this.raw = raw.replace(/\x01/g, '|')
    this.fields = parseRaw(raw)
    this.type = this.get(35)
    this.obj = null // jspurefix's own decoding (view.toObject()), app messages
  }

  get (tag) {
    const f = this.fields.find(([t]) => t === tag)
    return f ? f[1] : undefined
  }

  // A repeating group straight from the wire: the fields after the NoXxx
  // count, one instance starting at each occurrence of the first field.
  group (countTag) {
    const i = this.fields.findIndex(([t]) => t === countTag)
    if (i < 0) return null
    const n = Number(this.fields[i][1])
    const rest = this.fields.slice(i + 1)
    if (n === 0 || rest.length === 0) return []
    const delim = rest[0][0]
    const inst = []
    for (const [t, v] of rest) {
      if (t === 10) break
      if (t === delim) {
        if (inst.length === n) break
        inst.push(new Map())
      }
      const cur = inst[inst.length - 1]
      if (cur.has(t)) break // a tag repeated: past the group
      cur.set(t, v)
    }
    return inst
  }
}

// ------------------------------------------------------------- assertions --

class InteropError extends Error {}

function fail (msg) { throw new InteropError(msg) }

function num (v) { return v === undefined ? NaN : Number(v) }

// expect(m, {tag: value}) where value is a string (exact), a number
// (numeric equality, so 5.8 matches "5.80"), a RegExp, or a function.
function expectFields (m, want, what) {
  const bad = []
  for (const [k, w] of Object.entries(want)) {
    const tag = Number(k)
    const got = m.get(tag)
    let ok
    if (w === undefined) ok = got === undefined
    else if (typeof w === 'number') ok = got !== undefined && /^-?\d+(\.\d+)?$/.test(got) && num(got) === w
    else if (w instanceof RegExp) ok = got !== undefined && w.test(got)
    else if (typeof w === 'function') ok = got !== undefined && w(got)
    else ok = got === w
    if (!ok) {
      const desc = w === undefined ? 'absent' : typeof w === 'function' ? (w.desc || 'a valid value') : String(w)
      bad.push(`${tag}=${got === undefined ? '(absent)' : got} (expected ${desc})`)
    }
  }
  if (bad.length > 0) fail(`${what}: wrong fields: ${bad.join(', ')}\n  message: ${m.raw}`)
}

const present = Object.assign((v) => v !== '', { desc: 'present' })
const positiveInt = Object.assign((v) => /^[1-9]\d*$/.test(v), { desc: 'a positive integer' })
const utcTimestamp = Object.assign((v) => /^\d{8}-\d{2}:\d{2}:\d{2}(\.\d{3,9})?$/.test(v),
  { desc: 'YYYYMMDD-HH:MM:SS.sss' })

// ---------------------------------------------------------------- session --

function findKey (o, key) {
  if (o === null || typeof o !== 'object') return undefined
  if (Object.prototype.hasOwnProperty.call(o, key)) return o[key]
  for (const v of Object.values(o)) {
    const r = findKey(v, key)
    if (r !== undefined) return r
  }
  return undefined
}

class Client extends AsciiSession {
  constructor (config, peer) {
    super(config)
    this.peer = peer
    this.checkMsgIntegrity = peer.checkIntegrity
  }

  onApplicationMsg (msgType, view) {
    // The view is only valid during this callback: decode it now.
    const seq = view.getString(34)
    const m = [...this.peer.inbox].reverse().find((x) => x.get(34) === seq && x.type === msgType)
    if (m) {
      try {
        m.obj = view.toObject()
      } catch (e) {
        m.objError = e
      }
    }
    this.peer.poke()
  }

  onReady (view) { this.peer.ready() }
  onLogon (view, user, password) { return true }
  onStopped (error) { this.peer.stopped(error) }
  onDecoded (msgType, txt) { this.peer.record('in', txt) }
  onEncoded (msgType, txt) { this.peer.record('out', txt) }

  // msgType is the code ('D'); obj names fields and groups without the
  // components around them, which shape() adds from this dictionary.
  sendMsg (msgType, obj) {
    const def = this.config.definitions.message.get(msgType)
    if (!def) fail(`${this.peer.name}: the dictionary has no message ${msgType}`)
    this.send(msgType, shape(def, obj, def.name))
  }
}

// Nests a flat object ({ Symbol: 'X', NoMDEntryTypes: [...] }) into the
// components the dictionary declares (e.g. Instrument.Symbol in QuickFIX's
// FIX44, or Symbol directly in a dictionary without the component), so the
// same scenario encodes with any QuickFIX-format FIX 4.4 dictionary. Fails if
// the dictionary does not have a field on the message.
const COMPONENT = 0
const GROUP = 1
function place (set, out, name, val) {
  const f = set.localNameToField.get(name)
  if (f) {
    out[name] = f.type === GROUP ? val.map((inst) => shape(f.definition, inst, `${set.name}.${name}`)) : val
    return true
  }
  for (const c of set.fields) {
    if (c.type !== COMPONENT) continue
    const sub = out[c.name] || {}
    if (place(c.definition, sub, name, val)) {
      out[c.name] = sub
      return true
    }
  }
  return false
}

function shape (set, flat, where) {
  const out = {}
  for (const [name, val] of Object.entries(flat)) {
    if (val === undefined) continue
    if (!place(set, out, name, val)) fail(`the dictionary has no field ${name} on ${where}`)
  }
  return out
}

class Launcher extends SessionLauncher {
  constructor (description, peer, logFactory) {
    super(description, null, logFactory)
    this.peer = peer
  }

  makeFactory (config) {
    return {
      makeSession: (sessionConfig) => {
        const s = new Client(sessionConfig, this.peer)
        this.peer.session = s
        return s
      }
    }
  }
}

// One FIX session as the test sees it: what it sent and received, and
// bounded waits for what must come next.
class Peer {
  constructor (name, opts) {
    this.name = name
    this.opts = opts
    this.inbox = [] // received, in order
    this.log = [] // sent and received, in order
    this.consumed = new Set()
    this.waiters = []
    this.session = null
    this.isReady = false
    this.isStopped = false
    this.stopError = null
    this.checkIntegrity = opts.checkIntegrity
  }

  record (dir, txt) {
    const m = new Msg(dir, txt)
    this.log.push(m)
    if (dir === 'in') this.inbox.push(m)
    this.poke()
  }

  // Waiters run after the current parser callback, so a message's decoded
  // object (onApplicationMsg) is attached before anyone looks at it.
  poke () { setImmediate(() => this.check()) }
  ready () { this.isReady = true; this.poke() }
  stopped (error) { this.isStopped = true; this.stopError = error || null; this.poke() }

  // A test that throws fails its wait (it runs from setImmediate, where a
  // throw would be uncaught).
  check () {
    for (const w of [...this.waiters]) {
      let r
      try {
        r = w.test()
      } catch (e) {
        this.waiters.splice(this.waiters.indexOf(w), 1)
        clearTimeout(w.timer)
        w.reject(e)
        continue
      }
      if (r !== undefined) {
        this.waiters.splice(this.waiters.indexOf(w), 1)
        clearTimeout(w.timer)
        w.resolve(r)
      }
    }
  }

  waitFor (what, test, ms = WAIT_MS) {
    return new Promise((resolve, reject) => {
      const w = { test, resolve, reject }
      w.timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(w), 1)
        reject(new InteropError(`${this.name}: no ${what} within ${ms} ms`))
      }, ms)
      this.waiters.push(w)
      this.check()
    })
  }

  // The next not-yet-consumed received message matching pred.
  expect (what, pred, ms) {
    return this.waitFor(what, () => {
      const m = this.inbox.find((x) => !this.consumed.has(x) && pred(x))
      if (m) { this.consumed.add(m); return m }
      if (this.isStopped) fail(`${this.name}: session stopped (${this.stopError ? this.stopError.message : 'no error'}) while waiting for ${what}`)
      return undefined
    }, ms)
  }

  async start () {
    const o = this.opts
    const description = {
      application: {
        type: 'initiator',
        name: this.name,
        reconnectSeconds: 1,
        connectTimeoutSeconds: o.connectTimeoutSeconds || 10,
        tcp: { host: o.host, port: o.port, ...(o.tls ? { tls: o.tls } : {}) },
        protocol: 'ascii',
        dictionary: o.dict
      },
      Username: o.user,
      Password: o.password,
      EncryptMethod: 0,
      ResetSeqNumFlag: false,
      HeartBtInt: 30,
      SenderCompId: o.senderCompId,
      TargetCompID: 'CFX',
      BeginString: 'FIX.4.4'
    }
    this.launcher = new Launcher(description, this, o.logFactory)
    this.running = this.launcher.run().then(() => { this.runDone = true; this.poke() },
      (e) => { this.runError = e; this.runDone = true; this.poke() })
    await this.waitFor('logon (onReady)', () => {
      if (this.isReady) return true
      if (this.runDone || this.isStopped) {
        fail(`${this.name}: session ended before logon completed: ${(this.runError || this.stopError || {}).message || 'no error given'}`)
      }
      return undefined
    })
  }

  send (msgType, obj) {
    if (!this.session) fail(`${this.name}: no session`)
    this.session.sendMsg(msgType, obj)
  }

  async logout () {
    this.session.done()
    await this.waitFor('end of session after Logout', () => (this.runDone ? true : undefined))
    if (this.runError) fail(`${this.name}: session ended with an error after Logout: ${this.runError.message}`)
  }

  stop () {
    // FixSession.stop() (protected in TypeScript): ends the transport quietly.
    try { if (this.session && !this.isStopped) this.session.stop() } catch (e) {}
    try { if (this.launcher) this.launcher.stop() } catch (e) {}
  }

  transcript () {
    return this.log.map((m) => `  ${m.dir === 'in' ? '<-' : '->'} ${m.raw}`).join('\n')
  }
}

// -------------------------------------------------------------- scenario --

function nowUtc () { return new Date() }

function newOrder (clOrdID, side, qty, price, extra = {}) {
  return {
    ClOrdID: clOrdID,
    Symbol: SYMBOL,
    Side: side,
    TransactTime: nowUtc(),
    OrderQty: qty,
    OrdType: '2',
    Price: price, // a string: sent exactly as written
    ...extra
  }
}

// A message's MD entries from the wire, cross-checked against jspurefix's own
// decoding of the same message when it decoded one.
function mdEntries (m, what) {
  const wire = m.group(268)
  if (wire === null) fail(`${what}: no NoMDEntries(268)\n  message: ${m.raw}`)
  if (m.objError) fail(`${what}: jspurefix could not decode the message: ${m.objError.message}\n  message: ${m.raw}`)
  if (m.obj) {
    const js = findKey(m.obj, 'NoMDEntries')
    const jsLen = Array.isArray(js) ? js.length : 0
    if (jsLen !== wire.length) {
      const msg = `${what}: jspurefix decoded ${jsLen} MD entries, the wire has ${wire.length}\n  message: ${m.raw}\n  decoded: ${JSON.stringify(m.obj)}`
      // Only the exchange's dictionary must describe what the exchange sends
      // (jspurefix's FIX44 has no TradeID(1003), for one).
      if (strictDecode) fail(msg)
      if (!warned.has(what)) console.warn(`WARNING (fallback dictionary): ${msg}`)
      warned.add(what)
    }
  }
  return wire
}

let strictDecode = true
const warned = new Set()

function entryDesc (e) { return [...e].map(([t, v]) => `${t}=${v}`).join('|') }

// Waits until the X messages received (from `from` on) contain an entry
// matching each of `wanted` (objects tag -> value, as in expectFields).
async function expectIncremental (peer, what, wanted) {
  const seen = []
  const matches = (e, w) => Object.entries(w).every(([k, v]) => {
    const got = e.get(Number(k))
    if (typeof v === 'number') return got !== undefined && Number(got) === v
    if (typeof v === 'function') return got !== undefined && v(got)
    return got === v
  })
  const remaining = [...wanted]
  while (remaining.length > 0) {
    const m = await peer.expect(`${what} (X; still missing ${remaining.map((w) => JSON.stringify(w)).join(', ')}; entries so far: ${seen.map(entryDesc).join(' ; ') || 'none'})`,
      (x) => x.type === 'X')
    if (m.get(262) !== undefined) expectFields(m, { 262: 'md-1' }, `${what}: X MDReqID`)
    for (const e of mdEntries(m, what)) {
      seen.push(e)
      const i = remaining.findIndex((w) => matches(e, w))
      if (i >= 0) remaining.splice(i, 1)
    }
  }
  return seen
}

async function scenario (a, b, log) {
  // Logons: the exchange answers each with Logon from CFX to the firm.
  for (const [p, comp] of [[a, 'TRADER_A'], [b, 'TRADER_B']]) {
    const lo = p.inbox.find((m) => m.type === 'A')
    if (!lo) fail(`${p.name}: onReady without a Logon(A) from the exchange`)
    expectFields(lo, { 49: 'CFX', 56: comp, 34: '1', 108: '30', 98: '0' }, `${p.name} Logon response`)
  }
  log('both sessions logged on')

  // TRADER_B subscribes to the full book and trades of XB2SZ6.
  b.send('V', {
    MDReqID: 'md-1',
    SubscriptionRequestType: '1',
    MarketDepth: 0,
    MDUpdateType: 1,
    NoMDEntryTypes: [{ MDEntryType: '0' }, { MDEntryType: '1' }, { MDEntryType: '2' }],
    NoRelatedSym: [{ Symbol: SYMBOL }]
  })
  const snap = await b.expect('MarketDataSnapshotFullRefresh(W) for md-1',
    (m) => m.type === 'W' || m.type === 'Y' || m.type === 'j' || m.type === '3')
  if (snap.type !== 'W') fail(`B: MarketDataRequest answered with ${snap.type}, not W: ${snap.raw}`)
  expectFields(snap, { 262: 'md-1', 55: SYMBOL, 268: '0' }, 'B snapshot of the empty book')
  mdEntries(snap, 'B snapshot')
  log('B: W snapshot, empty book')

  // TRADER_A: limit sell 5 @ 5.80, GTC.
  a.send('D', newOrder('A-1', '2', 5, '5.80', { TimeInForce: '1' }))
  const aNew = await a.expect('ExecutionReport(8) for A-1', (m) => ['8', '3', 'j'].includes(m.type))
  if (aNew.type !== '8') fail(`A: NewOrderSingle A-1 answered with ${aNew.type}: ${aNew.raw}`)
  expectFields(aNew, {
    11: 'A-1', 150: '0', 39: '0', 37: positiveInt, 17: present, 1: 'FIRM-A', 55: SYMBOL,
    54: '2', 40: '2', 44: 5.8, 59: '1', 38: 5, 151: 5, 14: 0, 6: 0, 60: utcTimestamp
  }, 'A-1 new (ExecType 0)')
  const aOrderId = aNew.get(37)
  log(`A: A-1 accepted, OrderID ${aOrderId}`)

  await expectIncremental(b, 'B: new offer level 5 @ 5.80',
    [{ 279: '0', 269: '1', 270: 5.8, 271: 5, 346: 1 }])
  log('B: X new offer level 5.80 x 5')

  // TRADER_B: buy 3 @ 5.80 crosses A's offer.
  b.send('D', newOrder('B-1', '1', 3, '5.80'))
  const bFill = await b.expect('ExecutionReport(8) ExecType F for B-1',
    (m) => (m.type === '8' && m.get(11) === 'B-1' && m.get(150) !== '0') || m.type === '3' || m.type === 'j')
  expectFields(bFill, {
    35: '8', 11: 'B-1', 150: 'F', 39: '2', 37: positiveInt, 17: present, 1: 'FIRM-B', 55: SYMBOL,
    54: '1', 40: '2', 44: 5.8, 38: 3, 32: 3, 31: 5.8, 880: present, 151: 0, 14: 3, 6: 5.8,
    60: utcTimestamp
  }, 'B-1 fill')
  const aFill = await a.expect('ExecutionReport(8) ExecType F for A-1',
    (m) => (m.type === '8' && m.get(11) === 'A-1') || m.type === '3' || m.type === 'j')
  expectFields(aFill, {
    35: '8', 11: 'A-1', 150: 'F', 39: '1', 37: aOrderId, 17: present, 1: 'FIRM-A', 55: SYMBOL,
    54: '2', 40: '2', 44: 5.8, 38: 5, 32: 3, 31: 5.8, 880: bFill.get(880), 151: 2, 14: 3, 6: 5.8
  }, 'A-1 partial fill (TrdMatchID as on B-1 fill)')
  if (aFill.get(17) === bFill.get(17)) fail(`the two fills share ExecID ${aFill.get(17)}`)
  const trdMatchId = bFill.get(880)
  log(`A, B: fills 3 @ 5.80, TrdMatchID ${trdMatchId}`)

  await expectIncremental(b, 'B: trade 3 @ 5.80 and offer level down to 2', [
    { 269: '2', 270: 5.8, 271: 3, 1003: (v) => v === trdMatchId },
    { 279: '1', 269: '1', 270: 5.8, 271: 2 }
  ])
  log('B: X trade 3 @ 5.80 and offer level 5.80 x 2')

  // TRADER_A cancels the remaining 2.
  a.send('F', {
    OrigClOrdID: 'A-1',
    ClOrdID: 'A-2',
    Symbol: SYMBOL,
    Side: '2',
    TransactTime: nowUtc()
  })
  const aCxl = await a.expect('ExecutionReport(8) or OrderCancelReject(9) for A-2',
    (m) => ((m.type === '8' || m.type === '9') && m.get(11) === 'A-2') || m.type === '3' || m.type === 'j')
  expectFields(aCxl, {
    35: '8', 11: 'A-2', 41: 'A-1', 37: aOrderId, 150: '4', 39: '4', 14: 3, 151: 0, 38: 5,
    6: 5.8, 1: 'FIRM-A', 55: SYMBOL, 54: '2', 17: present
  }, 'A-2 cancel of A-1')
  log('A: A-1 canceled, CumQty 3')

  await expectIncremental(b, 'B: offer level 5.80 deleted', [{ 279: '2', 269: '1', 270: 5.8 }])
  log('B: X offer level 5.80 deleted')

  // Reject paths: a price off the tick, and a cancel of a finished order.
  a.send('D', newOrder('A-3', '1', 1, '5.805'))
  const aRej = await a.expect('ExecutionReport(8) for A-3',
    (m) => (m.type === '8' && m.get(11) === 'A-3') || m.type === '3' || m.type === 'j')
  expectFields(aRej, {
    35: '8', 11: 'A-3', 37: 'NONE', 150: '8', 39: '8', 103: '99', 17: present, 55: SYMBOL, 54: '1',
    58: /PRICE_NOT_ON_TICK|MinPriceIncrement/
  }, 'A-3 price 5.805 off the 0.01 tick')
  log(`A: A-3 rejected: ${aRej.get(58)}`)

  a.send('F', {
    OrigClOrdID: 'A-1',
    ClOrdID: 'A-4',
    Symbol: SYMBOL,
    Side: '2',
    TransactTime: nowUtc()
  })
  const aCxlRej = await a.expect('OrderCancelReject(9) for A-4',
    (m) => ((m.type === '8' || m.type === '9') && m.get(11) === 'A-4') || m.type === '3' || m.type === 'j')
  expectFields(aCxlRej, { 35: '9', 11: 'A-4', 41: 'A-1', 434: '1', 102: '1', 39: /^[48]$/, 58: present },
    'A-4 cancel of the already canceled A-1')
  log(`A: A-4 cancel rejected: 102=${aCxlRej.get(102)} ${aCxlRej.get(58)}`)

  // Clean logout of both: each sends Logout and gets the exchange's Logout.
  await Promise.all([a.logout(), b.logout()])
  for (const p of [a, b]) {
    if (!p.inbox.some((m) => m.type === '5')) fail(`${p.name}: no Logout(5) from the exchange`)
  }
  log('both sessions logged out')

  // Nothing either side should have needed: session-level rejects,
  // business rejects, resend requests or gap fills.
  for (const p of [a, b]) {
    const odd = p.log.filter((m) => ['2', '3', '4', 'j', 'Y'].includes(m.type))
    if (odd.length > 0) {
      // A Reject(3) from jspurefix names the exchange's message by RefSeqNum(45).
      const lines = odd.map((m) => {
        const ref = m.dir === 'out' && m.type === '3' ? p.inbox.find((x) => x.get(34) === m.get(45)) : null
        return `  ${m.dir === 'in' ? 'received' : 'sent'} ${m.raw}` + (ref ? `\n    rejecting the exchange's ${ref.raw}` : '')
      })
      fail(`${p.name}: unexpected session/business messages:\n${lines.join('\n')}`)
    }
    const fromCfx = p.inbox.filter((m) => m.get(49) !== 'CFX' || m.get(56) !== p.opts.senderCompId)
    if (fromCfx.length > 0) fail(`${p.name}: messages with wrong CompIDs:\n${fromCfx.map((m) => `  ${m.raw}`).join('\n')}`)
    // The exchange's MsgSeqNum runs 1, 2, 3, ... without a gap.
    p.inbox.forEach((m, i) => {
      if (m.get(34) !== String(i + 1)) fail(`${p.name}: received MsgSeqNum ${m.get(34)} as message ${i + 1}: ${m.raw}`)
    })
  }
}

// jspurefix's TLS options (tcp.tls of a session description) trusting only
// the CA in the PEM file `caFile`: node's tls.connect then checks the
// certificate chain and that it names the host connected to (127.0.0.1 is an
// IP subjectAltName of the demo certificate). Its own `ca` option reads paths
// relative to jspurefix's install directory, so the PEM goes in through
// nodeTlsConnectionOptions, which it passes to tls.connect as they are.
function tlsTrusting (caFile) {
  return {
    rejectUnauthorized: true,
    nodeTlsConnectionOptions: { ca: [fs.readFileSync(caFile, 'utf8')], minVersion: 'TLSv1.2' }
  }
}

function logFactoryFor (verbose) {
  return new JsFixWinstonLogFactory(WinstonLogger.consoleOptions(verbose ? 'info' : 'error'))
}

// Resolves when the scenario passed; rejects with an InteropError whose
// message includes both sessions' transcripts. `ca`: over TLS, trusting the
// CA in that PEM file.
async function run ({ host = '127.0.0.1', port, dict, ca, log = console.log, verbose = false }) {
  if (!port) throw new Error('run: no port')
  const logFactory = logFactoryFor(verbose)
  // The exchange's own dictionary describes exactly what it sends, so
  // jspurefix also validates every received message against it.
  const checkIntegrity = !!dict && !dict.includes(`${path.sep}node_modules${path.sep}`)
  strictDecode = checkIntegrity
  const common = { host, port, dict, logFactory, checkIntegrity, tls: ca ? tlsTrusting(ca) : undefined }
  const a = new Peer('TRADER_A', { ...common, senderCompId: 'TRADER_A', user: 'trader-a', password: 'demo-trader-a' })
  const b = new Peer('TRADER_B', { ...common, senderCompId: 'TRADER_B', user: 'trader-b', password: 'demo-trader-b' })
  try {
    await a.start()
    await b.start()
    await scenario(a, b, log)
  } catch (e) {
    const err = new InteropError(`${e instanceof InteropError ? e.message : (e && e.stack) || e}\n` +
      `messages of TRADER_A (-> sent, <- received):\n${a.transcript() || '  (none)'}\n` +
      `messages of TRADER_B:\n${b.transcript() || '  (none)'}`)
    throw err
  } finally {
    a.stop()
    b.stop()
  }
}

// TRADER_A over TLS trusting the CA in `ca`, which did not sign the
// exchange's certificate: jspurefix must give up with a certificate error
// before any FIX message goes either way. Resolves with that error's text;
// rejects with an InteropError when the session logged on or failed for
// another reason.
async function refusedByWrongCa ({ host = '127.0.0.1', port, dict, ca, verbose = false }) {
  const p = new Peer('TRADER_A', {
    host, port, dict, logFactory: logFactoryFor(verbose), checkIntegrity: false,
    tls: tlsTrusting(ca), connectTimeoutSeconds: 3,
    senderCompId: 'TRADER_A', user: 'trader-a', password: 'demo-trader-a'
  })
  let error = null
  try {
    await p.start()
  } catch (e) {
    error = e
  } finally {
    p.stop()
  }
  if (!error) fail('TRADER_A logged on over TLS trusting a CA that did not sign the exchange\'s certificate')
  const text = (p.runError || p.stopError || error).message || String(error)
  if (!/certificate/i.test(text)) fail(`TRADER_A with the wrong CA failed, but not on the certificate: ${text}`)
  if (p.log.length > 0) fail(`FIX messages went over a connection whose certificate was refused:\n${p.transcript()}`)
  return text
}

function defaultDict () {
  const cfx = path.resolve(__dirname, '../../../gateway/fix/spec/CFX-FIX44.xml')
  if (fs.existsSync(cfx)) return cfx
  return require.resolve('jspurefix/data/FIX44.xml')
}

module.exports = { run, refusedByWrongCa, defaultDict, InteropError }

if (require.main === module) {
  const args = require('util').parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '9878' },
      dict: { type: 'string' },
      ca: { type: 'string' },
      verbose: { type: 'boolean', default: false }
    }
  }).values
  const dict = args.dict ? path.resolve(args.dict) : defaultDict()
  const ca = args.ca ? path.resolve(args.ca) : undefined
  console.log(`interop: jspurefix against ${args.host}:${args.port}${ca ? ` over TLS (CA ${ca})` : ''}, dictionary ${dict}`)
  run({ host: args.host, port: Number(args.port), dict, ca, verbose: args.verbose })
    .then(() => { console.log('interop: PASS'); process.exit(0) },
      (e) => { console.error(`interop: FAIL: ${e.message}`); process.exit(1) })
}
