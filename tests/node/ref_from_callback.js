// An unref'd timer given its ref back by a ref'd timer's callback keeps the loop alive
// until it runs; another unref'd timer due in between runs too.
const a = setTimeout(() => console.log('50 ms, ref again'), 50);
a.unref();
const b = setTimeout(() => console.log('30 ms, unref'), 30);
b.unref();
setTimeout(() => {
  console.log(`10 ms refs A ${a.hasRef()}`);
  a.ref();
}, 10);
