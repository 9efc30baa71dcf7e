// turnsim's evaluator of DSH's own Web view code (see docs/dsh-view.md):
// DSH 0.1.0-rc.8's conversation node Definitions (ui-conversation) run by
// its ConversationNodeAssembler (client-runtime), and the rows its React
// components render for the recovery nodes, in one Node process without a
// browser.
//
// Those packages ship as browser bundles for the page's module loader
// (window.__ModuleLoader__.load({id, factory(require)})), and the
// Definitions are not exported: the conversation plugin's apply()
// registers them on the client's context. The shim below is a stand-in
// for that loader and for that context, no more: it recognises the two
// bundles by what they declare and register, and refuses, naming the
// file, any bundle that does not declare or register what the evaluator
// reads. It never derives from a bundle it did not recognise.
//
// Protocol (JSON lines): at start, one line {"ready": …} or {"fatal":
// "…"}. Then per log: a request line {"id", "events": N, "views": [...],
// "live": [...]} followed by the log's N events, one v1 JSON line each;
// one result line back. A view is {"steps": [[from, to], …], "rows":
// bool}: its first step installs events[from:to] as the loaded window
// (replaceWindow, as the Web UI does when it opens a session: older
// history remains when from > 0), each later one prepends an older page
// (prepend, as it does when the user scrolls up); the Chat nodes after
// each step come back. "live" lists checkpoints: the events are appended
// one by one from an empty window (append, as the page does while it has
// the session open), flushed after each, and read at each checkpoint (an
// exclusive end index), with what each flush that threw said. Only the
// recovery nodes come back (model-retry, turn-error, turn-max-tokens)
// with the count of all nodes.
//
// Nothing here reads the real clock, the network or the disk after the
// bundles are loaded: the page's clock (Date.now, which a live retry row
// counts down from) is frozen, so a log gives the same bytes every time.

import { createRequire } from 'node:module'
import readline from 'node:readline'

const require = createRequire(import.meta.url)

// The instant the page first draws a row: turnsim's epoch. A live row's
// countdown starts there from the attempt's full delay.
const PAGE_NOW = 1767225600000
Date.now = () => PAGE_NOW

const RUNTIME = '@deepseek-ai/dsh-client-runtime'
const CONVERSATION = '@deepseek-ai/dsh-client-ui-conversation'
// The node kinds turnsim compares and judges, as the Chat view keys them.
const RECOVERY = new Set(['model-retry', 'turn-error', 'turn-max-tokens'])

// fatal ends the evaluator before any log: a bundle it does not know must
// fail loudly, never derive nothing.
function fatal(message) {
  process.stdout.write(JSON.stringify({ fatal: message }) + '\n')
  process.exit(2)
}

class ShimError extends Error {}

// --- The page's module loader, stood in for ---------------------------

// The modules a bundle may require, beside the bundles themselves: the
// real React and cordis, and two UI packages (slots, primitives) that npm
// does not carry at rc.8 and that nothing evaluated here calls, but for
// one decorative component; any other use of them throws, naming it.
// React as the page ships it: its production build (the development one
// checks and warns on every element, and was a fifth of a log's time).
process.env.NODE_ENV = 'production'
const cordis = await import('@deepseek-ai/cordis')
const React = require('react')
const server = require('react-dom/server')
function inert(pkg, components) {
  return new Proxy({}, {
    get(_, name) {
      if (typeof name === 'symbol' || name === 'then') return undefined
      if (components.includes(name)) return () => null
      return () => { throw new ShimError(`${pkg}.${name} was used, and turnsim's view evaluator stands in for ${pkg} (it is not on npm at rc.8): extend dshview/evaluator.mjs`) }
    },
  })
}
const modules = new Map([
  ['react', React],
  ['react/jsx-runtime', require('react/jsx-runtime')],
  ['@deepseek-ai/cordis', cordis],
  ['@deepseek-ai/dsh-client-ui-slots', inert('@deepseek-ai/dsh-client-ui-slots', [])],
  ['@deepseek-ai/dsh-client-ui-primitives', inert('@deepseek-ai/dsh-client-ui-primitives', ['StateDot'])],
])

// loadBundle evaluates one bundle and returns its exports: it must declare
// exactly one module, of the expected id, through the loader.
async function loadBundle(specifier, id) {
  let file
  try {
    file = require.resolve(specifier)
  } catch (error) {
    fatal(`${specifier}: not installed (${error.code ?? error.message}): make dsh-loop installs DSH's view packages beside its loop packages`)
  }
  const declared = []
  globalThis.window = { __ModuleLoader__: { load: (module) => declared.push(module) } }
  try {
    await import(file)
  } catch (error) {
    fatal(`${file}: evaluating the bundle failed: ${error.message}`)
  } finally {
    delete globalThis.window
  }
  if (declared.length !== 1 || declared[0]?.id !== id || typeof declared[0]?.factory !== 'function') {
    const what = declared.length === 0 ? 'it declared no module through window.__ModuleLoader__.load'
      : `it declared ${declared.map((m) => JSON.stringify(m?.id)).join(', ')}`
    fatal(`${file}: not the module-loader bundle of ${id} that turnsim's view evaluator knows: ${what}`)
  }
  const requireFrom = (name) => {
    if (!modules.has(name)) throw new ShimError(`${file}: the bundle requires ${JSON.stringify(name)}, which turnsim's view evaluator does not provide`)
    return modules.get(name)
  }
  try {
    return { file, exports: declared[0].factory(requireFrom) }
  } catch (error) {
    fatal(error instanceof ShimError ? error.message : `${file}: the bundle's factory threw: ${error.message}`)
  }
}

const runtime = await loadBundle(`${RUNTIME}/client`, RUNTIME)
for (const name of ['ConversationNodeAssembler', 'ConversationEventRegistry', 'ConversationViewRegistry']) {
  if (typeof runtime.exports[name] !== 'function') fatal(`${runtime.file}: the bundle exports no ${name}: not the client runtime turnsim's view evaluator knows`)
}
modules.set(`${RUNTIME}/client`, runtime.exports)
const conversation = await loadBundle(`${CONVERSATION}/client`, CONVERSATION)
if (typeof conversation.exports.apply !== 'function') fatal(`${conversation.file}: the bundle exports no apply(): not the conversation plugin turnsim's view evaluator knows`)

// --- The conversation plugin's context, stood in for ------------------

// apply() registers the Definitions, the Chat view builder, the node
// renderers and the dictionaries first, then goes on to the page's
// services. The context gives it DSH's own registries and captures the
// rest; every other service is inert, and its first use ends apply()
// (Stop), which is where the capture is complete.
class Stop extends Error {}
const root = new cordis.Context()
const eventRegistry = new runtime.exports.ConversationEventRegistry(root)
const viewRegistry = new runtime.exports.ConversationViewRegistry(root)
const renderers = new Map()
let dictionaries
let stoppedAt = null
const service = (name) => new Proxy(() => {}, {
  get: (_, key) => { throw new Stop(`${name}.${String(key)}`) },
  apply: () => { throw new Stop(`${name}()`) },
  construct: () => { throw new Stop(`new ${name}`) },
})
const pluginContext = new Proxy({}, {
  get(_, name) {
    switch (name) {
      case 'conversationEvents': return eventRegistry
      case 'conversationViews': return viewRegistry
      case 'effect': return (effect) => effect()
      case 'slots': return {
        inject: (_slot, contribute) => contribute(),
        register: (options, component) => { renderers.set(options.key, component); return () => {} },
      }
      case 'locale': return {
        register: (_namespace, dicts) => { dictionaries = dicts; return () => {} },
        bind: () => { throw new Stop('locale.bind') },
      }
    }
    return service(String(name))
  },
})
try {
  conversation.exports.apply(pluginContext)
} catch (error) {
  if (!(error instanceof Stop)) fatal(`${conversation.file}: apply() threw before it registered what the evaluator reads: ${error.message}`)
  stoppedAt = error.message
}
const definitions = eventRegistry.entries()
const missing = []
for (const kind of ['model-retry', 'turn-error']) {
  const d = definitions.find((def) => def.kind === kind)
  if (!d || typeof d.match !== 'function' || typeof d.buildViewNode !== 'function') missing.push(`the ${kind} Definition`)
  if (typeof renderers.get(kind) !== 'object' && typeof renderers.get(kind) !== 'function') missing.push(`the ${kind} renderer`)
}
if (!viewRegistry.entries().some((v) => v.target === 'chat' && typeof v.create === 'function')) missing.push('the chat view builder')
const english = dictionaries?.en
for (const key of ['message.retry.status', 'message.turnError']) {
  if (typeof english?.[key] !== 'string') missing.push(`the English string ${key}`)
}
if (missing.length > 0) {
  fatal(`${conversation.file}: apply() reached ${stoppedAt ?? 'its end'} without registering ${missing.join(', ')}: not the conversation plugin turnsim's view evaluator knows`)
}

// t is the plugin's English translator: DSH's strings with their {name}
// placeholders filled.
const t = (key, values) => {
  const text = english[key]
  if (typeof text !== 'string') throw new ShimError(`the conversation plugin asked for the string ${key}, which its English dictionary lacks`)
  return text.replace(/\{(\w+)\}/g, (whole, name) => (values && name in values ? String(values[name]) : whole))
}

// --- Deriving ---------------------------------------------------------

const { ConversationNodeAssembler } = runtime.exports
const assembler = () => new ConversationNodeAssembler(eventRegistry, viewRegistry)

// nodesOf reads the Chat view as the page renders it: its visible nodes
// in order, the recovery ones whole.
function nodesOf(asm) {
  const chat = asm.snapshot('chat')
  if (chat === undefined) throw new ShimError('the assembler has no chat view')
  const nodes = []
  for (const key of chat.order) {
    const node = chat.nodes.get(key)
    if (node !== undefined && RECOVERY.has(node.kind)) {
      nodes.push({ kind: node.kind, key: node.key, id: node.id, anchorSeq: node.anchorSeq, visibility: node.visibility, data: wireData(node) })
    }
  }
  return { total: chat.order.length, nodes }
}

// wireData is a node's data as turnsim compares it: a model-retry node's
// attempts without the llm/retry fields turnsim's view does not keep
// (provider, policyKey), and without its current attempt, which is the
// last one's state and which the rows, drawn from it, are compared by.
function wireData(node) {
  if (node.kind !== 'model-retry') return node.data
  return {
    attempts: node.data.attempts.map((a) => ({
      seq: a.seq, time: a.time, retryState: a.retryState, turn: a.turn, step: a.step, retryId: a.retryId,
      retry: a.retry, maxRetries: a.maxRetries, mode: a.mode, delayMs: a.delayMs, failure: a.failure,
    })),
  }
}

// rowsOf renders each recovery node with DSH's own renderer and reads the
// row as turnsim reads DSH's Web UI in Chromium (conformance/webui).
function rowsOf(asm) {
  const chat = asm.snapshot('chat')
  const rows = []
  for (const key of chat.order) {
    const node = chat.nodes.get(key)
    if (node === undefined || !RECOVERY.has(node.kind)) continue
    const row = readRow(parseHTML(server.renderToStaticMarkup(React.createElement(renderers.get(node.kind), { node, t }))))
    rows.push({ ...row, seq: Math.floor(node.anchorSeq) }) // a notice sits just after its event
  }
  return rows
}

// parseHTML parses React's static markup (well-formed, every element
// closed, no void elements in these rows) into a tree.
function parseHTML(html) {
  const root = { attrs: {}, children: [] }
  const stack = [root]
  const entity = { amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'", '#39': "'" }
  const decode = (s) => s.replace(/&(amp|lt|gt|quot|#x27|#39);/g, (_, e) => entity[e])
  for (const [, close, tag, attrs, text] of html.matchAll(/<(\/?)([a-zA-Z][\w-]*)([^>]*)>|([^<]+)/g)) {
    const top = stack[stack.length - 1]
    if (text !== undefined) top.children.push(decode(text))
    else if (close) stack.pop()
    else {
      const element = { tag, attrs: {}, children: [] }
      for (const [, name, value] of attrs.matchAll(/([\w-]+)="([^"]*)"/g)) element.attrs[name] = decode(value)
      top.children.push(element)
      if (!attrs.trim().endsWith('/')) stack.push(element)
    }
  }
  return root
}

const textOf = (n) => (typeof n === 'string' ? n : n.children.map(textOf).join(''))
const squash = (s) => s.replace(/\s+/g, ' ').trim()
function find(n, test) {
  if (typeof n === 'string') return null
  if (test(n)) return n
  for (const c of n.children) {
    const found = find(c, test)
    if (found) return found
  }
  return null
}
const hasClass = (part) => (n) => (n.attrs.class ?? '').includes(part)

function readRow(tree) {
  const row = find(tree, (n) => hasClass('retryRow')(n) || hasClass('turnErrorRow')(n))
  if (row === null) throw new ShimError('a recovery node rendered no retry or turn-error row')
  const text = (test) => { const n = find(row, test); return n ? squash(textOf(n)) : '' }
  if (hasClass('retryRow')(row)) {
    const details = find(row, hasClass('retryDetails'))
    return {
      kind: 'model-retry',
      status: text((n) => n.attrs.role === 'status'),
      active: row.attrs['data-active'] === 'true',
      details: details ? details.children.filter((c) => typeof c !== 'string' && c.tag === 'div').map((c) => squash(textOf(c))) : [],
    }
  }
  const maxTokens = find(row, hasClass('maxTokensTitle')) !== null
  return {
    kind: maxTokens ? 'turn-max-tokens' : 'turn-error',
    title: text((n) => hasClass('turnErrorTitle')(n) || hasClass('maxTokensTitle')(n)),
    message: text(hasClass('turnErrorMessage')),
    code: text((n) => n.tag === 'code'),
  }
}

// A throw of DSH's view code is that view's result, not the evaluator's
// end: the other views of the log still come back.
function attempt(f) {
  try {
    return f()
  } catch (error) {
    if (error instanceof ShimError) throw error
    return { error: `DSH's view code threw: ${error?.message ?? String(error)}` }
  }
}

// DSH's test fixtures (../shared/dsh-logs) replace ids by placeholders
// ({{messageId}}, {{sessionId}}) that repeat in a log, and DSH's view
// keys an input message by its id and refuses a second start of it. A
// placeholder id is made distinct by its event's seq; a real id is left
// as it is (a real log that repeats one is a finding about that log).
const PLACEHOLDER = /^\{\{[^{}]*\}\}$/
function distinctPlaceholders(event) {
  const message = event.type === 'user/message' ? event.data : event.type === 'assistant/message' ? event.data?.message : undefined
  if (typeof message?.id === 'string' && PLACEHOLDER.test(message.id)) message.id = `${message.id}@${event.seq}`
  return event
}

function evaluate(request, events) {
  events.forEach(distinctPlaceholders)
  const unreadable = events.findIndex((event) => event.unreadable !== undefined)
  if (unreadable >= 0) return { id: request.id, error: `event line ${unreadable + 1} of the request is not JSON: ${events[unreadable].unreadable}` }
  const entry = (event) => ({ event })
  const views = request.views.map((view) => attempt(() => {
    const asm = assembler()
    const steps = []
    view.steps.forEach(([from, to], k) => {
      const window = events.slice(from, to).map(entry)
      if (k === 0) asm.replaceWindow(window, from > 0)
      else asm.prepend(window, from > 0)
      asm.flush()
      steps.push(nodesOf(asm))
    })
    return view.rows ? { steps, rows: rowsOf(asm) } : { steps }
  }))
  const live = attempt(() => {
    const asm = assembler()
    asm.replaceWindow([], false)
    asm.flush()
    const snapshots = []
    const throws = []
    let stale = false
    let appended = 0
    for (const end of request.live) {
      for (; appended < end; appended++) {
        const event = events[appended]
        try {
          asm.append(entry(event))
        } catch (error) {
          if (!(error instanceof ShimError)) error.message = `as seq ${event.seq} (${event.type}) was appended: ${error.message}`
          throw error
        }
        // A flush that throws is the page's too: its notifier's flush
        // throws out of the frame, its snapshot stays as it was, and the
        // next event's flush tries again with everything still dirty.
        try {
          asm.flush()
          stale = false
        } catch (error) {
          if (error instanceof ShimError) throw error
          throws.push({ seq: event.seq, type: event.type, message: error?.message ?? String(error) })
          stale = true
        }
      }
      snapshots.push({ ...nodesOf(asm), rows: rowsOf(asm), ...(stale ? { stale } : {}) })
    }
    return { snapshots, throws }
  })
  return { id: request.id, views, live }
}

// Self-check before any log: a two-message turn derives Chat nodes. (A
// bundle recognised by its registrations but assembling nothing would
// otherwise agree with every log that has no recovery node.)
{
  const probe = [
    { type: 'turn/start', seq: 0, time: 0, data: { turn: 1 } },
    { type: 'user/message', seq: 1, time: 0, surfaceOp: 'append', data: { id: 'probe', role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'probe' }] } },
    { type: 'turn/end', seq: 2, time: 0, data: { turn: 1, reason: { kind: 'error', error: { code: 'SERVER', message: 'probe' } } } },
  ]
  const result = evaluate({ id: 0, views: [{ steps: [[0, probe.length]], rows: true }], live: [] }, probe)
  const view = result.views[0]
  if (view.error || view.steps[0].total === 0 || view.rows.length === 0) {
    fatal(`${conversation.file}: the Definitions derive no Chat node for a one-turn log${view.error ? ` (${view.error})` : ''}: not the conversation plugin turnsim's view evaluator knows`)
  }
}

process.stdout.write(JSON.stringify({
  ready: {
    runtime: runtime.file,
    conversation: conversation.file,
    definitions: definitions.map((d) => d.kind),
    renderers: [...renderers.keys()],
  },
}) + '\n')

// The loop: a request line, its events, one result line. The input ends
// when simrun closes the evaluator; the loop ends after the last request
// and the process once its answers are written (an exit at the input's
// end cut answers still in the pipe).
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
let request = null
let events = []
for await (const line of lines) {
  if (request === null) {
    if (line.trim() === '') continue
    try {
      request = JSON.parse(line)
    } catch (error) {
      process.stdout.write(JSON.stringify({ error: `not a request: ${error.message}` }) + '\n')
      continue
    }
    events = []
  } else {
    try {
      events.push(JSON.parse(line))
    } catch (error) {
      events.push({ unreadable: error.message })
    }
  }
  if (events.length < request.events) continue
  let result
  try {
    result = evaluate(request, events)
  } catch (error) {
    result = { id: request.id, error: String(error?.stack ?? error) }
  }
  process.stdout.write(JSON.stringify(result) + '\n')
  request = null
}
