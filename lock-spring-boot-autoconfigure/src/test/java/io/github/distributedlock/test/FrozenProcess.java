package io.github.distributedlock.test;

import java.io.IOException;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A {@code redis-server} process a test started, stopped with SIGSTOP ({@code kill -STOP}) until
 * {@link #close()} lets it go on (SIGCONT): it neither answers nor replicates meanwhile, as in a long stall.
 */
public final class FrozenProcess implements AutoCloseable {

	private final long pid;

	private boolean frozen = true;

	private FrozenProcess(long pid) {
		this.pid = pid;
		signal("-STOP");
	}

	/**
	 * Stops a Redis server.
	 * @param redis a template on it, to read its process id from {@code INFO server} before it stops
	 * @return the frozen process; close it to let it go on
	 */
	public static FrozenProcess freeze(StringRedisTemplate redis) {
		return new FrozenProcess(Long.parseLong(info(redis, "server", "process_id")));
	}

	/**
	 * Reads one field of {@code INFO <section>}.
	 * @param redis a template on the server to ask
	 * @param section the INFO section
	 * @param field the field name
	 * @return its value
	 */
	public static String info(StringRedisTemplate redis, String section, String field) {
		Properties info = redis.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info(section));
		String value = Objects.requireNonNull(info, "INFO returned nothing").getProperty(field);
		if (value == null) {
			throw new IllegalStateException("INFO " + section + " has no " + field);
		}
		return value;
	}

	/**
	 * Lets the process go on (SIGCONT); does nothing the second time.
	 */
	@Override
	public synchronized void close() {
		if (this.frozen) {
			signal("-CONT");
			this.frozen = false;
		}
	}

	private void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", signal, Long.toString(this.pid)).inheritIO().start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill " + signal + " " + this.pid + " failed");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
