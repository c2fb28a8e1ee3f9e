// An async function with no await fulfils its promise before it returns: the then
// reaction is queued at once, ahead of a later queueMicrotask.
async function value() {
  console.log('body');
  return 'v';
}
value().then((v) => console.log('then ' + v));
queueMicrotask(() => console.log('microtask'));
process.nextTick(() => console.log('tick'));
