// A promise reaction inside an immediate queues a nextTick and another reaction; the
// tick queues a reaction of its own. All of it runs before the next immediate.
setImmediate(() => {
  console.log('immediate 1');
  Promise.resolve().then(() => {
    console.log('promise 1');
    process.nextTick(() => {
      console.log('tick from promise');
      Promise.resolve().then(() => console.log('promise from tick'));
    });
    queueMicrotask(() => console.log('microtask 2'));
  });
});
setImmediate(() => console.log('immediate 2'));
