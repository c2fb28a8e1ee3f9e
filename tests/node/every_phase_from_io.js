// From a socket's data callback (the poll phase): a nextTick, a promise, an immediate,
// a 0 ms timer and a close. They run tick, promise, check, close, timers.
const net = require('net');
const server = net.createServer((conn) => conn.end('x'));
server.listen(0, '127.0.0.1', () => {
  const socket = net.connect(server.address().port, '127.0.0.1');
  socket.on('data', () => {
    console.log('data');
    server.close();
    socket.on('close', () => console.log('close'));
    socket.destroy();
    setTimeout(() => console.log('timeout'), 0);
    setImmediate(() => console.log('immediate'));
    Promise.resolve().then(() => console.log('promise'));
    process.nextTick(() => console.log('tick'));
    const end = Date.now() + 5;
    while (Date.now() < end);
  });
});
