'use strict'
// Runs the jspurefix interop scenario (interop.js) against a fresh
// cfx-exchanged: a temp data dir, the simulated clock, ephemeral ports (read
// from the server's "listening: ..." line). Stops the server with SIGTERM and
// requires exit status 0. Exits 0 only if everything passed; the server is
// killed on every path.
//
// --tls: the data dir gets the demo certificates (deploy/demo-certs) and the
// scenario runs on the FIX TLS listener, jspurefix trusting the demo CA; first
// a session trusting another CA must be refused on the certificate (and the
// exchange log the failed handshake).
//
//   node run.js --server build/bin/cfx-exchanged [--repo <checkout>] [--dict <xml>] [--tls] [--verbose]
//
// CTest runs it as fix_interop_jspurefix and, with --tls, as
// fix_interop_jspurefix_tls (tests/interop/CMakeLists.txt).
const path = require('path')
const fs = require('fs')
const os = require('os')
const { spawn, execFileSync } = require('child_process')
const { parseArgs } = require('util')

const STARTUP_MS = 30000 // until the listening line
const STOP_MS = 30000 // from SIGTERM to exit

let server = null // the child process while it may be running
let tempDir = null

function say (line) { process.stdout.write(`fix-interop: ${line}\n`) }

function die (msg) {
  process.stderr.write(`fix-interop: FAIL: ${msg}\n`)
  killServer()
  if (tempDir) process.stderr.write(`fix-interop: server data dir kept: ${tempDir}\n`)
  process.exit(1)
}

function killServer () {
  if (server && server.exitCode === null && server.signalCode === null) {
    try { server.kill('SIGKILL') } catch (e) {}
  }
}

process.on('exit', killServer)
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => die(`received ${sig}`))
}
process.on('uncaughtException', (e) => die(`uncaught: ${(e && e.stack) || e}`))
process.on('unhandledRejection', (e) => die(`unhandled rejection: ${(e && e.stack) || e}`))

const args = parseArgs({
  options: {
    server: { type: 'string' },
    repo: { type: 'string', default: path.resolve(__dirname, '../../..') },
    dict: { type: 'string' },
    tls: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false }
  }
}).values

// node_modules comes from `npm ci`; without it this test fails (never skips).
if (!fs.existsSync(path.join(__dirname, 'node_modules', 'jspurefix', 'package.json'))) {
  die(`jspurefix is not installed (no node_modules): run \`npm ci\` in ${__dirname} ` +
    '(deploy/test does this before ctest)')
}
const { run, refusedByWrongCa } = require('./interop.js')

if (!args.server) die('--server <path to cfx-exchanged> is required')
const serverPath = path.resolve(args.server)
if (!fs.existsSync(serverPath)) die(`no cfx-exchanged at ${serverPath}`)

// The exchange's own dictionary; jspurefix's bundled FIX44 only while the
// repo has none.
let dict = args.dict ? path.resolve(args.dict) : path.join(path.resolve(args.repo), 'gateway/fix/spec/CFX-FIX44.xml')
if (!fs.existsSync(dict)) {
  if (args.dict) die(`no dictionary at ${dict}`)
  say(`WARNING: ${dict} does not exist; using jspurefix's bundled FIX44.xml`)
  dict = require.resolve('jspurefix/data/FIX44.xml')
}

async function checkDictionary (file) {
  const { DefinitionFactory } = require('jspurefix')
  let defs
  try {
    defs = await new DefinitionFactory().getDefinitions(file)
  } catch (e) {
    die(`jspurefix cannot load the dictionary ${file}: ${(e && e.stack) || e}`)
  }
  const need = ['Logon', 'Logout', 'NewOrderSingle', 'OrderCancelRequest', 'ExecutionReport',
    'OrderCancelReject', 'MarketDataRequest', 'MarketDataSnapshotFullRefresh',
    'MarketDataIncrementalRefresh']
  const missing = need.filter((n) => !defs.message.has(n))
  if (missing.length > 0) die(`dictionary ${file} (as jspurefix reads it) lacks messages: ${missing.join(', ')}`)
  say(`dictionary ${file}: ${new Set(defs.message.values()).size} messages, ${new Set(defs.simple.values()).size} fields`)
}

// Server output lines seen so far, and waits for one to come.
const serverLines = []
const lineWaiters = []
function onServerLine (line) {
  serverLines.push(line)
  for (const w of [...lineWaiters]) {
    if (w.re.test(line)) {
      lineWaiters.splice(lineWaiters.indexOf(w), 1)
      clearTimeout(w.timer)
      w.resolve(line)
    }
  }
}
function waitForServerLine (re, ms) {
  const seen = serverLines.find((l) => re.test(l))
  if (seen) return Promise.resolve(seen)
  return new Promise((resolve, reject) => {
    const w = { re, resolve }
    w.timer = setTimeout(() => {
      lineWaiters.splice(lineWaiters.indexOf(w), 1)
      reject(new Error(`cfx-exchanged logged no line matching ${re} within ${ms} ms`))
    }, ms)
    lineWaiters.push(w)
  })
}

// --tls: the demo CA and server certificate in <data>/tls, made by the
// script deploy/run uses, and a CA that signed nothing the exchange has.
function makeCertificates (data) {
  const script = path.join(path.resolve(args.repo), 'deploy/demo-certs')
  say(`${script} ${data}`)
  try {
    execFileSync(script, [data], { stdio: ['ignore', 'pipe', 'pipe'] })
    const other = path.join(tempDir, 'other-ca')
    fs.mkdirSync(other)
    execFileSync('openssl', ['req', '-x509', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
      '-nodes', '-days', '1', '-subj', '/CN=Another CA', '-addext', 'basicConstraints=critical,CA:TRUE',
      '-keyout', path.join(other, 'ca.key'), '-out', path.join(other, 'ca.crt')], { stdio: ['ignore', 'pipe', 'pipe'] })
    return { ca: path.join(data, 'tls', 'ca.crt'), otherCa: path.join(other, 'ca.crt') }
  } catch (e) {
    die(`cannot make the certificates: ${e.message}${e.stderr ? `: ${e.stderr}` : ''}`)
  }
}

function startServer () {
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfx-fix-interop-'))
  const data = path.join(tempDir, 'data')
  const certs = args.tls ? makeCertificates(data) : null
  const argv = ['--data-dir', data, '--clock', 'simulated',
    '--fix-port', '0', '--protobuf-port', '0', '--http-port', '0',
    '--fix-tls-port', '0', '--protobuf-tls-port', '0', '--https-port', '0']
  say(`starting ${serverPath} ${argv.join(' ')}`)
  server = spawn(serverPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })))
  server.on('error', (e) => die(`cannot start ${serverPath}: ${e.message}`))
  const listening = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cfx-exchanged did not log "listening: ..." within ${STARTUP_MS} ms`)), STARTUP_MS)
    let pending = ''
    const onData = (chunk) => {
      pending += chunk.toString()
      let nl
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl)
        pending = pending.slice(nl + 1)
        process.stdout.write(`server| ${line}\n`)
        onServerLine(line)
        if (!/\blistening: /.test(line)) continue
        clearTimeout(timer)
        const want = args.tls ? 'fix TLS' : 'fix'
        const m = new RegExp(`\\b${want}\\s+([^\\s,;]+):(\\d+)`).exec(line)
        if (!m) reject(new Error(`cfx-exchanged does not listen on FIX: no "${want} <addr>:<port>" in its line "${line}"`))
        else resolve(Number(m[2]))
      }
    }
    server.stdout.on('data', onData)
    server.stderr.on('data', onData)
    exited.then(({ code, signal }) => {
      clearTimeout(timer)
      reject(new Error(`cfx-exchanged exited during startup (status ${code}, signal ${signal})`))
    })
  })
  return { listening, exited, certs }
}

async function stopServer (exited) {
  server.kill('SIGTERM')
  let timer
  const r = await Promise.race([exited, new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), STOP_MS)
  })])
  clearTimeout(timer)
  if (r === null) die(`cfx-exchanged did not exit within ${STOP_MS} ms of SIGTERM`)
  if (r.code !== 0) die(`cfx-exchanged exited with status ${r.code} (signal ${r.signal}) after SIGTERM, expected 0`)
  say('cfx-exchanged stopped cleanly (status 0)')
}

async function main () {
  await checkDictionary(dict)
  const { listening, exited, certs } = startServer()
  let port
  try {
    port = await listening
  } catch (e) {
    die(e.message)
  }
  const version = require('jspurefix/package.json').version
  if (certs) {
    say(`FIX TLS port ${port}; jspurefix ${version} trusting another CA (${certs.otherCa}) must be refused`)
    try {
      const why = await refusedByWrongCa({ host: '127.0.0.1', port, dict, ca: certs.otherCa, verbose: args.verbose })
      say(`refused as it must be: ${why}`)
      const line = await waitForServerLine(/fix gateway: TLS handshake failed/, 10000)
      say(`and the exchange logged: ${line}`)
    } catch (e) {
      die(e.message)
    }
  }
  say(`FIX${certs ? ' TLS' : ''} port ${port}; running the scenario with jspurefix ${version}` +
    (certs ? ` over TLS, trusting the demo CA ${certs.ca}` : ''))
  try {
    await run({ host: '127.0.0.1', port, dict, ca: certs ? certs.ca : undefined, verbose: args.verbose, log: (l) => say(l) })
  } catch (e) {
    die(e.message)
  }
  await stopServer(exited)
  fs.rmSync(tempDir, { recursive: true, force: true })
  tempDir = null
  say('PASS')
  process.exit(0)
}

main()
