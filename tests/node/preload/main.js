// The main script of the preload check; run alone it prints only its own lines.
process.nextTick(() => console.log('main tick'));
Promise.resolve().then(() => console.log('main promise'));
setImmediate(() => {
  console.log('main immediate');
  process.nextTick(() => console.log('main immediate tick'));
});
console.log('main');
