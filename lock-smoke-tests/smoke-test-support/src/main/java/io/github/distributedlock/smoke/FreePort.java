package io.github.distributedlock.smoke;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Free TCP ports of 127.0.0.1 for the servers and applications a smoke test starts: never 6379, the Redis a
 * developer may run.
 */
public final class FreePort {

	private FreePort() {
	}

	/**
	 * Returns a port nothing listened on a moment ago (another process may take it before the caller does).
	 * @return a port other than 6379
	 * @throws UncheckedIOException if no socket can be opened
	 */
	public static int next() {
		while (true) {
			try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
				if (socket.getLocalPort() != 6379) {
					return socket.getLocalPort();
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

}
