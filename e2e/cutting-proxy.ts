import { connect, createServer, type Socket } from "node:net";

/** A loopback TCP proxy that can cut every open connection, as a dropped network does. */
export interface CuttingProxy {
  url: string;
  /** Destroys every open connection; new ones go through again. */
  cut(): void;
  close(): Promise<void>;
}

/** Proxies 127.0.0.1:<free port> to `target` (an http URL on loopback). */
export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: own } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${own}`,
    cut() {
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
