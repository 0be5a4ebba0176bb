package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Tells whether Redis is still on the server life that granted a hold, so that a release that finds nothing held
 * after its connection broke can be read for what it is (see {@link ReleaseReplayCheck}). A life is the value of a
 * marker the clients keep in Redis ({@code server_life.lua}: {@code <key prefix>__server-life}, written if absent
 * with a random value, not replicated, expiring {@link #MARKER_TTL_MILLIS} after its last read): a server restarted
 * empty or flushed, or a replica promoted in a failover, has none, and the next client to ask writes a new one. (The script cache tells nothing of that:
 * another client may have loaded the scripts again on the new server.)
 * <p>
 * Commands sent and answered within one {@linkplain ConnectionBreaks connection generation} ran on one server life,
 * since a restart or a failover breaks every connection: a hold is dated with the generation that granted it
 * ({@link #generationOf}), and the life of each generation is read in the background when its first hold is dated
 * (the first generation's at start), and again when a hold is dated a quarter of the marker's TTL after the last
 * read: a life is trusted only while the marker cannot have expired since it was read. Lives are known on Lettuce (whose broken connections are counted; Jedis sends nothing again, so it needs
 * none) and not on a Redis Cluster, whose nodes restart one by one while a marker lives on one of them: there a
 * "not held" after a broken connection is always a possible loss. Thread-safe.
 */
final class ServerLife {

	/** The marker's values are below this (a Lua number holds every integer below it exactly). */
	private static final long BOUND = 1L << 53;

	/**
	 * How long the marker lives after its last read, in milliseconds: a day, so that a Redis the clients stopped
	 * using keeps nothing of them for ever.
	 */
	static final long MARKER_TTL_MILLIS = TimeUnit.DAYS.toMillis(1);

	private static final long MARKER_TTL_NANOS = TimeUnit.MILLISECONDS.toNanos(MARKER_TTL_MILLIS);

	/** How many generations' lives are kept: a hold granted longer ago than that many reconnects is not judged. */
	private static final int GENERATIONS_KEPT = 16;

	private final ScriptExecutor scripts;

	private final String markerKey;

	private final ConnectionBreaks breaks;

	/** Runs the background reads (a blocking transport blocks its caller). */
	private final Executor background;

	/** Whether lives are read at all: on Lettuce, outside a Redis Cluster. */
	private final boolean tracked;

	/** The last read of the life in each of the last generations. */
	private final ConcurrentHashMap<Long, Read> lives = new ConcurrentHashMap<>();

	/** Whether a background read is under way: at most one at a time. */
	private final AtomicBoolean reading = new AtomicBoolean();

	/**
	 * @param scripts the script executor
	 * @param keyPrefix the client's key prefix, under which the marker is
	 * @param breaks the client's broken connections
	 * @param background runs the background reads
	 * @param tracked whether to read lives at all: on Lettuce, outside a Redis Cluster (as the connection factory is
	 * configured: asking the connection would block)
	 */
	ServerLife(ScriptExecutor scripts, String keyPrefix, ConnectionBreaks breaks, Executor background,
			boolean tracked) {
		this.scripts = scripts;
		this.markerKey = keyPrefix + "__server-life";
		this.breaks = breaks;
		this.background = background;
		this.tracked = tracked;
	}

	/**
	 * Reads the life of the first generation, so that the first holds find it read: sent from the calling thread
	 * where scripts do not block it (on the connection the first acquisitions take after it), else in the
	 * background.
	 */
	void start() {
		if (this.scripts.isBlocking()) {
			readLater();
		}
		else if (isTracked() && this.reading.compareAndSet(false, true)) {
			read();
		}
	}

	/**
	 * Dates a hold: returns the connection generation its granting command ran in, and has that generation's life
	 * read if it was not yet.
	 * @param sentAt when the command that granted it was sent, a {@link System#nanoTime()} value; it was answered
	 * already
	 * @return the generation, or {@link ConnectionBreaks#BROKEN} if a connection broke since it was sent
	 */
	long generationOf(long sentAt) {
		long generation = this.breaks.unbrokenSince(sentAt);
		if (generation != ConnectionBreaks.BROKEN) {
			Read read = this.lives.get(generation);
			if (read == null || System.nanoTime() - read.sentAt() > MARKER_TTL_NANOS / 4) {
				readLater();
			}
		}
		return generation;
	}

	/**
	 * Tells whether Redis is still on the life of a generation: reads the marker now (writing a new one if it is
	 * gone).
	 * @param generation a hold's generation, from {@link #generationOf}
	 * @return completes with {@code true} only if the marker holds the life read in that generation; {@code false}
	 * for a generation whose life was not read (or so long ago that the marker may have expired since), another
	 * life, or a read that failed; never fails
	 */
	CompletableFuture<Boolean> isStill(long generation) {
		Read read = this.lives.get(generation);
		if (read == null || System.nanoTime() - read.sentAt() >= MARKER_TTL_NANOS || !isTracked()) {
			return CompletableFuture.completedFuture(false);
		}
		return readNow().handle((current, ex) -> ex == null && current == read.life());
	}

	private boolean isTracked() {
		return this.tracked;
	}

	private void readLater() {
		if (isTracked() && this.reading.compareAndSet(false, true)) {
			try {
				this.background.execute(this::read);
			}
			catch (RuntimeException ex) {
				// closed: no more holds to date
				this.reading.set(false);
			}
		}
	}

	private void read() {
		long generation = this.breaks.count();
		long sentAt = System.nanoTime();
		CompletableFuture<Long> life;
		try {
			life = readNow();
		}
		catch (RuntimeException ex) {
			life = CompletableFuture.failedFuture(ex);
		}
		life.whenComplete((value, ex) -> {
			// kept only if no connection broke between its sending and its reply: it is that generation's server's
			if (ex == null && this.breaks.count() == generation) {
				this.lives.put(generation, new Read(value, sentAt));
				this.lives.keySet().removeIf((older) -> older <= generation - GENERATIONS_KEPT);
			}
			this.reading.set(false);
		});
	}

	private CompletableFuture<Long> readNow() {
		String candidate = Long.toString(ThreadLocalRandom.current().nextLong(1, BOUND));
		return this.scripts.runAsync(LockScripts.SERVER_LIFE, this.markerKey, "read the server life marker",
				this.markerKey, candidate, Long.toString(MARKER_TTL_MILLIS));
	}

	/**
	 * A read of the marker.
	 * @param life the marker's value
	 * @param sentAt when the read was sent, a {@link System#nanoTime()} value: the marker lives
	 * {@link #MARKER_TTL_MILLIS} from no earlier
	 */
	private record Read(long life, long sentAt) {
	}

}
