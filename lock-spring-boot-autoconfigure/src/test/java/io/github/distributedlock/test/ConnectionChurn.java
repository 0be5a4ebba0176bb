package io.github.distributedlock.test;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.KillArgs;

/**
 * A flaky network and a stalling server, made on purpose against one {@link RedisServer} process: at random
 * moments 30–400 ms apart it kills every client connection but its own ({@code CLIENT KILL TYPE normal SKIPME
 * yes} and {@code CLIENT KILL TYPE pubsub SKIPME yes}, or only the pub/sub one), and now and then freezes the
 * server with SIGSTOP for 300–900 ms before it lets it go on (SIGCONT). The kills go over the server's
 * {@linkplain RedisServer#admin() admin connection}, which they spare.
 * <p>
 * The events run on one scheduler thread of its own until {@link #close()}, which always lets a frozen server
 * go on. Thread-safe.
 */
public final class ConnectionChurn implements AutoCloseable {

	/** One event in this many freezes the server instead of killing connections. */
	private static final int FREEZE_ONE_IN = 20;

	/** One kill in this many kills only the pub/sub connections. */
	private static final int PUBSUB_ONLY_ONE_IN = 4;

	private final RedisServer server;

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "connection-churn");
		thread.setDaemon(true);
		return thread;
	});

	private final AtomicInteger kills = new AtomicInteger();

	private final AtomicInteger pubSubOnlyKills = new AtomicInteger();

	private final AtomicInteger connectionsKilled = new AtomicInteger();

	private final AtomicInteger freezes = new AtomicInteger();

	/** Only the scheduler thread changes it while running; {@link #close()} reads it after the scheduler stopped. */
	private volatile boolean frozen;

	private ConnectionChurn(RedisServer server) {
		this.server = server;
	}

	/**
	 * Starts the churn against a server process.
	 * @param server a {@code redis-server} process the test started (freezing needs its process)
	 * @return the running churn; close it to stop
	 */
	public static ConnectionChurn start(RedisServer server) {
		ConnectionChurn churn = new ConnectionChurn(server);
		churn.scheduleNext();
		return churn;
	}

	private void scheduleNext() {
		this.scheduler.schedule(this::strike, ThreadLocalRandom.current().nextLong(30, 401), TimeUnit.MILLISECONDS);
	}

	private void strike() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		try {
			if (random.nextInt(FREEZE_ONE_IN) == 0) {
				this.server.freeze();
				this.frozen = true;
				this.freezes.incrementAndGet();
				this.scheduler.schedule(this::thaw, random.nextLong(300, 901), TimeUnit.MILLISECONDS);
				return;
			}
			if (random.nextInt(PUBSUB_ONLY_ONE_IN) == 0) {
				this.pubSubOnlyKills.incrementAndGet();
			}
			else {
				this.connectionsKilled.addAndGet(
						this.server.admin().clientKill(KillArgs.Builder.typeNormal().skipme(true)).intValue());
			}
			this.connectionsKilled.addAndGet(
					this.server.admin().clientKill(KillArgs.Builder.typePubsub().skipme(true)).intValue());
			this.kills.incrementAndGet();
		}
		catch (RuntimeException ex) {
			// the admin connection itself may be slow after a thaw; the churn goes on
		}
		scheduleNext();
	}

	private void thaw() {
		this.server.resume();
		this.frozen = false;
		scheduleNext();
	}

	/**
	 * Stops the churn and lets the server go on if it is frozen; waits up to 10 s for an event in progress.
	 */
	@Override
	public void close() {
		this.scheduler.shutdownNow();
		try {
			this.scheduler.awaitTermination(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			// SIGCONT to a running process does nothing: sent when in doubt
			if (this.frozen || !this.scheduler.isTerminated()) {
				this.server.resume();
				this.frozen = false;
			}
		}
	}

	/**
	 * Describes what the churn did so far.
	 * @return such as {@code "kills=210 (52 pub/sub only), connections killed=1460, freezes=11"}
	 */
	@Override
	public String toString() {
		return "kills=" + this.kills + " (" + this.pubSubOnlyKills + " pub/sub only), connections killed="
				+ this.connectionsKilled + ", freezes=" + this.freezes;
	}

}
