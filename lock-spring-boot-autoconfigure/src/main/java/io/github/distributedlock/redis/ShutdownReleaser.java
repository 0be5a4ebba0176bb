package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.core.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Releases, when a client closes, the holds its holders have not released (also after a
 * {@linkplain ShutdownGrace grace period} that ended first): each is marked lost and released in Redis, with a
 * warning naming the lock and its holder. Thread-safe.
 */
final class ShutdownReleaser {

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	private final Collection<Hold> holds;

	/** Tells the observer and the log of the losses. */
	private final HoldEvents events;

	/**
	 * @param holds the client's holds, a live view
	 * @param events tells the observer and the log of the losses
	 */
	ShutdownReleaser(Collection<Hold> holds, HoldEvents events) {
		this.holds = holds;
		this.events = events;
	}

	/**
	 * Releases every hold left at shutdown, each with a warning naming the lock and its holder; their
	 * holders' releases then throw {@link LockLostException} without a round trip (the connection factory may
	 * be stopped by then). Called once the client is closed; waits for the releases, each bounded by the
	 * command timeout.
	 */
	void releaseAll() {
		List<CompletableFuture<?>> releases = new ArrayList<>();
		for (Hold hold : this.holds) {
			if (!hold.markLostIfHeld("its client was closed (application shutdown) and released it while "
					+ hold.holder() + " still held it")) {
				continue;
			}
			logger.warn("Shutdown: releasing lock " + ShutdownGrace.describe(hold)
					+ " although its holder has not released it; its release will throw LockLostException");
			this.events.lost(hold);
			CompletableFuture<ScriptExecutor.Pair> release;
			try {
				release = hold.kind().release(hold, null);
			}
			catch (RuntimeException ex) {
				release = CompletableFuture.failedFuture(ex);
			}
			releases.add(release.whenComplete((done, ex) -> {
				if (ex != null) {
					logger.warn("Could not release lock '" + hold.key() + "' at shutdown; it ends with its lease",
							ScriptExecutor.unwrap(ex));
				}
			}));
		}
		for (CompletableFuture<?> release : releases) {
			release.handle((done, ex) -> null).join();
		}
	}

}
