// How many microtasks an await or a return costs on Node, read against a chain of
// then callbacks queued at the same time: a line printed right after `link N` took
// N + 1 microtasks, one printed before `link 1` took one.
async function awaitValue() {
  await 1;
  console.log('await a plain value');
}
async function awaitPromise() {
  await Promise.resolve();
  console.log('await a native promise');
}
async function awaitThenable() {
  await { then(resolve) { resolve(); } };
  console.log('await a thenable');
}
async function returnValue() {
  return 1;
}
async function returnPromise() {
  return Promise.resolve();
}
awaitValue();
awaitPromise();
awaitThenable();
returnValue().then(() => console.log('then on an async function that returns a value'));
returnPromise().then(() => console.log('then on an async function that returns a promise'));
Promise.resolve()
  .then(() => console.log('link 1'))
  .then(() => console.log('link 2'))
  .then(() => console.log('link 3'))
  .then(() => console.log('link 4'));
