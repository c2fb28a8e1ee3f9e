// An immediate that writes to a socket and queues another immediate: the next
// iteration's poll runs the peer's data callback before the check phase runs the
// second immediate, so a chain of immediates does not keep I/O out.
const net = require('net');
const server = net.createServer((conn) => {
  conn.on('data', (data) => {
    console.log(`data ${data}`);
    conn.destroy();
    server.close();
  });
});
server.listen(0, '127.0.0.1', () => {
  const socket = net.connect(server.address().port, '127.0.0.1');
  socket.on('error', () => {});
  socket.on('connect', () => {
    // Wait until the server side has its connection and reads.
    setTimeout(() => {
      setImmediate(() => {
        console.log('immediate 1 writes');
        socket.write('x');
        setImmediate(() => {
          console.log('immediate 2');
          setImmediate(() => { console.log('immediate 3'); socket.destroy(); });
        });
      });
    }, 20);
  });
});
