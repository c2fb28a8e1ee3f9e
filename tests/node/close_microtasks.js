// Two sockets destroyed in one I/O callback, each with a close callback that queues a
// promise and a nextTick. Node drains both queues after each close callback: the tick
// and the promise of the first callback run before the second callback.
const net = require('net');
const server = net.createServer((conn) => conn.on('error', () => {}));
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const a = net.connect(port, '127.0.0.1');
  a.on('connect', () => {
    const b = net.connect(port, '127.0.0.1');
    b.on('connect', () => {
      console.log('both connected');
      for (const [name, socket] of [['a', a], ['b', b]]) {
        socket.on('close', () => {
          console.log(name + ' closed');
          Promise.resolve().then(() => console.log('promise ' + name));
          process.nextTick(() => console.log('tick ' + name));
        });
      }
      a.destroy();
      b.destroy();
      server.close();
    });
  });
});
