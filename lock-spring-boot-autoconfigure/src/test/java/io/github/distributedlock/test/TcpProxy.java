package io.github.distributedlock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy between the client under test and a Redis server, on a free local port, that can slow the
 * network down and split it, like a bad link between an application and Redis:
 * <ul>
 * <li>{@link #latency(Duration)} delays every byte that much in each direction (so a round trip takes twice
 * as long more), keeping the order of the bytes;</li>
 * <li>{@link #partition()} stops every byte in both directions and {@link #heal()} lets them through again.
 * Like TCP over a broken link, nothing is lost: connections stay open, and what was sent meanwhile arrives
 * after the heal (so a command the client gave up on still runs late on the server, as it can in real
 * life); new connections are accepted but carry nothing until the heal.</li>
 * </ul>
 * Blocking sockets, two threads per direction of each connection (one reads, one writes when a chunk is
 * due): enough for the few connections of a Lettuce client. Thread-safe; {@link #close()} closes every
 * connection.
 */
public final class TcpProxy implements AutoCloseable {

	private final InetSocketAddress target;

	private final ServerSocket server;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final Object gate = new Object();

	private volatile long latencyNanos;

	private volatile boolean partitioned;

	private volatile boolean closed;

	/**
	 * Listens on a free port of 127.0.0.1 and forwards every connection to {@code host:port}, at once and
	 * without a partition until told otherwise.
	 * @param host the target's host
	 * @param port the target's port
	 * @throws IOException if no local port can be opened
	 */
	public TcpProxy(String host, int port) throws IOException {
		this.target = new InetSocketAddress(host, port);
		this.server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
		daemon(this::accept, "tcp-proxy-accept-" + this.server.getLocalPort()).start();
	}

	/**
	 * Returns the port clients connect to instead of the target's.
	 * @return the proxy's local port
	 */
	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Delays every chunk of bytes by {@code oneWay} in each direction from now on.
	 * @param oneWay the added delay per direction; {@link Duration#ZERO} for none
	 */
	public void latency(Duration oneWay) {
		this.latencyNanos = oneWay.toNanos();
	}

	/**
	 * Splits the network: nothing passes in either direction until {@link #heal()}.
	 */
	public void partition() {
		this.partitioned = true;
	}

	/**
	 * Ends a {@linkplain #partition() partition}: what was held back is delivered, in order.
	 */
	public void heal() {
		synchronized (this.gate) {
			this.partitioned = false;
			this.gate.notifyAll();
		}
	}

	/**
	 * Stops accepting and closes every connection (both sides).
	 */
	@Override
	public void close() {
		this.closed = true;
		heal();
		closeQuietly(this.server);
		this.sockets.forEach(TcpProxy::closeQuietly);
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				Socket upstream = new Socket();
				upstream.connect(this.target, 2000);
				client.setTcpNoDelay(true);
				upstream.setTcpNoDelay(true);
				this.sockets.add(client);
				this.sockets.add(upstream);
				String name = "tcp-proxy-" + client.getPort();
				forward(client, upstream, name + "-up");
				forward(upstream, client, name + "-down");
			}
			catch (IOException ex) {
				// closed, or the target refused one connection: the client sees a reset and reconnects
			}
		}
	}

	/** Copies {@code from} to {@code to}, each chunk when its delay is over and no partition holds it. */
	private void forward(Socket from, Socket to, String name) {
		BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
		daemon(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					queue.add(new Chunk(System.nanoTime() + this.latencyNanos, Arrays.copyOf(buffer, read)));
				}
			}
			catch (IOException ex) {
				// the connection closed
			}
			queue.add(Chunk.END);
		}, name + "-read").start();
		daemon(() -> {
			try (OutputStream out = to.getOutputStream()) {
				for (Chunk chunk = queue.take(); chunk != Chunk.END; chunk = queue.take()) {
					// the delay is the point of this proxy: wait until the chunk is due
					for (long wait = chunk.due - System.nanoTime(); wait > 0; wait = chunk.due - System.nanoTime()) {
						LockSupport.parkNanos(wait);
					}
					awaitNoPartition();
					out.write(chunk.bytes);
					out.flush();
				}
			}
			catch (IOException ex) {
				// the connection closed
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
				this.sockets.remove(from);
				this.sockets.remove(to);
			}
		}, name + "-write").start();
	}

	private void awaitNoPartition() throws InterruptedException {
		synchronized (this.gate) {
			while (this.partitioned && !this.closed) {
				this.gate.wait(TimeUnit.SECONDS.toMillis(1));
			}
		}
	}

	private static Thread daemon(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		return thread;
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// already closed
		}
	}

	/** Bytes read at one time, and when they may be written on. */
	private record Chunk(long due, byte[] bytes) {

		static final Chunk END = new Chunk(0, new byte[0]);

	}

}
