// Awaiting a promise already fulfilled costs one microtask, as a then link does;
// resolving a new promise with that same promise adopts it, which costs two more;
// Promise.resolve of a promise gives that promise itself, so its then costs one.
const p = Promise.resolve('p');
async function awaitsPromise() {
  const v = await p;
  console.log('awaited ' + v);
}
awaitsPromise();
new Promise((resolve) => resolve(p)).then((v) => console.log('adopted ' + v));
const same = Promise.resolve(p);
same.then((v) => console.log('resolve kept ' + v));
Promise.resolve()
  .then(() => console.log('then 1'))
  .then(() => console.log('then 2'))
  .then(() => console.log('then 3'))
  .then(() => console.log('then 4'));
