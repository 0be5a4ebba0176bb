package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.redis.Hold.HoldId;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The release side of a {@link RedisLockClient}: counts an owner's or a handle's releases down, and releases
 * the last one in Redis, handing a reentrant lock to the next local waiter in the same round trip, or keeping
 * it taken by nobody until its minimum hold ends; releases holds whose thread ended (orphans). What holders did
 * not release in time at shutdown is released by {@link ShutdownReleases}, a release whose round trip failed is
 * judged by {@link FailedReleases}. Releases run asynchronously; a blocking caller waits for them. Thread-safe.
 */
final class HoldReleaser {

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

	private final ConcurrentHashMap<HoldId, Hold> holds;

	private final LocalQueues queues;

	private final LockCommands commands;

	private final ShutdownGrace shutdownGrace;

	private final AtomicBoolean closed;

	/** Tells the observer and the log of releases and losses. */
	private final HoldEvents events;

	/** Stops renewing released holds. */
	private final LeaseWatchdog watchdog;

	/** Judges releases whose round trip failed: lost, sent again, or failed. */
	private final FailedReleases failed;

	/** Tells a release that ran twice from one that found its lock wiped. */
	private final ReleaseReplays replays;

	/**
	 * Creates the release side of one client.
	 * @param closed set once the client is closed: a hold released at shutdown is then not released again
	 */
	HoldReleaser(ConcurrentHashMap<HoldId, Hold> holds, LocalQueues queues, LockCommands commands,
			ShutdownGrace shutdownGrace, AtomicBoolean closed, HoldEvents events, LeaseWatchdog watchdog,
			ReleaseReplays replays) {
		this.replays = replays;
		this.failed = new FailedReleases(commands, closed, events);
		this.holds = holds;
		this.queues = queues;
		this.commands = commands;
		this.shutdownGrace = shutdownGrace;
		this.closed = closed;
		this.events = events;
		this.watchdog = watchdog;
	}

	/**
	 * Releases one hold, on whichever thread: the lock's last hold is released in Redis, handed to the next
	 * local waiter, or, before its minimum hold ends, kept taken by nobody until then.
	 * @param hold the hold
	 * @param byHandle whether one of its {@link RedisLockHandle}s is closed by this release
	 * @return completes when released; fails with an {@link IllegalMonitorStateException} if all its holds were
	 * released already, a {@link LockLostException} if the lock was lost before this release (also: released at
	 * shutdown), a {@link DistributedLockException} if Redis could not be reached (the lock ends with its lease)
	 */
	CompletableFuture<Void> release(Hold hold, boolean byHandle) {
		String key = hold.id.key();
		synchronized (hold) {
			if (byHandle) {
				hold.handles--;
			}
			if (hold.released) {
				return CompletableFuture.failedFuture(new IllegalMonitorStateException(
						"Lock '" + key + "' (" + hold.id.type() + ") was released already"));
			}
			if (--hold.count > 0) {
				// an inner release: the lock stays held, no round trip; report a loss this client knows of
				return hold.isKnownLost() ? CompletableFuture.failedFuture(new LockLostException(key, hold.lostReason))
						: DONE;
			}
			hold.released = true;
			removeHold(hold);
		}
		return releaseLast(hold);
	}

	/**
	 * Undoes a re-entry counted before its round trip, which failed: if the owner's other holds were released
	 * meanwhile, this was the last one, and the lock is released in Redis.
	 * @param hold the hold
	 */
	void dropReentry(Hold hold) {
		synchronized (hold) {
			if (hold.released || --hold.count > 0) {
				return;
			}
			hold.released = true;
			removeHold(hold);
		}
		releaseLast(hold).whenComplete((done, ex) -> {
			if (ex != null) {
				logger.debug("Released lock '" + hold.id.key() + "' after a failed re-entry", ex);
			}
		});
	}

	/** Releases the last hold of a hold, removed from the client's holds already, and tells how it went. */
	private CompletableFuture<Void> releaseLast(Hold hold) {
		String key = hold.id.key();
		if (this.closed.get() && hold.lostReason != null) {
			// released at shutdown already, and the connection factory may be stopped: no round trip
			this.shutdownGrace.releaseEnded();
			leaveQueueOf(hold, false, null);
			this.events.released(hold, true);
			return CompletableFuture.failedFuture(new LockLostException(key, hold.lostReason));
		}
		String toldLoss = hold.lostReason;
		if (toldLoss != null) {
			// told lost already: the caller learns it now, not after a round trip to a Redis that may not answer
			// (often the loss's cause); the release still goes out, to remove this attempt's entry if Redis has it
			releaseInRedis(hold).whenComplete((result, ex) -> {
				if (ex != null) {
					logger.debug("Could not release lock '" + key + "', which was lost already", ex);
				}
			});
			return CompletableFuture.failedFuture(lostAtRelease(hold, toldLoss));
		}
		return releaseInRedis(hold).handle((result, ex) -> {
			if (ex != null) {
				this.events.released(hold, false);
				throw ScriptExecutor.unwrap(ex);
			}
			if (result == FailedReleases.PENDING && hold.lostReason == null) {
				// the work under the lock completed: a release that cannot reach Redis now must not undo its result
				this.events.released(hold, false);
				return null;
			}
			if (result == LockScripts.NOT_HELD || hold.lostReason != null) {
				String reason = (hold.lostReason != null) ? hold.lostReason : hold.goneAtRelease();
				throw lostAtRelease(hold, reason);
			}
			this.events.released(hold, false);
			return null;
		});
	}

	/** Marks a released hold lost, tells it, and returns the exception its release fails with. */
	private LockLostException lostAtRelease(Hold hold, String reason) {
		hold.markLost(reason);
		if (hold.isLossReported()) {
			this.events.released(hold, true);
		}
		else {
			// the loss, told first, is published as an event: not on the I/O thread this may run on
			this.events.later(() -> this.events.released(hold, true));
		}
		return new LockLostException(hold.id.key(), reason);
	}

	/**
	 * Releases a hold's lock in Redis after its last hold was released, and leaves the local queue.
	 * @return the release script's result; failed with a {@link DistributedLockException} if Redis could not be
	 * reached
	 */
	private CompletableFuture<Long> releaseInRedis(Hold hold) {
		String key = hold.id.key();
		long keepMillis = hold.keepMillis();
		// the next local waiter, if any, gets the lock in the same round trip as this release
		LocalQueue queue = hold.queue;
		LocalWaiter next = (keepMillis <= 0 && queue != null && hold.queueHead && hold.id.type() == LockType.REENTRANT
				&& hold.lostReason == null) ? queue.reserveNext() : null;
		ReleaseReplays.Sent sent = this.replays.sending();
		long sentAt = sent.at();
		CompletableFuture<ScriptExecutor.Pair> released;
		try {
			released = (keepMillis > 0) ? this.commands.keep(hold, keepMillis).thenApply((kept) -> new ScriptExecutor.Pair(kept, 0))
					: this.commands.release(hold, next);
		}
		catch (RuntimeException ex) {
			released = CompletableFuture.failedFuture(ex);
		}
		return released.handle((reply, ex) -> {
			boolean handedOver = ex == null && next != null && reply.result() == LockScripts.HANDED_OVER;
			try {
				if (handedOver) {
					queue.handedOver(next, sentAt, reply.token());
					if (WaitLog.handOvers()) {
						WaitLog.handedOver(key, hold.id.type(), hold.owner, reply.token());
					}
				}
			}
			finally {
				leaveQueueOf(hold, handedOver, next);
				this.shutdownGrace.releaseEnded();
			}
			if (ex != null) {
				return this.failed.judge(hold, ScriptExecutor.unwrap(ex), sentAt);
			}
			if (reply.result() == LockScripts.NOT_HELD && hold.lostReason == null) {
				// a release Lettuce sent again after a reconnect, or a lock wiped meanwhile
				return this.replays.notHeld(hold, sent);
			}
			return reply.result();
		});
	}

	/**
	 * Undoes an acquisition that too few replicas acknowledged (replica sync): releases it as any release does,
	 * so a waiter is granted or woken, and the lock is not left to its lease.
	 * @return completes when done, however; never fails
	 */
	CompletableFuture<Void> undo(Hold hold) {
		return release(hold, false).handle((done, ex) -> {
			RuntimeException failure = (ex != null) ? ScriptExecutor.unwrap(ex) : null;
			if (failure != null && !(failure instanceof LockLostException)) {
				// lost: gone already, nothing to undo
				logger.warn("Could not undo the acquisition of lock '" + hold.id.key() + "' that too few replicas "
						+ "acknowledged; it ends with its lease of " + hold.leaseMillis + " ms", failure);
			}
			return null;
		});
	}

	/**
	 * Releases a hold whose owner thread ended without releasing it (the watchdog found it orphaned): nobody
	 * can release it any more, and renewing it would keep the lock taken for the life of the JVM.
	 * @return completes when done; fails if Redis could not be reached
	 */
	CompletableFuture<Void> releaseOrphan(Hold hold) {
		synchronized (hold) {
			if (!hold.isOrphaned()) {
				return DONE;
			}
			hold.released = true;
			hold.count = 0;
			removeHold(hold);
		}
		logger.warn("Releasing lock " + ShutdownGrace.describe(hold) + ": that thread ended without releasing it "
				+ "(a Lock must be unlocked by the thread that locked it, before it ends)");
		return releaseInRedis(hold).handle((result, ex) -> {
			hold.markLost("its owner " + hold.holder() + " ended without releasing it");
			this.events.later(() -> this.events.released(hold, true));
			if (ex != null) {
				throw ScriptExecutor.unwrap(ex);
			}
			return null;
		});
	}

	/**
	 * Removes a released hold. The shutdown counts its Redis release as in flight from here until
	 * {@link #releaseInRedis} ends, so that the connection factory is not stopped under that round trip.
	 */
	private void removeHold(Hold hold) {
		this.shutdownGrace.releaseStarted();
		this.holds.remove(hold.id, hold);
		this.watchdog.unschedule(hold);
	}

	/**
	 * Leaves the local queue after the Redis release: unless the lock was handed over, the next local waiter
	 * (the reserved one, if a hand-over did not happen) becomes the head and goes to Redis, finding it free.
	 */
	private void leaveQueueOf(Hold hold, boolean handedOver, @Nullable LocalWaiter reserved) {
		LocalQueue queue = hold.queue;
		if (queue != null) {
			if (hold.queueHead && !handedOver) {
				queue.leave(reserved);
			}
			this.queues.leave(hold.redisKey, hold.id.type());
		}
	}

}
