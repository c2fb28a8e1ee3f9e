// An async function that returns a promise, and a then callback that returns one:
// each adopts the promise it was given, two microtasks later than a plain value.
async function returnsPromise() {
  return Promise.resolve('v');
}
returnsPromise().then((v) => console.log('async resolved ' + v));
Promise.resolve()
  .then(() => Promise.resolve('w'))
  .then((w) => console.log('then adopted ' + w));
Promise.resolve()
  .then(() => console.log('then 1'))
  .then(() => console.log('then 2'))
  .then(() => console.log('then 3'))
  .then(() => console.log('then 4'));
