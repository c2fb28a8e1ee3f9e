// An unref'd timer does not keep the loop alive, but it still runs while something else
// does. `ref()` undoes `unref()`. The last timer is unref'd and alone: the loop ends
// without waiting for it. The deadlines are far apart, so a stall cannot swap them.
const a = setTimeout(() => console.log('unref 10 ms'), 10);
a.unref();
const b = setTimeout(() => console.log('unref then ref 20 ms'), 20);
b.unref();
b.ref();
console.log(`hasRef ${a.hasRef()} ${b.hasRef()}`);
setTimeout(() => {
  console.log('ref 100 ms');
  setTimeout(() => console.log('never'), 5000).unref();
}, 100);
