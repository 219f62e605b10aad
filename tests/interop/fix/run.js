'use strict'
// Runs the jspurefix interop scenario (interop.js) against a fresh
// cfx-exchanged: a temp data dir, the simulated clock, ephemeral ports (read
// from the server's "listening: ..." line). Stops the server with SIGTERM and
// requires exit status 0. Exits 0 only if everything passed; the server is
// killed on every path.
//
//   node run.js --server build/bin/cfx-exchanged [--repo <checkout>] [--dict <xml>] [--verbose]
//
// CTest runs it as fix_interop_jspurefix (tests/interop/CMakeLists.txt).
const path = require('path')
const fs = require('fs')
const os = require('os')
const { spawn } = require('child_process')
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
    verbose: { type: 'boolean', default: false }
  }
}).values

// node_modules comes from `npm ci`; without it this test fails (never skips).
if (!fs.existsSync(path.join(__dirname, 'node_modules', 'jspurefix', 'package.json'))) {
  die(`jspurefix is not installed (no node_modules): run \`npm ci\` in ${__dirname} ` +
    '(deploy/test does this before ctest)')
}
const { run } = require('./interop.js')

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

function startServer () {
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfx-fix-interop-'))
  const argv = ['--data-dir', path.join(tempDir, 'data'), '--clock', 'simulated',
    '--fix-port', '0', '--protobuf-port', '0', '--http-port', '0']
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
        if (!/\blistening: /.test(line)) continue
        clearTimeout(timer)
        const m = /\bfix\s+([^\s,;]+):(\d+)/.exec(line)
        if (!m) reject(new Error(`cfx-exchanged does not listen on FIX: no "fix <addr>:<port>" in its line "${line}"`))
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
  return { listening, exited }
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
  const { listening, exited } = startServer()
  let port
  try {
    port = await listening
  } catch (e) {
    die(e.message)
  }
  say(`FIX port ${port}; running the scenario with jspurefix ${require('jspurefix/package.json').version}`)
  try {
    await run({ host: '127.0.0.1', port, dict, verbose: args.verbose, log: (l) => say(l) })
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
