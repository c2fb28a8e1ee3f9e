// A nextTick callback throws, and nothing catches it: Node prints the error on stderr
// and exits with code 1. The second tick and the immediate never run.
process.nextTick(() => {
  throw new Error('boom');
});
process.nextTick(() => console.log('second tick'));
setImmediate(() => console.log('immediate'));
console.log('main');
