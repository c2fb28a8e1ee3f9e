// Node's own timers module, read back from the running Node (start it with
// --expose-internals). For each loop that runs callbacks one after another it prints
// the loop's name, how many times its body calls runNextTicks(), and how many of those
// calls are skipped before the loop's first callback (guarded by a "ran at least one"
// flag).
const { getTimerCallbacks } = require('internal/timers');

const source = getTimerCallbacks.toString();
for (const name of ['processImmediate', 'processTimers', 'listOnTimeout']) {
  const start = source.indexOf(`function ${name}(`);
  if (start === -1) {
    console.log(`${name} missing`);
    continue;
  }
  const next = source.indexOf('\n  function ', start + 1);
  const body = source.slice(start, next === -1 ? undefined : next);
  const calls = (body.match(/runNextTicks\(\)/g) || []).length;
  const guarded = (body.match(/if \(ranAtLeastOne\w*\)\s*runNextTicks\(\)/g) || []).length;
  console.log(`${name} calls=${calls} after-the-first=${guarded}`);
}
