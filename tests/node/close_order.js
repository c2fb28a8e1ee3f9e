// Two sockets destroyed one after the other in one I/O callback. libuv keeps the
// handles being closed in a list it pushes onto at the front, so the close phase runs
// their callbacks in the reverse order of the closes: b's before a's.
const net = require('net');
const server = net.createServer((conn) => conn.on('error', () => {}));
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const a = net.connect(port, '127.0.0.1');
  a.on('connect', () => {
    const b = net.connect(port, '127.0.0.1');
    b.on('connect', () => {
      console.log('both connected');
      a.on('close', () => console.log('a closed'));
      b.on('close', () => console.log('b closed'));
      a.destroy();
      b.destroy();
      setImmediate(() => console.log('immediate'));
      server.close();
    });
  });
});
