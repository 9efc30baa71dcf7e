// turnsim's driver of DSH's own agent loop (see docs/dsh-loop.md): DSH's
// real loop, llm-retry, compaction-basic and DeepSeek adapter, composed in
// this process as DSH's own tests compose them, run in virtual time.
//
// It reads one plan a line on stdin and writes one result a line on
// stdout, in order. A plan is data made by turnsim's Go side (package
// dshloop): the provider's answers at the HTTP level, scripted tools, the
// inputs and the world's actions with the points they land at, the route's
// retry policy and compaction's configuration, the seed of ids and jitter.
// A result is DSH's session log as its JSONL persistence encodes it, and
// the facts of the run the oracle needs beyond the log.
//
// Everything that could make two runs differ is replaced: timers and
// Date by a fake clock (a plan starts at the same instant, advances only
// when nothing else can run), crypto.randomUUID by a seeded counter, and
// llm-retry's jitter by the plan's samples (its documented test hook).
// Nothing here reads the real clock, the network or the disk.

import FakeTimers from '@sinonjs/fake-timers'
import crypto from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'
import readline from 'node:readline'

// The instant every plan starts at: turnsim's epoch, 2026-01-01T00:00:00Z.
const EPOCH = 1767225600000

// Ids: a plan's seed and a counter, as UUIDs DSH accepts.
let idSeed = 0n
let idCount = 0
function seededUUID() {
  idCount++
  const a = (idSeed * 0x9E3779B97F4A7C15n + BigInt(idCount)) & 0xFFFFFFFFFFFFn
  const hex = a.toString(16).padStart(12, '0')
  return `00000000-0000-4000-8000-${hex}`
}
crypto.randomUUID = seededUUID
if (globalThis.crypto) globalThis.crypto.randomUUID = seededUUID
syncBuiltinESMExports()

// Virtual time, counted in microseconds: fake-timers takes a delay's
// integer part, and llm-retry's jittered delays are fractional
// milliseconds, which the model waits exactly; so the fake clock runs in
// microseconds behind timers that take milliseconds, and Date and
// performance read it in milliseconds (Date to the whole one, as a real
// clock's). Node's own timers count whole milliseconds: a platform's
// rounding, not DSH's code, and not what the plans compare.
const US = 1000
const clock = FakeTimers.install({
  now: 0,
  toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
  shouldClearNativeTimers: false,
})
const fakeSetTimeout = globalThis.setTimeout
const fakeSetInterval = globalThis.setInterval
const inMicros = (ms) => Math.round((Number(ms) || 0) * US)
globalThis.setTimeout = (fn, ms, ...args) => fakeSetTimeout(fn, inMicros(ms), ...args)
globalThis.setInterval = (fn, ms, ...args) => fakeSetInterval(fn, inMicros(ms), ...args)
// The virtual time in (possibly fractional) milliseconds since EPOCH.
const elapsedMs = () => clock.now / US
const RealDate = Date
class VirtualDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(EPOCH + Math.floor(elapsedMs()))
    else super(...args)
  }

  static now() { return EPOCH + Math.floor(elapsedMs()) }
}
globalThis.Date = VirtualDate
Object.defineProperty(globalThis.performance, 'now', { value: elapsedMs, configurable: true })
const realSetImmediate = globalThis.setImmediate
const hop = () => new Promise((resolve) => realSetImmediate(resolve))

// DSH's packages, imported after the fakes are in place.
const { Context } = await import('@deepseek-ai/cordis')
const llm = await import('@deepseek-ai/dsh-llm')
const sessionPkg = await import('@deepseek-ai/dsh-session')
const SystemPrompt = (await import('@deepseek-ai/dsh-system-prompt')).default
const tools = await import('@deepseek-ai/dsh-tools')
const AgentRegistry = (await import('@deepseek-ai/dsh-agent')).default
const AgentLoop = (await import('@deepseek-ai/dsh-agent-loop')).default
const llmRetry = await import('@deepseek-ai/dsh-llm-retry')
const TokenMeter = (await import('@deepseek-ai/dsh-token-meter')).default
const BasicCompactionEngine = (await import('@deepseek-ai/dsh-compaction-basic')).default
const { DeepSeekAdapter, resolveAdapterOptions } = await import('@deepseek-ai/dsh-llm-deepseek')
const ToolResultPruner = (await import('@deepseek-ai/dsh-compaction-tool-result-pruner')).default
const { JsonlSessionPersistence } = await import('@deepseek-ai/dsh-session-persistence-jsonl')

const encoder = new TextEncoder()

// answerResponse plays one answer of the plan (serve.Answer) as fetch's
// Response, in virtual time: a stream's headers at once, its first event
// after the latency; any other answer after the latency. A latency of 0
// is still a timer's turn away, as a socket's answer is: the request is
// where what else is due at that instant lands (a plan's action at the
// time a turn starts lands while its request waits, as in the model),
// not after the whole turn has run on promises alone (found by --sut
// both: a cancel and a follow-up due at one instant).
async function answerResponse(answer, signal) {
  const abortError = () => signal?.reason ?? new DOMException('The operation was aborted.', 'AbortError')
  const sleep = (ms) => new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(abortError()); return }
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve() }, ms)
    function onAbort() { clearTimeout(timer); reject(abortError()) }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
  // As fetch does: an aborted request rejects at once, with the reason.
  if (signal?.aborted) throw abortError()
  if (answer.status !== 200) {
    await sleep(answer.latencyMs ?? 0)
    if (answer.status === 0) throw new TypeError('fetch failed: the connection was cut')
    return new Response(answer.body ?? '', { status: answer.status, headers: answer.headers ?? {} })
  }
  // One event a read, then the end: what was sent before a cut is read
  // before the cut, as from a socket (an error raised with events still
  // queued would drop them).
  let next = -1 // -1: the latency is still to wait
  const events = answer.events ?? []
  const body = new ReadableStream({
    start(controller) {
      // An abort errors the body with its reason, as fetch's does.
      signal?.addEventListener('abort', () => { try { controller.error(abortError()) } catch {} }, { once: true })
    },
    async pull(controller) {
      try {
        if (signal?.aborted) throw abortError()
        if (next < 0) {
          await sleep(answer.latencyMs ?? 0)
          next = 0
        }
        if (next < events.length) {
          controller.enqueue(encoder.encode(`data: ${events[next++]}\n\n`))
          return
        }
        switch (answer.end) {
          case 'hold':
            await new Promise((_resolve, reject) => {
              if (signal?.aborted) { reject(abortError()); return }
              signal?.addEventListener('abort', () => reject(abortError()), { once: true })
            })
            break
          case 'reset':
            controller.error(new TypeError('terminated: the connection was cut'))
            return
          default:
            controller.close()
        }
      } catch (error) {
        controller.error(error)
      }
    },
  }, { highWaterMark: 0 })
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })
}

// What DSH's code throws that no one catches is the plan's panic: the
// system under test failing (sut-panic), never the driver's end.
let current = null
const uncaught = (error) => {
  const text = String(error?.stack ?? error)
  if (current) current.panic ||= text
  else process.stderr.write(`turnsim's DSH loop driver: uncaught between plans: ${text}\n`)
}
process.on('uncaughtException', uncaught)
process.on('unhandledRejection', uncaught)

// settles runs virtual time until the promise settles, for at most a
// bounded number of steps, and says whether it did (a rejection counts:
// what is wanted is that it is over).
async function settles(promise, maxSteps = 10000) {
  let done = false
  Promise.resolve(promise).then(() => { done = true }, () => { done = true })
  for (let i = 0; i < maxSteps && !done; i++) {
    await hop()
    if (done) break
    if (clock.countTimers() === 0) { await hop(); break }
    try { await clock.nextAsync() } catch (error) { uncaught(error) }
  }
  return done
}

// runPlan runs one plan and returns its result.
async function runPlan(plan) {
  idSeed = BigInt.asUintN(64, BigInt(plan.seed ?? 0))
  idCount = 0
  clock.reset()

  const events = []
  const facts = current = { panic: '', eventTimesUs: [], requests: [], actions: [], inputs: [], decisions: [], waterfalls: [], summaries: 0, statuses: [], warnings: [], idleAfterDisposal: -1, disposed: false }
  let order = 0 // places requests and actions in one sequence, which seqs cannot
  let stopped = ''
  let turn = 0
  let step = 0
  const attempts = new Map() // "turn/step" → requests made
  let status = 'idle'
  let pendingTriggers = 0

  // The provider: conversation requests take the plan's answers in order,
  // compaction's summaries theirs; a request inside an outage fails as
  // the outage says and takes none. The answer is taken when the adapter
  // is called (as the model's port takes it), and played by the fetch
  // the call makes.
  let nextAnswer = 0
  let nextSummary = 0
  const answerOf = new Map() // a call's options → its answer
  function takeAnswer(options) {
    const now = elapsedMs()
    if (options.purpose === 'compaction') {
      facts.summaries++
      return plan.summaries?.[nextSummary++] ?? plan.defaultAnswer
    }
    const outage = plan.outages?.find((o) => now >= o.fromMs && now < o.toMs)
    if (outage) return outage.answer
    return plan.answers?.[nextAnswer++] ?? plan.defaultAnswer
  }
  let calling = null // the answer of the call whose fetch comes next
  const fetchImpl = async (url, init) => {
    const answer = calling ?? plan.defaultAnswer
    calling = null
    return answerResponse(answer, init?.signal)
  }
  // As Node 22's own fetch (undici) rejects: with whatever it rejected
  // with (an aborted request: the signal's reason, DSH's cancel cause
  // object itself), on which it captures a stack trace, so that an object
  // gains a non-enumerable `stack` accessor. Observed with Node 22.23.5's
  // fetch; DSH's session refuses such an object in an event.
  globalThis.fetch = async (url, init) => {
    try {
      return await fetchImpl(url, init)
    } catch (error) {
      if (error !== null && typeof error === 'object') Error.captureStackTrace(error)
      throw error
    }
  }

  // Observers of the request-error waterfall, one before each listener
  // and one after the last: observer k sees what listener k answered (the
  // chain from it on), and whether it called next (observer k+1 ran) and
  // what next returned. A listener's own retry is a retry it did not pass
  // on; the outermost answer is the waterfall's.
  let dispatch = null
  let waterfallDepth = 0 // inside a request-error waterfall: a listener's waits
  function observeListener(c, k, listener) {
    c.on('agent/request-error', async (payload, next) => {
      if (k === 0) dispatch = { called: [], results: [] }
      const d = dispatch
      d.called[k] = true
      if (!listener) return next()
      if (k === 0) waterfallDepth++
      let result
      try {
        result = await next()
      } catch (error) {
        answered(k, d, payload, listener, undefined, true)
        throw error
      } finally {
        if (k === 0) waterfallDepth--
      }
      answered(k, d, payload, listener, result, false)
      return result
    })
  }
  function answered(k, d, payload, listener, result, threw) {
    d.results[k] = { retry: !threw && result?.kind === 'retry', threw }
    const passedOn = d.called[k + 1] && d.results[k + 1]?.retry
    facts.decisions.push({ seq: logLength(), turn: payload.turn, step: payload.step, listener,
      retry: d.results[k].retry && !passedOn, threw })
    if (k === 0) facts.waterfalls.push({ seq: logLength(), order: ++order, retry: d.results[0].retry, threw })
  }

  // The session's own log: its length places requests and actions.
  const logLength = () => agent.session.events.length
  let retryFiber
  const ctx = new Context()
  const fiber = ctx.plugin({
    name: 'turnsim-plan',
    async apply(c) {
      await c.plugin(llm.default)
      await c.plugin(sessionPkg.default)
      await c.plugin(SystemPrompt)
      await c.plugin(tools.default)
      await c.plugin(AgentRegistry)
      await c.plugin(TokenMeter)
      // The request-error listeners in the plan's order (the first
      // registered is outermost), each behind an observer of its answer.
      const names = plan.listenerOrder ?? ['retry', 'compaction']
      const installed = names.filter((name) => name === 'retry' || (name === 'compaction' && plan.compaction))
      for (const [k, name] of installed.entries()) {
        observeListener(c, k, name === 'retry' ? 'llm-retry' : 'compaction-basic')
        if (name === 'retry') {
          let r = 0
          const samples = plan.random?.length ? plan.random : [0.5]
          retryFiber = c.plugin({
            name: llmRetry.name,
            inject: llmRetry.inject,
            apply: (cc, config) => llmRetry.apply(cc, config, { random: () => samples[r++ % samples.length] }),
          }, {})
          await retryFiber
        } else {
          if (plan.pruner) await c.plugin(ToolResultPruner, plan.pruner)
          await c.plugin(BasicCompactionEngine, plan.compaction)
        }
      }
      observeListener(c, installed.length, '')
      await c.plugin(AgentLoop, { agents: [] })
    },
  })
  await fiber
  const options = resolveAdapterOptions({
    baseURL: 'http://127.0.0.1:1', // never reached: fetch is the plan's
    thinking: 'disabled',
    defaultContextWindow: plan.contextWindow,
    ...plan.streamIdleTimeoutMs > 0 ? { streamIdleTimeoutMs: plan.streamIdleTimeoutMs } : {},
    ...plan.retryPolicy ? { retryPolicy: plan.retryPolicy } : {},
  })
  // The seqs of the surface nodes a request carries, by their messages'
  // ids: what the adapter is asked to send, for the oracle.
  const seqOfMessage = new Map()
  // The adapter's entry is the model port: a conversation request is
  // recorded with the seqs it carries (for the oracle) and is the
  // model-call choice point; a summary request inside a request-error
  // listener is the wait compaction begins (listener-wait).
  class Observed extends DeepSeekAdapter {
    stream(options) {
      const answer = takeAnswer(options)
      const iterator = super.stream(options)
      const next = iterator.next.bind(iterator)
      // The fetch comes on the stream's first read: it plays this answer.
      iterator.next = (...args) => { if (!started) { started = true; calling = answer } return next(...args) }
      let started = false
      if (options.purpose === 'compaction') {
        if (waterfallDepth > 0) point('listener-wait')
        return iterator
      }
      const key = `${turn}/${step}`
      const attempt = (attempts.get(key) ?? 0) + 1
      attempts.set(key, attempt)
      const messages = (options.messages ?? []).map((m) => seqOfMessage.get(m.id)).filter((seq) => seq !== undefined)
      facts.requests.push({ seq: logLength(), order: ++order, turn, step, attempt, timeMs: elapsedMs(), messages })
      point('model-call')
      return iterator
    }
  }
  ctx.llm.registerAdapter([plan.provider], new Observed({
    options: () => options,
    resolveApiKey: async () => 'sk-turnsim',
    resolveUserId: () => 'turnsim',
  }))
  const toolNames = [...new Set(Object.values(plan.tools ?? {}).map((t) => t.name))]
  for (const name of toolNames) {
    ctx.tools.register(tools.defineContentToolFixture({
      name,
      description: `turnsim's scripted ${name}`,
      parameters: {},
      async execute(_args, exec) {
        const spec = plan.tools[exec.callId] ?? { result: 'ok' }
        if (spec.latencyMs > 0) {
          // A cancel ends the wait: the tool settles, and DSH's runtime
          // makes an aborted call's result ABORTED, as its real tools'.
          await new Promise((resolve) => {
            const signal = exec.signal
            if (signal?.aborted) { resolve(); return }
            const timer = setTimeout(resolve, spec.latencyMs)
            signal?.addEventListener('abort', () => { clearTimeout(timer); resolve() }, { once: true })
          })
        }
        if (spec.isError) throw new Error(spec.result ?? '')
        return [{ type: 'text', text: spec.result ?? '' }]
      },
    }))
  }

  // Created as a host creates one it owns, with its lifecycle's dispose
  // (docs/dsh.md#disposal: cancel with cause disposed, wait for idle,
  // leave).
  const sessionId = sessionPkg.SessionId(`turnsim-${plan.name ?? 'plan'}`)
  const { agent, dispose: disposeAgent } = await ctx.agentLoop.createAgent(ctx, {
    sessionId,
    agentOptions: { provider: plan.provider, model: plan.model },
  })
  // What the loop could not log (its turn threw), as its hosts report it.
  ctx.on('agent/error', ({ agent: subject, turn: t, step: st, error }) => {
    if (subject !== undefined && subject !== agent) return
    facts.warnings.push(`DSH's loop reported an agent error in turn ${t} step ${st}: ${error?.message ?? String(error)}`)
  })
  ctx.on('agent/status', ({ agent: subject, status: next }) => {
    if (subject !== agent) return
    status = next
    facts.statuses.push(next)
    if (next === 'idle' && facts.disposed && facts.idleAfterDisposal < 0) facts.idleAfterDisposal = logLength()
  })

  // Triggers: each input and world action lands after the nth event of a
  // type, after the nth occurrence of a choice point that is no event
  // (model-call, listener-wait), or at a virtual time; plusMs places it
  // that much virtual time later. After an event, it lands where the
  // model's world lands it: once the append returns, before the code that
  // made it goes on. Not inside the event's publication, where DSH refuses
  // an input's, a disposal's or an inbox-clearing cancel's append (it
  // cannot reenter); not a microtask later, when DSH's synchronous code
  // has gone on (a step's claim of the inbox) to a point no plan can name.
  // An inbox splice's event commits before its lists change: what lands
  // after one lands once the splice is done.
  const counts = new Map()
  const placed = []
  const place = (what, trigger, apply) => {
    pendingTriggers++
    const run = () => { pendingTriggers--; apply() }
    if (!trigger.after) {
      setTimeout(run, trigger.atMs ?? 0) // from 0: every plan starts there
      return
    }
    placed.push({ what, trigger, run, done: false })
  }
  function due(type) {
    const n = (counts.get(type) ?? 0) + 1
    counts.set(type, n)
    const out = []
    for (const p of placed) {
      if (p.done || p.trigger.after !== type || p.trigger.nth !== n) continue
      p.done = true
      if (p.trigger.plusMs > 0) setTimeout(p.run, p.trigger.plusMs)
      else out.push(p)
    }
    return out
  }
  const point = (name) => { for (const p of due(name)) p.run() }
  // What is due after an event, until its append (or its splice) is done.
  let landing = []
  let splicing = 0
  // Actions due after the same event run one after the other; what an
  // action's own appends make due runs inside it, at those appends, as the
  // model's world does.
  function land() {
    while (splicing === 0 && landing.length > 0) {
      const next = landing.shift()
      const rest = landing
      landing = []
      try {
        next.run()
      } finally {
        landing = [...landing, ...rest]
      }
    }
  }
  // A compaction's summary and its checkpoint, and a prune and its
  // replacing result, are one commit (docs/dsh.md#overflow-compaction):
  // what lands after the first waits for the second, as in the model.
  let inCommit = []
  // An action's fact: where it landed (before the event of seq), when,
  // in which open turn; the Go side names it from the plan's field.
  const record = (field) => {
    facts.actions.push({ seq: logLength(), order: ++order, timeMs: elapsedMs(), timeUs: clock.now, field, turn: turnOpen ? turn : 0 })
    return facts.actions[facts.actions.length - 1]
  }
  let turnOpen = false

  // Every event of the session, seen as its append returns: DSH's session
  // publishes to the context's session/event listeners only while it is
  // in the context's registry, which a disposal leaves.
  function observe(event) {
    events.push(event)
    facts.eventTimesUs[event.seq] = clock.now // exact: the log's time is the whole millisecond
    const id = event.data?.message?.id ?? (event.type === 'user/message' ? event.data?.id : undefined)
    if (id !== undefined) seqOfMessage.set(id, event.seq)
    switch (event.type) {
      case 'turn/start': turn = event.data.turn; step = 0; turnOpen = true; break
      case 'step/start': step = event.data.step; break
      case 'turn/end': turnOpen = false; break
    }
    const now = due(event.type)
    if (event.type === 'compaction/summary' || event.type === 'compaction/prune') {
      inCommit.push(...now)
    } else {
      landing.push(...inCommit, ...now)
      inCommit = []
    }
    // llm-retry's backoff begins as its llm/retry is appended: the wait's
    // choice point, after the event's own.
    if (event.type === 'llm/retry' && waterfallDepth > 0) landing.push(...due('listener-wait'))
    if (plan.maxEvents > 0 && events.length >= plan.maxEvents && !stopped) {
      // The plan's bound: the run stops here, as the model's does.
      stopped = `stopped at the bound of ${plan.maxEvents} events`
      landing.push({ run: () => { try { agent.cancel({ kind: 'disposed' }) } catch {} } })
    }
  }
  const session = agent.session
  const append = session.append
  session.append = function (...args) {
    const event = append.apply(this, args)
    observe(event)
    land()
    return event
  }
  const inbox = agent.inbox
  const mutate = inbox.mutate
  inbox.mutate = function (...args) {
    splicing++
    try {
      return mutate.apply(this, args)
    } finally {
      splicing--
      land()
    }
  }

  for (const [i, input] of (plan.inputs ?? []).entries()) {
    const apply = () => {
      const fact = record(`inputs[${i}]`)
      const message = llm.createUserMessage({ content: [{ type: 'text', text: input.text }], source: { kind: 'user' } })
      facts.inputs.push({ id: message.id })
      // A host reaches an agent through the registry, by its session's
      // id: a disposed agent has left it, and is reached no more (the
      // object itself would still take the message: rc.8's agent keeps
      // no disposed state).
      if (ctx.agents.get(sessionId) !== agent) {
        fact.refused = 'no agent of this session: it was disposed'
        facts.inputs[facts.inputs.length - 1].refused = true
        return
      }
      try {
        switch (input.kind) {
          case 'steer': agent.steer(message); break
          case 'inject': agent.inject(message); break
          default: agent.followup(message)
        }
      } catch (error) {
        fact.refused = String(error?.message ?? error)
        facts.inputs[facts.inputs.length - 1].refused = true
      }
    }
    place(`inputs[${i}]`, input.trigger ?? {}, apply)
  }
  for (const [i, action] of (plan.world ?? []).entries()) {
    const apply = () => {
      record(`world[${i}]`)
      switch (action.do) {
        case 'cancel':
          // As a host reaches an agent, through the registry: once its
          // disposal has taken it out, a cancel finds no agent (rc.8's
          // object would still take it and log its inbox cancelled,
          // after its disposal completed; found by --sut both), as an
          // input finds none.
          if (ctx.agents.get(sessionId) === agent) agent.cancel(action.cause, { keepInbox: action.keepInbox })
          break
        case 'dispose':
          facts.disposed = true
          void disposeAgent()
          break
        case 'dispose-retry':
          // llm-retry's plugin alone, as a host unloading it would.
          if (retryFiber) void retryFiber.dispose()
          break
      }
    }
    place(`world[${i}]`, action.trigger ?? {}, apply)
  }

  // Run until the agent is idle with every trigger spent, nothing left to
  // fire; a plan that does not settle within its bound on steps stops.
  const maxSteps = plan.maxSteps > 0 ? plan.maxSteps : 100000
  let steps = 0
  for (;;) {
    await hop()
    await hop()
    if (status === 'idle' && pendingTriggers === 0 && clock.countTimers() === 0) break
    if (++steps > maxSteps) { stopped ||= `stopped after ${maxSteps} steps of virtual time`; break }
    if (clock.countTimers() === 0) {
      if (status === 'idle') {
        // The triggers left can never fire: their events will not come.
        break
      }
      stopped ||= `stalled at ${elapsedMs()} ms: nothing scheduled, and the agent is not idle`
      break
    }
    try {
      await clock.nextAsync()
    } catch (error) {
      // A timer's callback of DSH's threw: uncaught, it would end a real
      // process; here it is the plan's panic (sut-panic), and the plan
      // stops there.
      uncaught(error)
      break
    }
  }
  const unfired = placed.filter((p) => !p.done).map((p) => p.what)

  // The log as DSH's JSONL persistence encodes it (its own encoder; not
  // through a file, which a plan has no use for).
  const jsonl = await JsonlSessionPersistence.prototype.encodeMaterialization.call(
    { packChunks: false, compression: 'none' }, agent.session.header, agent.session.events)
  // The agent and the plan's fiber are disposed in virtual time too, and
  // within a bound: a loop that ignores its signal never goes idle, and
  // its disposal must not hold the driver (and every plan after it).
  if (!await settles(disposeAgent())) stopped ||= 'the agent did not go idle after its disposal at the end of the plan'
  await settles(fiber.dispose())
  clock.reset()
  current = null
  return { id: plan.id, log: jsonl, facts, stopped, unfired }
}

// Stack traces are not captured while plans run: cordis builds an Error
// on every dispatch for the stack it would splice into a thrown one, and
// capturing those traces was a fifth of a plan's time. DSH's logs are
// the same bytes either way (nothing of a stack reaches a log; checked
// seed by seed with --stack-trace-limit 0 and 10). A plan that panics,
// or that the driver fails on, is run again with stacks, deterministic as
// it is, so that what is reported says where.
const STACKS = Error.stackTraceLimit
Error.stackTraceLimit = 0
async function runWithStacksOnFailure(plan) {
  let result
  try {
    result = await runPlan(plan)
    if (!result.facts.panic) return result
  } catch {
    // run again below, with stacks
  }
  Error.stackTraceLimit = STACKS
  try {
    const again = await runPlan(plan)
    if (result) result.facts.panic = again.facts.panic || result.facts.panic
    else result = again
  } catch (error) {
    result = { id: plan?.id, error: String(error?.stack ?? error) }
  } finally {
    Error.stackTraceLimit = 0
  }
  return result
}

// The loop: one plan a line in, one result a line out. The input ends
// when simrun closes the driver (between plans) or is gone: either way no
// one waits for a result, and the driver exits at once, even inside a
// plan (one that never settles once kept an orphan busy after simrun
// died).
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
lines.on('close', () => process.exit(0))
for await (const line of lines) {
  if (line.trim() === '') continue
  let plan
  let result
  try {
    plan = JSON.parse(line)
    result = await runWithStacksOnFailure(plan)
  } catch (error) {
    result = { id: plan?.id, error: String(error?.stack ?? error) }
  }
  process.stdout.write(JSON.stringify(result) + '\n')
}
